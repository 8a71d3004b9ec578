#!/bin/sh
# record_faults.sh - recordings (MPROF_RECORD) under faults: a process
# killed with SIGKILL (what the OOM killer sends) loses only its last
# milliseconds, and the reader says the recording ends where the process
# ended without closing it; a recording that fills its disk stays readable
# up to its last whole chunk and says why it was cut short; the recording's
# directory and files are never reached through a symlink, and an existing
# file is never truncated.
. "$(dirname "$0")/../lib.sh"
hook_prog kill "$TOP/test/progs/rec_kill.c"
cc -g -O1 -fno-omit-frame-pointer -o "$TMP/work" "$TOP/test/progs/rec_work.c" || { not_ok "build rec_work"; exit 0; }

# row FUNC [mprof args...]: "bytes objects" of FUNC's flat row (0 0 if none).
row() {
	f=$1
	shift
	"$MPROF" --top=flat --format=tsv "$@" 2> /dev/null |
		awk -F '\t' -v f="$f" '$5 == f { b = $1; o = $2 } END { printf "%d %d\n", b, o }'
}

# expect_kept NAME DIR COUNT_FILE MORE: rec_kill's blocks alive at the end
# of recording DIR are those it counted (COUNT_FILE), at most 20 ms worth
# fewer, at most MORE more (1: a block made before its count was written).
expect_kept() {
	kept=$(tr -d ' ' < "$3")
	alive=$(row keep_fn --at end "$2" | cut -d' ' -f2)
	if [ -n "$kept" ] && [ "$alive" -gt 500 ] && [ "$alive" -le $((kept + $4)) ] && [ "$alive" -ge $((kept - 20)) ]; then
		ok "$1: $alive blocks alive at the end for the $kept kept (at most 20 ms worth missing)"
	else
		not_ok "$1: blocks alive at the end of the recording" "kept $kept, recorded alive $alive"
	fi
}

# count_at_least FILE N: until rec_kill's count in FILE reaches N (60 s at
# most): on a loaded machine its 1 ms sleeps last longer, and a kill on a
# timer alone found too few blocks kept for the check's 500.
count_at_least() {
	i=0
	while [ "$(tr -d ' ' < "$1" 2> /dev/null)" -lt "$2" ] 2> /dev/null || [ ! -s "$1" ]; do
		[ $i -ge 1200 ] && break
		sleep 0.05
		i=$((i + 1))
	done
}

# SIGKILL after T seconds: rec_kill keeps a block about every millisecond
# (never more than one a millisecond) and writes its count after each;
# the blocks alive at the end of the recording are all of them but those
# of the last 20 ms at most (the writer pushes its events to the file
# every 10 ms poll).  Twice, at two moments.
for t in 1.3 2.4; do
	d=$TMP/k$t
	LD_PRELOAD=$HOOK MPROF_RECORD=$d "$TMP/kill" "$d.count" &
	pid=$!
	sleep "$t"
	count_at_least "$d.count" 600
	kill -KILL "$pid"
	wait "$pid" 2> /dev/null
	expect_kept "SIGKILL at $t s" "$d" "$d.count" 1
	run_status "$MPROF" --info "$d"
	expect_eq "SIGKILL at $t s: --info exit status 0" "$STATUS" 0
	expect_match "SIGKILL at $t s: --info says the recording ends where the process ended without closing it" "$OUT" \
		'^ends at [0-9.]+ s, cut short: the process ended without closing it \(killed: SIGKILL, the OOM killer\)'
done

# The same recorded from outside (mprof-tui --record --attach): the
# recorder outlives the process; it closes the recording and says the
# process ended without exiting.  Lost: what the thread had staged.  (A
# late start takes the counters, which already hold the events then
# staged, and reads those events again: up to a slot's worth more, seen
# 2 more of 958; that is the late attach's, not the kill's.)
LD_PRELOAD=$HOOK "$TMP/kill" "$TMP/ka.count" &
pid=$!
for i in $(seq 1 100); do [ -e /dev/shm/mprof-$pid ] && break; sleep 0.02; done
sleep 0.2
"$MPROF" --record "$TMP/ka" --attach "$pid" > /dev/null 2> "$TMP/ka.err" &
rpid=$!
# Killed once the recorder has begun its recording and 600 more blocks are kept.
i=0
while [ -z "$(ls "$TMP/ka" 2> /dev/null)" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
count_at_least "$TMP/ka.count" $(($(tr -d ' ' < "$TMP/ka.count") + 600))
kill -KILL "$pid"
wait "$pid" 2> /dev/null
wait "$rpid"
expect_eq "SIGKILL, --record --attach: the recorder ends with status 0" "$?" 0
expect_kept "SIGKILL, --record --attach" "$TMP/ka" "$TMP/ka.count" 20
expect_match "SIGKILL, --record --attach: --info says the process ended without exiting" \
	"$("$MPROF" --info "$TMP/ka")" '^ends at [0-9.]+ s, cut short: the process ended without exiting \(killed: SIGKILL, the OOM killer\); the recorder outside it closed the recording'

# A recording that fills its disk: a 2 MiB tmpfs of its own (root, in a
# mount namespace of the test's own).  rec_work 3000000 1000 makes 3 M
# allocations of random sizes (about 6 MB of recording) and keeps every
# 1000th: the recording ends with a whole chunk, every allocation in it
# paired as in the program (1 of 1000 alive), and says why it ends.
if [ "$(id -u)" != 0 ]; then
	ok "full disk # SKIP not root: mounting a small tmpfs needs it"
elif ! unshare -m true 2> /dev/null; then
	ok "full disk # SKIP unshare -m is refused here (no mount namespace)"
else
	mkdir "$TMP/full"
	unshare -m sh -c 'mount -t tmpfs -o size=2m mprof-test "$1" || exit 3
		LD_PRELOAD="$2" MPROF_RECORD="$1/r" "$3" 3000000 1000 > "$4/out" 2> "$4/err"
		echo $? > "$4/status"
		cp -r "$1/r" "$4/r"' sh "$TMP/full" "$HOOK" "$TMP/work" "$TMP" 2> "$TMP/mount.err"
	if [ ! -f "$TMP/status" ]; then
		ok "full disk # SKIP no tmpfs could be mounted: $(cat "$TMP/mount.err")"
	else
		expect_eq "full disk: the program's exit status unchanged" "$(cat "$TMP/status")" 0
		expect_eq "full disk: the program's results unchanged" "$(cat "$TMP/out")" \
			"alloc_objs 3000000 alloc_bytes 12314365113 inuse_objs 3000 inuse_bytes 12184703"
		expect_match "full disk: the hook says the recording stopped, where and why" "$(cat "$TMP/err")" \
			'^mprof: recording stopped: .*/r/mprof-[0-9]+\.000001\.rec: offset [0-9]+: write: No space left on device$'
		run_status "$MPROF" --info "$TMP/r"
		expect_eq "full disk: the recording opens" "$STATUS" 0
		expect_match "full disk: --info says it was cut short, and why" "$OUT" \
			'^ends at [0-9.]+ s, cut short: the recorder could not go on: .*: write: No space left on device$'
		a=$(row work_fn --alloc "$TMP/r" | cut -d' ' -f2)
		i=$(row work_fn "$TMP/r" | cut -d' ' -f2)
		if [ "$a" -gt 100000 ] && [ "$a" -lt 3000000 ]; then
			ok "full disk: $a of the 3,000,000 allocations are in the recording"
		else
			not_ok "full disk: allocations in the recording" "got $a"
		fi
		# Every 1000th kept from the first: (a - 1) / 1000 + 1 alive, and
		# the last allocation's free may be past the end.
		want=$(((a - 1) / 1000 + 1))
		if [ "$i" = "$want" ] || [ "$i" = $((want + 1)) ]; then
			ok "full disk: $i blocks alive at the end, as in the program after $a allocations"
		else
			not_ok "full disk: blocks alive at the end" "got $i, want $want (or one more)"
		fi
	fi
fi

# The directory given as a symlink is not followed; a file of the
# recording's name already there (not made by it) is left as it was, and
# the recording does not start.  The program runs on, its output the same.
mkdir "$TMP/real"
ln -s "$TMP/real" "$TMP/link"
LD_PRELOAD=$HOOK MPROF_RECORD=$TMP/link "$TMP/work" 1000 > "$TMP/l.out" 2> "$TMP/l.err"
expect_eq "symlinked directory: the program runs as without the hook" "$(cat "$TMP/l.out")" \
	"$("$TMP/work" 1000)"
expect_match "symlinked directory: not followed, and said" "$(cat "$TMP/l.err")" \
	"^mprof: not recording: $TMP/link: a symbolic link, not followed"
expect_eq "symlinked directory: nothing written through it" "$(ls "$TMP/real" | wc -l)" 0
# A symlink planted where a later file of the recording goes (files of
# one poll each: MPROF_RECORD_SIZE=1), pointing at someone else's file: it
# is not followed and that file is not truncated; the recording stops
# there and says why.  The program runs on.
echo precious > "$TMP/victim"
LD_PRELOAD=$HOOK MPROF_RECORD=$TMP/r2 MPROF_RECORD_SIZE=1 "$TMP/kill" "$TMP/r2.count" 2> "$TMP/v.err" &
pid=$!
for i in $(seq 1 200); do [ -e "$TMP/r2/mprof-$pid.000001.rec" ] && break; sleep 0.01; done
ln -s "$TMP/victim" "$TMP/r2/mprof-$pid.000200.rec"
for i in $(seq 1 600); do grep -q 'recording stopped' "$TMP/v.err" && break; sleep 0.01; done
c1=$(tr -d ' ' < "$TMP/r2.count")
sleep 0.1
c2=$(tr -d ' ' < "$TMP/r2.count")
kill -KILL "$pid"
wait "$pid" 2> /dev/null
expect_eq "a symlink in place of a later file: the file it points to is untouched" "$(cat "$TMP/victim")" precious
expect_eq "a symlink in place of a later file: the recording stops and says why" "$(cat "$TMP/v.err")" \
	"mprof: recording stopped: $TMP/r2/mprof-$pid.000200.rec: cannot create a recording file: File exists (not made by this recording: left alone)"
if [ "$c2" -gt "$c1" ]; then ok "a symlink in place of a later file: the program runs on ($c1, then $c2 blocks)"
else not_ok "a symlink in place of a later file: the program runs on" "$c1 then $c2 blocks"; fi
exit 0
