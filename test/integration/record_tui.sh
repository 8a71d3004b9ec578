#!/bin/sh
# record_tui.sh - mprof-tui DIR in a real terminal (tmux): it opens on the
# run's peak, Left moves back in time, P returns to the peak, the state
# after the fall no longer shows peak_fn, d diffs the mark and the cursor,
# L lists what is alive at the end, T the temporary allocations, and a diff
# marks the stacks that did not exist at the mark NEW and those that held
# memory at the mark and hold none at the cursor GONE; a recording cut by a
# SIGKILL says so on its status line.
. "$(dirname "$0")/../lib.sh"
. "$TOP/test/tmux.sh"
HOOK=$TOP/libmprof.so
cc -g -O1 -fno-omit-frame-pointer -o "$TMP/peak" "$TOP/test/progs/rec_peak.c" || { not_ok "build rec_peak"; exit 0; }
MPROF_RECORD=$TMP/rec LD_PRELOAD=$HOOK "$TMP/peak"

tmux_start 100 30 "$TMP"
keys "'$MPROF' '$TMP/rec'" Enter
check "rec tui: opens on the run's PEAK" "at the run's PEAK, 1."
check "rec tui: the peak's table: peak_fn holds 9.77 MiB" "9.77 MiB 100.0% 100.0%  9.77 MiB 100.0%      100 peak_fn"
expect_match "rec tui: the strip marks the peak" "$(screen | sed -n 3p)" 'PEAK 9\.77 MiB at 1\.[0-9]* s'
keys Left Left Left Left Left
check "rec tui: Left moves back in time (fewer blocks)" "objects name"
l=$(screen | grep -F ' peak_fn ' | head -1)
expect_match "rec tui: 0.5 s before the peak peak_fn holds less ($l)" "$l" '^ +1 +[0-9.]+ MiB 100.0% .* [1-9][0-9] peak_fn'
keys End
check "rec tui: End jumps to the end of the run" "cursor 2."
end_t=$("$MPROF" --top=flat --at end "$TMP/rec" | sed -n 's/^# the heap at \([0-9.]*\) s.*/\1/p')
expect_match "rec tui: End's title is the moment --at end names ($end_t s)" "$(screen | head -1)" "AT $end_t s \(END\)"
expect_match "rec tui: End's status line agrees" "$(screen)" "at $end_t s, 4\.00 KiB in use: the end of the run \(bucket ${end_t%??}\b"
expect_match "rec tui: End: the heap after the fall" "$(screen | grep -F ' after_fn')" "4.00 KiB"
# The bucket before the end's holds no event (the program idles): its moment is its start, not an earlier event's.
prev=$(awk -v t="$end_t" 'BEGIN { printf "%.1f", int(t * 10 + 1e-9) / 10 - 0.1 }')
keys Left
check "rec tui: an idle bucket's status says nothing went higher in it" "nothing in bucket $prev s went higher"
expect_match "rec tui: ... and its title time is the bucket's start" "$(screen | head -1)" "AT ${prev}00 s"
keys Home
check "rec tui: Home jumps to the start of the run" "cursor 0.0 s"
keys P
check "rec tui: P goes back to the peak" "the run's PEAK"
check "rec tui: P: peak_fn holds all of it again" "9.77 MiB 100.0% 100.0%  9.77 MiB 100.0%      100 peak_fn"
keys '}'
check "rec tui: after the fall: after_fn's 4 KiB" "4.00 KiB 100.0% 100.0%  4.00 KiB 100.0%        1 after_fn"
if screen | grep -F -q ' peak_fn '; then not_ok "rec tui: after the fall peak_fn is gone" "$(screen | head -12)"; else ok "rec tui: after the fall peak_fn is gone"; fi
keys P m '}' d
check "rec tui: d diffs the mark (peak) and the cursor (end)" "-9.77 MiB"
# peak_fn held its blocks at the mark and none at the cursor: GONE; after_fn
# had allocated nothing at the mark: NEW; on the table and the source pane.
check "rec tui: d: a stack that holds nothing any more is GONE" "-100 GONE peak_fn  rec_peak.c:32"
check "rec tui: d: a stack not there at the mark is NEW" "+1 NEW after_fn  rec_peak.c:40"
keys l
check "rec tui: d, l: the source of peak_fn" "Source of peak_fn"
expect_match "rec tui: d, l: peak_fn's malloc line GONE, its fall" "$(screen | grep -F 'malloc(PEAK_SIZE)')" \
	"^-9\.77 MiB -9\.77 MiB +32> GONE "
expect_match "rec tui: d, l: after_fn's malloc line NEW" "$(screen | grep -F 'malloc(4096)')" "^\+4\.00 KiB \+4\.00 KiB +40  NEW "
keys Escape
check "rec tui: d, l: back to the table" "Main table"
keys d L
check "rec tui: L: made between the peak and the end, alive at the end" "4.00 KiB 100.0% 100.0%  4.00 KiB 100.0%        1 after_fn"
expect_match "rec tui: L shows allocations (alloc bytes)" "$(screen | sed -n 1p)" " alloc bytes "
keys L
check "rec tui: L again closes it" "back to the heap at the cursor"
expect_match "rec tui: closing L restores the heap's metric (in use)" "$(screen | sed -n 1p)" " in use bytes "
keys T
check "rec tui: T: temporaries with the lifetime histogram" "lifetimes: <1ms:"
keys T
check "rec tui: T again closes it" "back to the heap at the cursor"
expect_match "rec tui: closing T restores the heap's metric (in use)" "$(screen | sed -n 1p)" " in use bytes "
keys T
check "rec tui: T opens again" "lifetimes: <1ms:"
# A diff from the start (nothing allocated yet) to the peak: peak_fn's stack
# did not exist at the mark, so its row is marked NEW, as in a live diff.
keys T '{' '{' '{' '{' m P d
check "rec tui: d from the start to the peak: peak_fn's growth" "+9.77 MiB"
check "rec tui: d: a stack not there at the mark is NEW" "NEW peak_fn"
keys Enter
check "rec tui: d: callers/callees mark NEW too" "NEW peak_fn  rec_peak.c:32  (flat +9.77 MiB)"
check "rec tui: d: and the callers" "    NEW main"
keys Escape t '*'
check "rec tui: d: the tree marks NEW" "NEW peak_fn"
keys Escape d
keys q
n=0
while screen | grep -F -q "Main table" && [ "$n" -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
if screen | grep -F -q "Main table"; then not_ok "rec tui: q leaves" "$(screen | head -5)"; else ok "rec tui: q leaves"; fi

# A run longer than the strip is wide: the whole run still shows, a column
# holding several buckets, and End puts the cursor in the last column.
cc -g -O1 -o "$TMP/leaker" "$TOP/test/progs/live_leaker.c" || not_ok "build live_leaker"
MPROF_RECORD=$TMP/long LD_PRELOAD=$HOOK "$TMP/leaker" "$TMP/never" 6 > /dev/null
tm resize-window -t t -x 50
keys clear Enter "'$MPROF' '$TMP/long'" Enter
check "long run: opens" "Main table"
expect_match "long run: the strip says how much a column holds" "$(screen | sed -n 6p)" \
	"^ 0\.0 s \.\. [6-9]\.[0-9] s \(0\.[2-9] s a column\)"
keys End
check "long run: End" "cursor 6."
expect_eq "long run: the last column is within the 50 columns" \
	"$(screen | sed -n 5p | awk '{ n = length($0); print (n > 20 && n <= 50) }')" 1
expect_match "long run: End puts the cursor in the last column" "$(screen | sed -n 5p)" "\\^ *$"
keys Home
check "long run: Home" "cursor 0.0 s"
expect_match "long run: Home puts the cursor in the first column" "$(screen | sed -n 5p)" "^ \\^"
keys q

# The program rebuilt since the run: the first status line says which
# module has no symbols and why (its frames show module + offset).
cc -g -O1 -fno-omit-frame-pointer -o "$TMP/moved" "$TOP/test/progs/rec_peak.c" || not_ok "build moved"
MPROF_RECORD=$TMP/moved.rec LD_PRELOAD=$HOOK "$TMP/moved"
cc -g -O1 -fno-omit-frame-pointer -Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567 \
	-o "$TMP/moved" "$TOP/test/progs/rec_peak.c" || not_ok "rebuild moved"
tm resize-window -t t -x 200
keys clear Enter "'$MPROF' '$TMP/moved.rec'" Enter
check "rebuilt program: the status line says why names are missing" \
	"1 module without symbols: $TMP/moved (build-id differs) (their frames show module+offset)"
check "rebuilt program: its block under module + offset" "100 moved+0x"
keys q

# A process killed with SIGKILL: the status line says first where the
# recording ends and why.
cc -g -O1 -fno-omit-frame-pointer -o "$TMP/kill" "$TOP/test/progs/rec_kill.c" || not_ok "build rec_kill"
MPROF_RECORD=$TMP/killed.rec LD_PRELOAD=$HOOK "$TMP/kill" "$TMP/kill.count" &
pid=$!
sleep 0.5
kill -KILL "$pid"
wait "$pid" 2> /dev/null
keys clear Enter "'$MPROF' '$TMP/killed.rec'" Enter
check "killed process: the status line says the recording was cut where the process ended without closing it" \
	"Recording ends at 0."
check "killed process: ... and why" "cut short: the process ended without closing it (killed: SIGKILL, the OOM killer)"
keys q
exit 0
