#!/bin/sh
# containers.sh - a process in its own mount and pid namespace (what docker
# and podman give; made here with unshare and a tmpfs on /dev/shm) under the
# hook, read from the host by its host pid: its segment is found through
# /proc/PID/root at the name its hook gave it (its pid in there, 1), for
# --snapshot, the process list, --info --attach, --record --attach, --window,
# --faults and --serve; a
# symbolic link planted in a container is not followed to a host file. peak_known holds f
# 3 MiB and h 1 MiB exactly while it waits.
. "$(dirname "$0")/../lib.sh"
if [ "$(id -u)" != 0 ] || ! unshare --mount --pid --fork true 2> /dev/null; then
	echo "ok - # SKIP namespaces: needs root and unshare --mount --pid"
	exit 0
fi
hook_prog pk "$TOP/test/progs/peak_known.c"
MIB=1048576
cum() {
	"$MPROF" --top=cum --format=tsv --granularity=function "$2" 2> /dev/null |
		awk -F '\t' -v n="$1" '$5 == n { print $3 }'
}

# boxed NAME ARGS: $TMP/NAME under the hook in a mount and pid namespace
# with its own /dev/shm (ARGS quoted for sh -c); sets UPID (unshare) and BP
# (its host pid) once it has printed its first line (pk: ready, lk: its pid).
boxed() {
	unshare --mount --pid --fork sh -c "mount -t tmpfs tmpfs /dev/shm && exec env LD_PRELOAD='$HOOK' '$TMP/$1' $2" \
		> "$TMP/$1.out" 2> "$TMP/$1.err" &
	UPID=$!
	BP=""
	n=0
	while [ $n -lt 200 ]; do
		BP=$(pgrep -P "$UPID" -x "$1")
		[ -n "$BP" ] && [ -s "$TMP/$1.out" ] && break
		sleep 0.05
		n=$((n + 1))
	done
}
boxed pk "'$TMP/stop'"
hp=$BP
trap 'touch "$TMP/stop"; wait; rm -rf "$TMP"' EXIT
expect_match "the program runs in its namespace" "$hp" "^[0-9]+$"
expect_eq "its pid in there is 1" "$(sed -n 's/^NSpid:.*[[:space:]]//p' /proc/$hp/status)" 1
expect_eq "its segment is not in the host's /dev/shm" "$(ls /dev/shm/mprof-1 /dev/shm/mprof-$hp 2> /dev/null)" ""

run_status "$MPROF" --snapshot "$hp" -o "$TMP/snap.pro"
expect_eq "--snapshot HOSTPID: exit 0" "$STATUS $ERR" "0 "
expect_eq "--snapshot: f holds 3 MiB" "$(cum f_hold "$TMP/snap.pro")" $((3 * MIB))
expect_eq "--snapshot: h holds 1 MiB" "$(cum h_hold "$TMP/snap.pro")" $((1 * MIB))
expect_eq "--snapshot: g holds nothing" "$(cum g_hold "$TMP/snap.pro")" ""

"$MPROF" --attach > "$TMP/list" 2> /dev/null
expect_match "the process list shows it by host pid, with its pid in there" \
	"$(grep "^ *$hp " "$TMP/list")" "^ *$hp  .*  \[container, pid 1 there\] $TMP/pk $TMP/stop$"

"$MPROF" --info --attach "$hp" > "$TMP/info" 2>&1
expect_match "--info --attach HOSTPID: how the hook is in it" "$(cat "$TMP/info")" "hook: preloaded"

# A container cannot make the host read a host file as its segment: a copy
# of this segment is put in a host directory, and another container's
# /dev/shm is a symbolic link to it (resolved on the host, it would lead
# there), or its mprof-1 is a link to the copy itself.
mkdir "$TMP/plant"
cp "/proc/$hp/root/dev/shm/mprof-1" "$TMP/plant/mprof-1"
planted() {
	unshare --mount --pid --fork sh -c "mount -t tmpfs tmpfs /tmp && $1 && exec sleep 60" &
	SPID=$!
	sp=""
	n=0
	while [ -z "$sp" ] && [ $n -lt 200 ]; do sp=$(pgrep -P "$SPID" -x sleep); sleep 0.05; n=$((n + 1)); done
	run_status "$MPROF" --snapshot "$sp" -o "$TMP/planted.pro"
	kill -KILL "$sp"   # the namespace's pid 1: SIGTERM has no handler there, so it is ignored
	wait "$SPID"
}
planted "mount -t tmpfs tmpfs /dev && ln -s '$TMP/plant' /dev/shm"
expect_eq "a container's /dev/shm linked to a host directory: not followed out of its root, one line" "$STATUS:$ERR" \
	"2:mprof-tui: /proc/$sp/root/dev/shm/mprof-1: no such segment (is the process running under libmprof.so?)"
planted "mount -t tmpfs tmpfs /dev/shm && ln -s '$TMP/plant/mprof-1' /dev/shm/mprof-1"
expect_eq "a container's segment linked to a host file: refused, one line" "$STATUS:$ERR" \
	"2:mprof-tui: /proc/$sp/root/dev/shm/mprof-1: a symbolic link on its path: refused (it could lead out of the container)"

"$MPROF" --record "$TMP/rec" --attach "$hp" > "$TMP/rec.log" 2>&1 &
RPID=$!
n=0
while ! grep -q "recording pid" "$TMP/rec.log" 2> /dev/null && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
touch "$TMP/stop"
wait "$RPID"
expect_match "--record --attach HOSTPID: recorded until it exited" "$(cat "$TMP/rec.log")" "recorded [0-9]+ events of pid $hp"
expect_match "the recording opens" "$("$MPROF" --info "$TMP/rec" 2>&1)" "ends at"
wait "$UPID"
expect_eq "the program's output is unchanged" "$(cat "$TMP/pk.out")" ready

# --window, --faults and --serve on a container's process by its host pid:
# live_leaker leaks 1000 B a call in leak_here, every 10 ms.
hook_prog lk "$TOP/test/progs/live_leaker.c"
boxed lk "'$TMP/lstop' 300"
lp=$BP
LUPID=$UPID
trap 'touch "$TMP/stop" "$TMP/lstop"; kill $SRV 2> /dev/null; wait; rm -rf "$TMP"' EXIT
# leak_row FILE: "bytes objects" of leak_here's flat row, when bytes = 1000 x objects > 0.
leak_row() {
	"$MPROF" --top=flat --format=tsv "$@" 2> /dev/null |
		awk -F '\t' '$5 == "leak_here" && $1 > 0 && $1 == 1000 * $2 { print "1000 B x", $2 }'
}
run_status "$MPROF" --window 1 "$lp" -o "$TMP/win.pro"
expect_eq "--window 1 HOSTPID: exit 0" "$STATUS" 0
expect_match "--window: leak_here's blocks of 1000 B made in the window" "$(leak_row "$TMP/win.pro")" "^1000 B x [0-9]+$"
# live_leaker allocates from one stack: the summary counts it in the singular.
expect_match "--window: its summary says 'from 1 stack,'" "$ERR" "allocations \\([^)]*\\) from 1 stack, "
run_status "$MPROF" --faults "$lp" --duration 1 -o "$TMP/faults.pro"
expect_eq "--faults HOSTPID --duration 1: exit 0" "$STATUS" 0
expect_match "--faults: the pages leak_here touched, its stack resolved through the container's root to main" \
	"$("$MPROF" --top=cum --alloc --format=tsv "$TMP/faults.pro" 2> /dev/null | awk -F '\t' '$5 == "leak_here" || $5 == "main" { print $5, ($3 > 0) }' | sort | tr '\n' ' ')" \
	"^leak_here 1 main 1 $"
if "$MPROF" --top=flat http://127.0.0.1:1/ 2>&1 | grep -q 'built without'; then
	echo "ok - # SKIP --serve: mprof-tui was built without libcurl or libmicrohttpd"
else
	"$MPROF" --serve 0 > "$TMP/serve.out" 2>&1 &
	SRV=$!
	n=0
	while ! grep -q serving "$TMP/serve.out" && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	U=$(sed -n 's|^mprof-tui: serving \(http://[^ ]*/debug/pprof/\) .*|\1|p' "$TMP/serve.out")
	expect_match "--serve: heap?pid=HOSTPID serves the container's leak" "$(leak_row "${U}heap?pid=$lp")" "^1000 B x [0-9]+$"
	kill "$SRV"
fi
touch "$TMP/lstop"
wait "$LUPID"
