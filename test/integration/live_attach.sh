#!/bin/sh
# live_attach.sh - mprof-tui --attach PID, --attach (the list) and -- CMD on
# real processes under libmprof.so, driven in tmux (isolated server, -L;
# bounded polling of capture-pane). The target leaks 1000 B every 10 ms in
# leak_here(): the diff of two snapshots must show it on top, grown by whole blocks.
# Bad processes and segments: one line, exit status 2, no crash.
. "$(dirname "$0")/../lib.sh"
hook_prog leaker "$TOP/test/progs/live_leaker.c"
PIDS=""
SOCK=mprof-live-$$
SOCKDIR=${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)
cleanup() {
	type tmux_down > /dev/null 2>&1 && tmux_down
	rm -f "$SOCKDIR/$SOCK"
	for p in $PIDS; do kill "$p" 2> /dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

# leaker NAME SECONDS: starts the leaker under the hook; sets LPID.
leaker() {
	LD_PRELOAD=$HOOK "$TMP/leaker" "$TMP/$1.go" "$2" > "$TMP/$1.out" 2>&1 &
	PIDS="$PIDS $!"
	LPID=$!
	n=0
	while [ ! -s "$TMP/$1.out" ] || [ ! -e /dev/shm/mprof-$LPID ]; do
		n=$((n + 1))
		[ $n -gt 200 ] && break
		sleep 0.02
	done
}

# --- errors, before any terminal is needed ------------------------------------
run_status "$MPROF" --attach 2147483000
expect_eq "attach: no such pid exits 2" "$STATUS" 2
expect_eq "attach: no such pid, one line" "$ERR" "mprof-tui: no process 2147483000"
sleep 60 &
SPID=$!
PIDS="$PIDS $SPID"
# Until the exec, the child is still called sh: wait for the name.
n=0
while [ "$(cat /proc/$SPID/comm 2> /dev/null)" != sleep ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
run_status "$MPROF" --attach $SPID
expect_eq "attach: no segment exits 2" "$STATUS" 2
expect_match "attach: no segment says how to start it with LD_PRELOAD" "$ERR" \
	"^mprof-tui: /dev/shm/mprof-$SPID: no segment: process $SPID \(sleep\) does not run under the hook; start it as LD_PRELOAD=/.*/libmprof\.so sleep, or load the hook into it: mprof-tui --inject $SPID$"
expect_eq "attach: no segment, one line" "$(printf '%s\n' "$ERR" | wc -l)" 1
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null 2>&1; then
	run_status setpriv --reuid=65534 --regid=65534 --clear-groups "$MPROF" --attach $SPID
	expect_eq "attach: another user's process exits 2" "$STATUS" 2
	expect_match "attach: another user's process" "$ERR" "^mprof-tui: process $SPID \(sleep\) belongs to root \(uid 0\), not to you: refused$"
else
	echo "ok - # SKIP another user's process: needs root and setpriv"
fi

# A real segment to corrupt, copied from a running leaker.
leaker seg 30
cp /dev/shm/mprof-$LPID "$TMP/seg.copy"
kill $LPID
wait $LPID 2> /dev/null
rm -f /dev/shm/mprof-$LPID   # killed by a signal: the hook had no chance to
FAKE=/dev/shm/mprof-$SPID
# corrupt NAME REGEX: the segment under the sleep's pid is refused, exit 2.
corrupt() {
	run_status "$MPROF" --attach $SPID
	expect_eq "corrupt segment ($1): exit status 2" "$STATUS" 2
	expect_match "corrupt segment ($1): message" "$ERR" "^mprof-tui: $FAKE: $2"
}
head -c 100000 /dev/urandom > $FAKE && chmod 600 $FAKE
corrupt "bad magic" "offset 0: not an mprof segment$"
cp "$TMP/seg.copy" $FAKE && chmod 600 $FAKE
printf '\007\000\000\000' | dd of=$FAKE bs=1 seek=8 conv=notrunc 2> /dev/null
corrupt "another version" "offset 8: segment version 7 .*this mprof reads version [0-9]+$"
cp "$TMP/seg.copy" $FAKE && chmod 600 $FAKE
# off[SEG_R_STACKS] lies after magic..cmdline (8+4+4+8+8+8+8+4*4+512 bytes).
printf '\377\377\377\377\377\377\377\000' | dd of=$FAKE bs=1 seek=576 conv=notrunc 2> /dev/null
corrupt "offset out of range" "offset 576: stacks region out of bounds$"
head -c 8192 "$TMP/seg.copy" > $FAKE && chmod 600 $FAKE
corrupt "truncated" "offset 16: segment claims [0-9]+ bytes, 8192 mapped$"
head -c 100 "$TMP/seg.copy" > $FAKE && chmod 600 $FAKE
corrupt "shorter than a header" "offset 0: 100 bytes, too short for a segment header$"
cp "$TMP/seg.copy" $FAKE && chmod 644 $FAKE
corrupt "mode 0644" "mode 0644, not 0600: refused"
chmod 600 $FAKE
corrupt "another process's segment" "offset 24: segment of pid $LPID, not $SPID$"
if [ "$(id -u)" = 0 ]; then
	chown 65534 $FAKE
	corrupt "another owner" "owned by uid 65534, not by you \(uid 0\) nor by the process it names: refused$"
fi
# A segment its hook is still making (the magic is written last, as the
# hook does: every other byte first) is waited for, not refused: here the
# magic comes 0.3 s later. (Writing the whole file over zeros raced: a
# reader could see the magic before the header behind it.)
python3 -c 'import struct, sys; d = bytearray(open(sys.argv[1], "rb").read()); d[24:32] = struct.pack("<q", int(sys.argv[3])); open(sys.argv[2], "wb").write(d)' \
	"$TMP/seg.copy" "$TMP/seg.young" $SPID
rm -f $FAKE
{ head -c 8 /dev/zero; tail -c +9 "$TMP/seg.young"; } > $FAKE && chmod 600 $FAKE
(sleep 0.3; dd if="$TMP/seg.young" of=$FAKE bs=8 count=1 conv=notrunc status=none) &
run_status "$MPROF" --snapshot $SPID -o "$TMP/young.pro"
wait $!
# (the sleep is no hooked process: the snapshot says it holds what was left)
expect_match "a segment still being made is waited for, then read" "$STATUS $ERR" \
	"^0 mprof-tui: note: process $SPID .*; $TMP/young.pro holds what its hook left$"
run_status "$MPROF" --top=flat "$TMP/young.pro"
expect_eq "... its snapshot opens" "$STATUS" 0
head -c 100 /dev/zero > $FAKE
run_status "$MPROF" --attach $SPID
expect_match "one never made is refused after the wait" "$STATUS $ERR" "^2 mprof-tui: $FAKE: offset 0: 100 bytes, too short for a segment header$"
rm -f $FAKE
run_status "$MPROF" --attach $SPID --interval 5
expect_eq "attach: --interval below 10 ms exits 2" "$STATUS" 2

# --- the list -------------------------------------------------------------------
leaker a 30
A=$LPID
leaker b 30
B=$LPID
sh -c 'exit 0' &
DEAD=$!
wait $DEAD
cp "$TMP/seg.copy" /dev/shm/mprof-$DEAD && chmod 600 /dev/shm/mprof-$DEAD
run_status "$MPROF" --attach
expect_eq "list: exit status 0" "$STATUS" 0
expect_match "list: header" "$(printf '%s\n' "$OUT" | head -1)" "^ +PID +STARTED +IN USE +COMMAND$"
expect_match "list: first hooked process" "$OUT" "^ *$A +20[0-9-]+ [0-9:]+ +[0-9.]+ [KM]?i?B +$TMP/leaker $TMP/a.go 30$"
expect_match "list: second hooked process" "$OUT" "^ *$B +20[0-9-]+ [0-9:]+ +[0-9.]+ [KM]?i?B +$TMP/leaker $TMP/b.go 30$"
expect_eq "list: the stale segment is not listed" "$(printf '%s\n' "$OUT" | grep -c "^ *$DEAD ")" 0
expect_match "list: the stale segment is removed, and said so" "$ERR" "removed /dev/shm/mprof-$DEAD: process $DEAD is gone"
expect_eq "list: the stale segment file is gone" "$(ls /dev/shm/mprof-$DEAD 2> /dev/null)" ""
touch "$TMP/a.go" "$TMP/b.go"

# --- the live screens in tmux ------------------------------------------------------
. "$TOP/test/tmux.sh"
start() { tmux_start 150 30 "$TMP"; }
# to_bytes "+196 KiB": the value in bytes.
to_bytes() {
	echo "$1" | awk '{ v = $1 + 0; u = $2
		if (u == "KiB") v *= 1024; else if (u == "MiB") v *= 1048576; else if (u == "GiB") v *= 1073741824
		printf "%d\n", v }'
}
# growth_check WHAT: the diff on screen: leak_here on top, grown by whole
# 1000-B blocks (its bytes = its objects x 1000, to the 3 digits shown);
# the rate itself is a figure of test/bench/inject_rate.sh.
growth_check() {
	check "$1: diff of #1 and #2 opens" "DIFF #1 -> #2"
	row=$(screen | grep -E '^ +1 ' | head -1)
	expect_match "$1: leak_here is the top row of the diff" "$row" "^ +1 +\+[0-9.]+ [KM]iB .* \+[0-9]+ leak_here  live_leaker\.c:[0-9]+$"
	got=$(to_bytes "$(echo "$row" | awk '{ print substr($2, 2), $3 }')")
	objs=$(echo "$row" | sed -n 's/.* +\([0-9][0-9]*\) leak_here .*/\1/p')
	if [ -n "$objs" ] && awk -v g="$got" -v o="$objs" 'BEGIN { w = o * 1000; d = g - w; if (d < 0) d = -d; exit !(o > 0 && d <= w * 0.005 + 5) }'; then
		ok "$1: growth $got B = $objs blocks of 1000 B"
	else
		not_ok "$1: growth is whole 1000-B blocks" "got $got B for '$objs' objects" "$(screen | head -8)"
	fi
	expect_match "$1: the status line explains the diff" "$(screen | sed -n 29p)" "^growth #1 -> #2: \+[0-9.]+ [KM]iB in use; largest first, NEW = not there at #1, GONE = none left at #2; d closes"
}

# --attach PID
leaker t 300   # ended by touching t.go: a lifetime the steps before cannot outlast on a busy machine
T=$LPID
start
keys "'$MPROF' --attach $T --interval 200; echo EXIT=\$?" Enter
check "attach: the table opens on the live process" "Main table"
check "attach: the leaking function shows" "leak_here"
expect_match "attach: title names the pid, running" "$(screen | sed -n 1p)" "pid $T running +in use bytes .*granularity function +$TMP/leaker"
expect_match "attach: the key bar lists live mode's keys" "$(screen | sed -n 30p)" "^F1Help mSnap dDiff pPause wWrite zZoom EnterCallers"
expect_match "attach: timeline strip with heap and rss numbers" "$(screen | sed -n 3p)" \
	"^ heap [0-9.]+ [KM]?i?B \(peak [0-9.]+ [KM]?i?B\)  rss [0-9.]+ [KM]?i?B \(peak [0-9.]+ [KM]?i?B\)  fit 100 ms/col"
expect_match "attach: heap sparkline" "$(screen | sed -n 4p)" "^ heap .*[▁▂▃▄▅▆▇█]"
# RSS is read at each refresh: the first screen may precede the first one.
n=0
while [ "$n" -lt 100 ] && ! screen | sed -n 5p | grep -q "^ rss  .*[▁▂▃▄▅▆▇█]"; do
	sleep 0.1
	n=$((n + 1))
done
expect_match "attach: rss sparkline" "$(screen | sed -n 5p)" "^ rss  .*[▁▂▃▄▅▆▇█]"
keys d
check "d before any snapshot says what to do" "no snapshot yet: m takes one"
keys m
check "m takes snapshot #1" "snapshot #1 at"
sleep 2
keys m
check "m takes snapshot #2" "snapshot #2 at"
expect_match "the strip lists both snapshots" "$(screen | sed -n 3p)" "snaps #1 \+[0-9.]+s .* #2 \+[0-9.]+s"
# The columns of the two snapshots are marked (reverse video) on the heap
# curve, at least 2 s apart at the strip's ms/col (100 ms while the run fits
# at that). A mark shows once the timeline has reached the snapshot's
# column (the next refresh): polled.
marks() {
	ms=$(screen | sed -n 3p | sed -n 's/.* \([0-9][0-9]*\) ms\/col.*/\1/p')
	set -- $(rev_cols 4)
	if [ $# -eq 2 ] && [ -n "$ms" ] && [ $((($2 - $1 + 1) * ms)) -ge 2000 ] && [ $((($2 - $1) * ms)) -le 12000 ]; then
		echo "2 apart"
	else
		echo "$* ($ms ms/col)"
	fi
}
n=0
while marked=$(marks) && [ "$marked" != "2 apart" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
expect_eq "the strip marks the two snapshots' columns on the heap curve" "$marked" "2 apart"
keys d
check "d asks which two, first and latest by default" "diff FROM TO, snapshot numbers or now [1 2]:"
keys Enter
growth_check "attach"
keys Enter
check "Enter on the growth row: its callers" "Callers"
expect_match "callers of leak_here: main, with the growth" "$(screen)" "\+[0-9.]+ [KM]iB .* main"
keys Escape
check "back to the diff table" "Main table"
tm resize-window -t t -x 80
check "at 80 columns" "Main table"
expect_eq "the window is 80 columns" "$(tm display -p -t t '#{window_width}')" 80
expect_match "at 80 columns the title keeps the pid, the state and the diff" "$(screen | sed -n 1p)" \
	"^ mprof  pid $T running  DIFF "
keys p
check "p pauses" "paused: the screen holds still"
expect_match "title says PAUSED (at 80 columns)" "$(screen | sed -n 1p)" "^ mprof  pid $T PAUSED"
tm resize-window -t t -y 12
check "at 12 rows the pause message stays (a resize is no answer to it)" "paused: the screen holds still"
keys k
check "at 12 rows the status line says the timeline is hidden" "timeline hidden (< 14x40)"
tm resize-window -t t -x 150 -y 30
keys p
check "p resumes" "resumed"
keys d
check "d closes the diff" "diff closed: the live profile again"
touch "$TMP/t.go"
check "the process exits: the screen says so" "final state kept" 100
expect_match "title says EXITED" "$(screen | sed -n 1p)" "pid $T EXITED"
keys t
check "after the exit the tree still works" "Call tree"
keys Escape w
check "w asks where to write" "write now (native) to [mprof-$T-now.pro]"
keys Enter
check "w writes the final state" "wrote mprof-$T-now.pro (native"
blocks=$(sed -n 's/^leaked \([0-9]*\) blocks$/\1/p' "$TMP/t.out")
got=$("$MPROF" --top=flat --format=tsv "$TMP/mprof-$T-now.pro" | awk -F '\t' '$5 == "leak_here" { print $1 " " $2 }')
expect_eq "written final state: leak_here holds every leaked block (1000 B each)" "$got" "$((blocks * 1000)) $blocks"
keys m
check "m after the exit still works" "snapshot #3 at"
keys W "s3.pro" Enter
check "W writes skynet v1" "wrote s3.pro (skynet v1"
keys w
keys -l "#1"
keys Enter
check "w #N: snapshot N, to a free name of its own" "wrote mprof-$T-s1.pro (native"
keys w
keys -l "#2 s2.pro"
keys Enter
check "w #N FILE: snapshot N to FILE" "wrote s2.pro (native"
keys w
keys -l "#9 x.pro"
keys Enter
check "w #N: a snapshot not taken is said" "write: no snapshot #9"
expect_match "the v1 file reads back" "$("$MPROF" --top=flat "$TMP/s3.pro" 2>&1 | sed -n 2p)" "^No:"
keys q
check "q quits with status 0" "EXIT=0"

# -- CMD
start
keys "'$MPROF' --interval 200 -- '$TMP/leaker' '$TMP/c.go' 300; echo EXIT=\$?" Enter   # ended by touching c.go
check "-- CMD: the table opens" "leak_here"
out=$(screen | sed -n 's/.*its output goes to \([^ ]*\.out\).*/\1/p' | head -1)
[ -n "$out" ] || out=$(screen | sed -n 's/.*output: \([^ ]*\.out\).*/\1/p' | head -1)
expect_match "-- CMD: the output file is named on the status line" "$out" "^$TMP/mprof-leaker-.*\.out$"
cpid=$(head -1 "$out" 2> /dev/null)
expect_match "-- CMD: the program's output went to that file" "$cpid" "^[0-9]+$"
expect_match "-- CMD: title names the child" "$(screen | sed -n 1p)" "pid $cpid running +in use bytes .*granularity function +$TMP/leaker"
keys m
check "-- CMD: snapshot #1" "snapshot #1 at"
sleep 2
keys m
check "-- CMD: snapshot #2" "snapshot #2 at"
keys d Enter
growth_check "-- CMD"
keys q
check "-- CMD: q in the diff closes it (back, not quit)" "diff closed"
keys d Enter
check "-- CMD: the diff opens again" "DIFF"
touch "$TMP/c.go"
check "-- CMD: the program's exit shows with its status" "EXITED (status 0)" 100
keys d
check "-- CMD: the diff still closes after the exit" "diff closed"
keys q
check "-- CMD: q quits" "EXIT=0"
expect_match "-- CMD: leaving says where the output is" "$(screen)" "ended; its output is in $TMP/mprof-leaker-"

# A launch leaves no empty output file: one that wrote nothing says so.
mkdir "$TMP/quiet"
keys clear Enter
keys "TMPDIR='$TMP/quiet' '$MPROF' --interval 200 -- sleep 1; echo EXIT=\$?" Enter
check "-- CMD, a silent program: it ends" "EXITED (status 0)" 100
keys q
check "-- CMD, a silent program: q quits" "EXIT=0"
expect_match "-- CMD, a silent program: says it wrote no output" "$(screen)" "sleep \(pid [0-9]+\) ended; it wrote no output"
expect_eq "-- CMD, a silent program: no file left in TMPDIR" "$(ls -A "$TMP/quiet")" ""
keys clear Enter
keys "TMPDIR='$TMP/quiet' '$MPROF' -- '$TMP/no-such-program'; echo EXIT=\$?" Enter
check "-- CMD, a program that cannot run: exit 2" "EXIT=2"
expect_eq "-- CMD, a program that cannot run: no file left in TMPDIR" "$(ls -A "$TMP/quiet")" ""

# Quitting while the program runs asks first: n stays, y stops it (SIGTERM)
# and its segment is removed.
keys clear Enter
keys "'$MPROF' --interval 200 -- '$TMP/leaker' '$TMP/never.go' 300; echo EXIT=\$?" Enter
check "-- CMD, quit early: the table opens" "leak_here"
qpid=$(screen | sed -n 's/.*pid \([0-9][0-9]*\) running.*/\1/p' | head -1)
keys q
check "-- CMD, quit early: q asks before stopping the program" "quit: stop leaker (pid $qpid)? y stop, d detach"
keys x
check "-- CMD, quit early: another key asks again" "(one key, Esc cancels) quit: stop leaker"
keys Escape
check "-- CMD, quit early: Esc cancels" "cancelled"
expect_eq "-- CMD, quit early: Esc left the program running" "$(kill -0 "$qpid" 2> /dev/null && echo alive)" alive
keys q
check "-- CMD, quit early: q asks again" "quit: stop leaker"
keys n
check "-- CMD, quit early: n (one key) stays" "still following"
expect_eq "-- CMD, quit early: n left the program running" "$(kill -0 "$qpid" 2> /dev/null && echo alive)" alive
keys Q
check "-- CMD, quit early: Q asks too" "quit: stop leaker"
keys Enter
check "-- CMD, quit early: Enter (yes) quits" "EXIT=0"
expect_match "-- CMD, quit early: says it stopped the program" "$(screen)" "stopped .*leaker \(pid $qpid\)"
expect_eq "-- CMD, quit early: the program is gone and so is its segment" \
	"$(kill -0 "$qpid" 2> /dev/null && echo alive)$(ls /dev/shm/mprof-$qpid 2> /dev/null)" ""

# d: detach and leave it running; --attach follows it again.
keys clear Enter
keys "'$MPROF' --interval 200 -- '$TMP/leaker' '$TMP/never.go' 300; echo EXIT=\$?" Enter
check "-- CMD, detach: the table opens" "leak_here"
dpid=$(screen | sed -n 's/.*pid \([0-9][0-9]*\) running.*/\1/p' | head -1)
keys q
check "-- CMD, detach: q asks" "quit: stop leaker"
keys d
check "-- CMD, detach: d (one key) quits" "EXIT=0"
expect_match "-- CMD, detach: says it left the program running and how to follow it" "$(screen | tr -d '\n')" \
	"left .*leaker \(pid $dpid\) running under the hook.*--attach $dpid follows it again"
expect_eq "-- CMD, detach: the program still runs, its segment too" \
	"$(kill -0 "$dpid" 2> /dev/null && echo alive) $(ls /dev/shm/mprof-$dpid 2> /dev/null)" "alive /dev/shm/mprof-$dpid"
keys clear Enter
keys "'$MPROF' --attach $dpid --interval 200; echo EXIT=\$?" Enter
check "-- CMD, detach: --attach follows it again" "leak_here"
keys q
check "-- CMD, detach: q leaves an attached process without asking" "EXIT=0"
expect_eq "-- CMD, detach: and it still runs" "$(kill -0 "$dpid" 2> /dev/null && echo alive)" alive
kill -TERM "$dpid" 2> /dev/null
i=0
while kill -0 "$dpid" 2> /dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
expect_eq "-- CMD, detach: SIGTERM ends it and its hook removes the segment" \
	"$(kill -0 "$dpid" 2> /dev/null && echo alive)$(ls /dev/shm/mprof-$dpid 2> /dev/null)" ""
