#!/bin/sh
# hook_segments.sh - no segment outlives its process, whoever owns it:
#  a. a forked child of an injected process that leaves with _exit (as a
#     redis BGSAVE child does): its segment goes (the program's _exit
#     reaches the hook through its GOT slot);
#  b. as root, a forked child that drops to nobody (setgid+setuid,
#     setresgid+setresuid, setregid+setreuid, setegid+seteuid) after its
#     segment was made: the segment is handed to nobody and goes at exit
#     (preloaded, and setgid+setuid injected);
#  c. SIGTERM on an injected process: hook_signals.sh;
#  e. a vfork child that leaves with _exit ends nothing of its parent's;
#  d. SIGKILL: the next mprof-tui command (--top on a file) removes the
#     segment when it exits, another user's too when run by root; nobody's
#     command leaves root's; a file that is no segment of its pid stays.
# It runs in a mount namespace of its own with a private /dev/shm, so no
# other mprof-tui on the machine sweeps its segments meanwhile, and its
# own sweeps touch nobody else's.
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
	# b, injected: the child drops to nobody first (setgid, setuid through the GOT).
	mkdir "$TMP/g"
	"$TMP/seg_life" fork "$TMP/g" "$NOBODY" "$NOGROUP" > "$TMP/g.out" 2>&1 &
	pid=$!
	wait_for "$TMP/g.out" ready
	"$MPROF" --inject "$pid" > /dev/null 2>&1
	touch "$TMP/g/go"
	wait_for "$TMP/g.out" reaped
	child=$(sed -n 's/^child //p' "$TMP/g.out")
	expect_match "a+b: the injected process's child dropped to nobody and ran" "$child" "^[0-9]+$"
	expect_eq "a+b: its segment is gone at its _exit" "$(ls /dev/shm/mprof-$child 2> /dev/null)" ""
	touch "$TMP/g/end"
	wait $pid
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

# e. a vfork child's _exit ends nothing of its parent's.
rm -f /dev/shm/mprof-*
MPROF_OUT=$TMP/v.pro LD_PRELOAD=$HOOK "$TMP/seg_life" vfork > "$TMP/v.out" 2>&1
expect_eq "e: after a vfork child's _exit the parent's segment is there, gone at its exit" \
	"$? $(cat "$TMP/v.out") $(segs)" "0 segment there "
expect_eq "e: one dump, the parent's" "$(cd "$TMP" && ls v*.pro)" "v.pro"

# d. SIGKILL. killed NAME [AS...]: sig_leak under the hook (as AS), killed
# by SIGKILL once ready; pid is its pid.
killed() {
	name=$1
	shift
	"$@" env LD_PRELOAD="$HOOK" "$TMP/sig" > "$TMP/$name.out" 2>&1 &
	pid=$!
	wait_for "$TMP/$name.out" ready
	kill -KILL $pid
	wait $pid 2> /dev/null
}
rm -f /dev/shm/mprof-*
killed root
expect_eq "d: a killed process leaves its segment" "$(segs)" "mprof-$pid "
printf 'not a segment' > /dev/shm/mprof-2147483001
$AS_NOBODY "$MPROF" --top=flat "$DATA/test_mem.pro" > /dev/null 2>&1
expect_eq "d: nobody's command leaves root's segment" "$(ls /dev/shm/mprof-$pid)" "/dev/shm/mprof-$pid"
"$MPROF" --top=flat "$DATA/test_mem.pro" > /dev/null 2>&1
expect_eq "d: root's next command removes it (not what is no segment)" "$(segs)" "mprof-2147483001 "
rm -f /dev/shm/mprof-*
killed nobody $AS_NOBODY
expect_eq "d: nobody's killed process leaves nobody's segment" "$(stat -c %U /dev/shm/mprof-$pid 2> /dev/null)" nobody
"$MPROF" --top=flat "$DATA/test_mem.pro" > /dev/null 2>&1
expect_eq "d: root's next command removes another user's" "$(segs)" ""
rm -f /dev/shm/mprof-*
killed nobody2 $AS_NOBODY
$AS_NOBODY "$MPROF" --top=flat "$DATA/test_mem.pro" > /dev/null 2>&1
expect_eq "d: nobody's next command removes nobody's own" "$(segs)" ""
rm -f /dev/shm/mprof-*
killed root2
run_status "$MPROF" --snapshot "$pid" -o "$TMP/k.pro"
expect_eq "d: --snapshot still reads what a killed process left, then it goes" \
	"$STATUS $(sumf "$TMP/k.pro" leak_before_wait flat) $(segs)" "0 2331 7 "
