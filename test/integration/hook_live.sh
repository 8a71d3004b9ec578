#!/bin/sh
# hook_live.sh - the segment of a running hooked process: mode, snapshot,
# SIGUSR2 dumps, a signal handler that allocates, removal at exit, exec
# following, a segment that cannot be created, corrupt segments.
. "$(dirname "$0")/../lib.sh"
HOOK=$TOP/libmprof.so
P=$TOP/test/progs
CFL="-g -O1 -fno-omit-frame-pointer"

cc $CFL -o "$TMP/wait" "$P/hook_wait.c" || { not_ok "build hook_wait"; exit 0; }

# A live process: it leaks 3 x 1000 B, raises SIGUSR2 (dump PATH.1), leaks
# 5 x 1000 B more, runs 200,000 malloc/free pairs with a SIGALRM handler
# that allocates every 200 us, then waits for $TMP/go.
MPROF_OUT=$TMP/w.pro LD_PRELOAD=$HOOK "$TMP/wait" "$TMP/go" usr2 > "$TMP/w.out" 2> "$TMP/w.err" &
bg=$!
pid=$(pid_from "$TMP/w.out")
if [ -z "$pid" ]; then
	not_ok "hook live: process did not start (or deadlocked in its signal handler)"
	kill "$bg" 2> /dev/null
	exit 0
fi
ok "hook live: signal handler that allocates did not deadlock"
expect_eq "hook live: segment mode 0600" "$(stat -c %a /dev/shm/mprof-$pid)" 600
run_status "$MPROF" --snapshot "$pid" -o "$TMP/snap.pro"
expect_eq "hook live: --snapshot exit status" "$STATUS" 0
expect_eq "hook live: snapshot has the live leak" "$(sumf "$TMP/snap.pro" wait_leak flat)" "8000 8"
expect_eq "hook live: a new file: nothing on stderr" "$ERR" ""
run_status "$MPROF" --snapshot "$pid" -o "$TMP/snap.pro"
expect_eq "hook live: --snapshot over an existing file says so" "$STATUS:$ERR" \
	"0:mprof-tui: note: $TMP/snap.pro existed and was replaced"
expect_eq "hook live: SIGUSR2 dump PATH.1 has the leak at that time" "$(sumf "$TMP/w.pro.1" wait_leak flat)" "3000 3"
cp /dev/shm/mprof-$pid "$TMP/seg.copy"
# Nobody followed it (a snapshot reads the counters only): the 200,000
# pairs and the leaks wrote no event to the ring (segment.h's ring_beat_ns).
cat > "$TMP/off.c" << 'EOF'
#include <stddef.h>
#include <stdio.h>
#include "attach/shared/segment.h"
int main(void)
{
	printf("%zu %zu\n", offsetof(seg_header, ring_head), offsetof(seg_header, counter_lanes));
	return 0;
}
EOF
if cc -I"$TOP" -o "$TMP/off" "$TMP/off.c"; then
	set -- $("$TMP/off")
	expect_eq "hook live: no follower, no recorder: no event went to the ring" \
		"$(od -An -t u8 -j "$1" -N 8 "$TMP/seg.copy" | tr -d ' ')" 0
	expect_match "hook live: (the offset read is the header's: its lane count is there)" \
		"$(od -An -t u8 -j "$2" -N 8 "$TMP/seg.copy" | tr -d ' ')" '^[1-9][0-9]*$'
else
	not_ok "hook live: build the offset reader"
fi
touch "$TMP/go"
wait "$bg"
expect_eq "hook live: exit status (the handler ran)" "$?" 0
expect_eq "hook live: segment removed at exit" "$(ls /dev/shm/mprof-$pid 2> /dev/null)" ""
expect_eq "hook live: exit dump" "$(sumf "$TMP/w.pro" wait_leak flat)" "8000 8"
expect_eq "hook live: nothing on stderr" "$(cat "$TMP/w.err")" ""

# Bad input: no segment, not a number, a segment that is garbage or lies.
run_status "$MPROF" --snapshot 2147483000 -o "$TMP/x.pro"
expect_eq "snapshot: no such process: exit 2, said" "$STATUS $ERR" "2 mprof-tui: no process 2147483000"
run_status "$MPROF" --snapshot abc -o "$TMP/x.pro"
expect_eq "snapshot: bad pid exits 2" "$STATUS" 2
fake=/dev/shm/mprof-2147483001
# The segments made here are mode 0600 as the hook makes them (umask 077),
# so that what is checked is their content; then the trust checks.
umask 077
head -c 100000 /dev/urandom > $fake
run_status "$MPROF" --snapshot 2147483001 -o "$TMP/x.pro"
expect_eq "snapshot: garbage segment exits 2" "$STATUS" 2
expect_match "snapshot: garbage segment error" "$ERR" "offset 0: not an mprof segment"
head -c 8192 "$TMP/seg.copy" > $fake
run_status "$MPROF" --snapshot 2147483001 -o "$TMP/x.pro"
expect_eq "snapshot: truncated segment exits 2" "$STATUS" 2
expect_match "snapshot: truncated segment error" "$ERR" "segment claims [0-9]+ bytes, 8192 mapped"
# A header that claims a size that fits but whose stack region lies outside.
cp "$TMP/seg.copy" $fake
printf '\377\377\377\377\377\377\377\000' | dd of=$fake bs=1 seek=$((8 + 4 + 4 + 8 + 8 + 8 + 8 + 4 * 4 + 512)) conv=notrunc 2> /dev/null
run_status "$MPROF" --snapshot 2147483001 -o "$TMP/x.pro"
expect_eq "snapshot: region outside the file exits 2" "$STATUS" 2
expect_match "snapshot: region outside the file error" "$ERR" "stacks region out of bounds"
# A stack whose frames lie past the frame table is skipped, not followed.
cp "$TMP/seg.copy" $fake
run_status "$MPROF" --snapshot 2147483001 -o "$TMP/copy.pro"
expect_eq "snapshot: a copied segment reads" "$STATUS" 0
expect_eq "snapshot: copied segment numbers" "$(sumf "$TMP/copy.pro" wait_leak flat)" "8000 8"
chmod 644 $fake
run_status "$MPROF" --snapshot 2147483001 -o "$TMP/x.pro"
expect_eq "snapshot: a segment others may write is refused" "$STATUS:$ERR" \
	"2:mprof-tui: $fake: mode 0644, not 0600: refused (others could change what it says)"
rm -f $fake
ln -s "$TMP/seg.copy" $fake
run_status "$MPROF" --snapshot 2147483001 -o "$TMP/x.pro"
expect_match "snapshot: a symlink is not followed" "$STATUS:$ERR" "^2:mprof-tui: $fake: "
rm -f $fake
umask 022

# A segment that cannot be created: one line on stderr, program unchanged.
cc $CFL -o "$TMP/leaks" "$P/hook_leaks.c"
MPROF_STACKS=1073741824 LD_PRELOAD=$HOOK "$TMP/leaks" > "$TMP/nos.out" 2> "$TMP/nos.err"
expect_eq "hook: no segment, exit status unchanged" "$?" 7
expect_eq "hook: no segment, output unchanged" "$(cat "$TMP/nos.out")" "hook_leaks: 29 blocks kept"
expect_eq "hook: no segment, one line on stderr" "$(wc -l < "$TMP/nos.err")" 1
expect_match "hook: no segment, says why" "$(cat "$TMP/nos.err")" "^mprof: no room for /dev/shm/mprof-[0-9]+: not recording$"

# exec: children are followed by default (MPROF_FORKS=1: each dumps);
# MPROF_FOLLOW=0 strips the hook.
# (The trailing "true" keeps sh from exec-ing the last command itself.)
LD_PRELOAD=$HOOK MPROF_FORKS=1 MPROF_OUT="$TMP/f.%p.pro" sh -c "$TMP/leaks > /dev/null; $TMP/leaks > /dev/null; true"
expect_eq "hook: children followed (%p names each dump)" "$(ls "$TMP"/f.*.pro | wc -l)" 3
# Without MPROF_FORKS=1 a child records (live) but leaves no dump: the
# process started writes MPROF_OUT, and so does what it execs into (a
# wrapper's last exec), not the helpers it ran before.
LD_PRELOAD=$HOOK MPROF_OUT="$TMP/w.pro" sh -c "dirname /a/b > /dev/null; readlink -f . > /dev/null; exec $TMP/leaks > /dev/null"
expect_eq "hook: a wrapper's helpers leave no dump" "$(ls "$TMP"/w*.pro | tr '\n' ' ')" "$TMP/w.pro "
"$MPROF" --top=flat --limit 3 "$TMP/w.pro" > "$TMP/w.top" 2> /dev/null
expect_match "hook: the dump is the program the wrapper execs" "$(cat "$TMP/w.top")" "leak_malloc"
LD_PRELOAD=$HOOK MPROF_OUT="$TMP/ch.pro" sh -c "$TMP/leaks > /dev/null; true"
expect_eq "hook: a child's dump needs MPROF_FORKS=1" "$(ls "$TMP"/ch*.pro | tr '\n' ' ')" "$TMP/ch.pro "
LD_PRELOAD=$HOOK MPROF_FOLLOW=0 MPROF_OUT="$TMP/n.%p.pro" sh -c "$TMP/leaks > /dev/null; $TMP/leaks > /dev/null; true"
expect_eq "hook: MPROF_FOLLOW=0, only the first process" "$(ls "$TMP"/n.*.pro | wc -l)" 1
expect_eq "hook: MPROF_FOLLOW=0 strips LD_PRELOAD for children" \
	"$(LD_PRELOAD=$HOOK MPROF_FOLLOW=0 sh -c 'env' | grep -c libmprof)" 0

# Blocks freed by a signal handler while the thread is inside the hook are
# still taken out of the live table: in use at exit is exact.
cc $CFL -o "$TMP/sig" "$P/stress_signals.c"
MPROF_OUT=$TMP/sig.pro LD_PRELOAD=$HOOK "$TMP/sig" 300000 2> "$TMP/sig.err"
expect_eq "hook: signal handler frees inside the hook, exit status" "$?" 0
expect_eq "hook: blocks a signal handler freed are not in use" "$(sumf "$TMP/sig.pro" pool_alloc flat)" "$(cat "$TMP/sig.err")"

# A follower that stops beating (segment.h's ring_beat_ns) for 3 s: the hook
# writes no events from 2 s on; at its next drain the follower sees its gap
# and takes the counters again, so its timeline is the counters' heap, not
# short of what was allocated meanwhile (test/tools/follow_gap.c).
cc $CFL -o "$TMP/leaker" "$P/live_leaker.c"
GAP=$TOP/${B:-build}/tools/follow_gap
LD_PRELOAD=$HOOK "$TMP/leaker" "$TMP/leaker.stop" 60 > "$TMP/leaker.out" 2>&1 &
lpid=$!
n=0
while [ ! -s "$TMP/leaker.out" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
set -- $("$GAP" "$lpid" 3)
touch "$TMP/leaker.stop"
wait "$lpid"
expect_match "follower gap: follow_gap says before, after and timeline" "$*" "^before [0-9]+ after [0-9]+ timeline -?[0-9]+$"
[ -n "$2" ] && [ -n "$4" ] && [ "$4" -gt "$2" ] && ok "follower gap: the heap grew while the follower slept" || not_ok "follower gap: the heap grew while the follower slept" "$*"
expect_eq "follower gap: the timeline is the counters' heap after the gap" "$6" "$4"
