#!/bin/sh
# hook_segments.sh - no segment outlives its process, whoever owns it:
#  a. a forked child of an injected process that leaves with _exit (as a
#     redis BGSAVE child does): its segment goes (the program's _exit
#     reaches the hook through its GOT slot);
#  b. as root, a forked child that drops to nobody (setgid+setuid,
#     setresgid+setresuid, setregid+setreuid, setegid+seteuid) after its
#     segment was made: the segment is handed to nobody and goes at exit;
#  c. SIGTERM on an injected process: hook_signals.sh.
# It runs in a mount namespace of its own with a private /dev/shm.
if [ -z "$MPROF_SEG_NS" ] && [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null; then
	exec unshare -m env MPROF_SEG_NS=1 sh "$0" "$@"
fi
. "$(dirname "$0")/../lib.sh"
if [ -z "$MPROF_SEG_NS" ]; then
	ok "segments outlive no process # SKIP needs root and unshare -m (a second user, a private /dev/shm)"
	exit 0
fi
mount --make-rprivate / && mount -t tmpfs -o mode=1777 tmpfs /dev/shm || { not_ok "a private /dev/shm"; exit 0; }
hook_prog seg_life "$TOP/test/progs/seg_life.c"
cc -g -O1 -o "$TMP/sig" "$TOP/test/progs/sig_leak.c" || { not_ok "build sig_leak"; exit 0; }
chmod 711 "$TMP"
NOBODY=$(id -u nobody)
NOGROUP=$(id -g nobody)
AS_NOBODY="setpriv --reuid=$NOBODY --regid=$NOGROUP --clear-groups"

# wait_for FILE REGEX: until a line of FILE matches (30 s at most).
wait_for() {
	i=0
	while ! grep -Eq "$2" "$1" 2> /dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
}
segs() { ls /dev/shm | tr '\n' ' '; }

# a. injected, then a forked child leaves with _exit.
if [ "$(uname -m)" = x86_64 ]; then
	mkdir "$TMP/f"
	"$TMP/seg_life" fork "$TMP/f" > "$TMP/f.out" 2>&1 &
	pid=$!
	wait_for "$TMP/f.out" ready
	run_status "$MPROF" --inject "$pid"
	expect_eq "a: injected" "$STATUS" 0
	touch "$TMP/f/go"
	wait_for "$TMP/f.out" reaped
	child=$(sed -n 's/^child //p' "$TMP/f.out")
	expect_match "a: the child ran" "$child" "^[0-9]+$"
	expect_eq "a: the child's segment is gone at its _exit" "$(ls /dev/shm/mprof-$child 2> /dev/null)" ""
	touch "$TMP/f/end"
	wait $pid
	expect_eq "a: the parent exits 0, its segment gone" "$? $(ls /dev/shm/mprof-$pid 2> /dev/null)" "0 "
else
	ok "a: forked child of an injected process # SKIP injection is x86_64 only"
fi

# b. a worker that drops to nobody.
for how in setuid setresuid setreuid seteuid; do
	rm -f /dev/shm/mprof-*
	LD_PRELOAD=$HOOK "$TMP/seg_life" drop "$NOBODY" "$NOGROUP" $how > "$TMP/d.out" 2>&1
	expect_eq "b: $how: the child dropped to nobody" "$?:$(sed -n 's/^child [0-9]* //p' "$TMP/d.out"):$(tail -1 "$TMP/d.out")" \
		"0:$NOBODY:reaped 0"
	expect_eq "b: $how: no segment is left" "$(segs)" ""
done

