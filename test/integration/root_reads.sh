#!/bin/sh
# root_reads.sh - root reads what runs as another user: a process of uid
# 65534 under the hook (launched with LD_PRELOAD, and one injected by
# root) is listed, snapshotted with its exact leak and followed by root;
# a segment another user planted under a process that is not theirs stays
# refused (live_attach.sh plants one under root's own process).
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null 2>&1; then
	echo "ok - # SKIP root reading another user's process: needs root and setpriv"
	exit 0
fi
hook_prog wait "$TOP/test/progs/hook_wait.c"
# Everything uid 65534 runs or loads is in $TMP: the tree may be unreadable to it.
cp "$HOOK" "$TMP/libmprof.so"
chmod 755 "$TMP" "$TMP/wait" "$TMP/libmprof.so"
AS_NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
if ! $AS_NOBODY test -x "$TMP/wait"; then
	echo "ok - # SKIP uid 65534 cannot run programs from $TMP"
	exit 0
fi

# --- launched by nobody under the hook ---------------------------------------------
$AS_NOBODY env LD_PRELOAD="$TMP/libmprof.so" "$TMP/wait" "$TMP/stop1" > "$TMP/w1.out" 2>&1 &
W1=$!
PID=$(pid_from "$TMP/w1.out")
expect_eq "nobody's process: its segment is nobody's" "$(stat -c %u "/dev/shm/mprof-$PID")" 65534
run_status "$MPROF" --snapshot "$PID" -o "$TMP/s1.pro"
expect_eq "root snapshots nobody's process: exit 0" "$STATUS" 0
expect_eq "... the snapshot holds its exact leak (3 x 1000 B in wait_leak)" "$(sumf "$TMP/s1.pro" wait_leak flat)" "3000 3"
run_status "$MPROF" --attach
expect_match "root's process list shows nobody's process" "$OUT" "^ *$PID  .*$TMP/wait"
run_status "$MPROF" --info --attach "$PID"
expect_eq "root's --info --attach reads it: exit 0" "$STATUS" 0
touch "$TMP/stop1"
wait $W1

# --- started by nobody without the hook, injected by root -------------------------------
$AS_NOBODY "$TMP/wait" "$TMP/stop2" > "$TMP/w2.out" 2>&1 &
W2=$!
PID=$(pid_from "$TMP/w2.out")
run_status env MPROF_LIB="$TMP/libmprof.so" "$MPROF" --inject "$PID"
expect_eq "root injects into nobody's process: exit 0" "$STATUS $ERR" "0 "
run_status "$MPROF" --snapshot "$PID" -o "$TMP/s2.pro"
expect_eq "root snapshots what it injected: exit 0" "$STATUS $ERR" "0 "
run_status "$MPROF" --window 1 -o "$TMP/win.pro" "$PID"
expect_eq "root opens a window on it: exit 0" "$STATUS" 0
touch "$TMP/stop2"
wait $W2

# --- planted: nobody's file under a process of uid 65533 ---------------------------------
setpriv --reuid=65533 --regid=65533 --clear-groups sleep 30 &
SPID=$!
sleep 0.1
head -c 4096 /dev/zero > "/dev/shm/mprof-$SPID"   # any content: the owner is checked first
chown 65534 "/dev/shm/mprof-$SPID"
chmod 600 "/dev/shm/mprof-$SPID"
run_status "$MPROF" --snapshot "$SPID" -o "$TMP/s3.pro"
expect_match "a segment planted by another user under a third user's process: refused" "$STATUS $ERR" \
	"^2 mprof-tui: /dev/shm/mprof-$SPID: owned by uid 65534, not by you \(uid 0\) nor by the process it names: refused$"
expect_eq "... nothing written" "$(ls "$TMP/s3.pro" 2> /dev/null)" ""
rm -f "/dev/shm/mprof-$SPID"
kill $SPID
wait $SPID 2> /dev/null
exit 0
