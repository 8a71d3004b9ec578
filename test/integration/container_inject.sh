#!/bin/sh
# container_inject.sh - mprof-tui --inject HOSTPID into a process in its own
# mount and pid namespace (docker's shape, made with unshare) that was started
# WITHOUT the hook, whose file system has neither the checkout (a tmpfs hides
# it, so the hook's host path does not exist there) nor the host's /tmp or
# /dev/shm.  The hook goes in through a memfd; its segment is made in the
# container's /dev/shm under its pid there and read from the host.
# reinject_target does one step per line it reads: a1 keeps 3 x 1000 B.
. "$(dirname "$0")/../lib.sh"
if [ "$(uname -m)" != x86_64 ]; then
	echo "ok - # SKIP injection is x86_64 only"
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! unshare --mount --pid --fork true 2> /dev/null; then
	echo "ok - # SKIP namespaces: needs root and unshare --mount --pid"
	exit 0
fi
hook_prog rt "$TOP/test/progs/reinject_target.c"

step() { step_do "$TMP/rt.out" "$1"; }

# The program is copied into the container's own /dev/shm before /tmp and
# the checkout are hidden: nothing of the host's is reachable by its path.
mkfifo "$TMP/rt.in"
unshare --mount --pid --fork sh -c "mount -t tmpfs tmpfs /dev/shm && cp '$TMP/rt' /dev/shm/rt &&
	mount -t tmpfs tmpfs /tmp && mount -t tmpfs tmpfs '$TOP' && exec /dev/shm/rt" \
	< "$TMP/rt.in" > "$TMP/rt.out" 2> "$TMP/rt.err" &
UPID=$!
exec 3> "$TMP/rt.in"
trap 'exec 3>&-; wait; rm -rf "$TMP"' EXIT
hp=""
n=0
while [ $n -lt 200 ]; do
	hp=$(pgrep -P "$UPID" -x rt)
	[ -n "$hp" ] && [ -s "$TMP/rt.out" ] && break
	sleep 0.05
	n=$((n + 1))
done
expect_match "the program runs in its namespace" "$hp" "^[0-9]+$"
expect_eq "its pid in there is 1" "$(head -1 "$TMP/rt.out")" 1
expect_eq "the hook's host path does not exist in there" "$(ls "/proc/$hp/root$HOOK" 2> /dev/null)" ""
expect_eq "no hook in it yet" "$(grep -c libmprof "/proc/$hp/maps")" 0

run_status env MPROF_LIB="$HOOK" "$MPROF" --inject "$hp"
expect_eq "--inject HOSTPID: exit 0, nothing on stderr" "$STATUS $ERR" "0 "
expect_match "--inject HOSTPID: says where the segment is" "$OUT" "^loaded libmprof.so into process $hp: /proc/$hp/root/dev/shm/mprof-1"
expect_eq "the segment is in the container's /dev/shm, under its pid there" "$(ls "/proc/$hp/root/dev/shm/")" "mprof-1
rt"
expect_eq "nothing was written to the container's file system but its segment" "$(ls "/proc/$hp/root/tmp/")" ""
step a1
run_status "$MPROF" --snapshot "$hp" -o "$TMP/snap.pro"
expect_eq "--snapshot HOSTPID: exit 0" "$STATUS $ERR" "0 "
expect_eq "--snapshot HOSTPID: the blocks made since the injection, exact" "$(flat_rows "$TMP/snap.pro")" "keep_a1:3000:3"
run_status "$MPROF" --info --attach "$hp"
expect_match "--info --attach HOSTPID: injected" "$OUT" "hook: injected"

run_status "$MPROF" --detach "$hp"
expect_match "--detach HOSTPID: the hook loaded from a memfd is found and detached" "$STATUS:$OUT" "^0:detached from process $hp "
step a1
run_status env MPROF_LIB="$HOOK" "$MPROF" --inject "$hp"
expect_match "--inject HOSTPID again: records again" "$STATUS:$OUT" "^0:process $hp: recording again"

echo quit >&3
exec 3>&-
wait "$UPID"
expect_eq "the program ends normally" "$(tail -1 "$TMP/rt.out")" "reinject_target: end"
