#!/bin/sh
# container_inject.sh - mprof-tui --inject HOSTPID into a process in its own
# mount and pid namespace (docker's shape, made with unshare) that was started
# WITHOUT the hook, whose file system has neither the checkout (a tmpfs hides
# it, so the hook's host path does not exist there) nor the host's /tmp or
# /dev/shm.  The hook goes in through a memfd; its segment is made in the
# container's /dev/shm under its pid there and read from the host.
# Then a minimal root without libunwind and libzstd: the hook, injected or
# preloaded, walks frame pointers and refuses MPROF_RECORD in one line.
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

# boxed_run NAME SCRIPT: rt started by SCRIPT (sh) as NAME in a mount and
# pid namespace of its own, its steps on fd 3; sets UPID (unshare) and hp
# (rt's host pid).
boxed_run() {
	mkfifo "$TMP/$1.in"
	unshare --mount --pid --fork sh -c "$2" < "$TMP/$1.in" > "$TMP/$1.out" 2> "$TMP/$1.err" &
	UPID=$!
	exec 3> "$TMP/$1.in"
	hp=""
	n=0
	while [ $n -lt 200 ]; do
		hp=$(pgrep -P "$UPID" -x rt)
		[ -n "$hp" ] && [ -s "$TMP/$1.out" ] && break
		sleep 0.05
		n=$((n + 1))
	done
}
trap 'exec 3>&-; wait; rm -rf "$TMP"' EXIT
# The program is copied into the container's own /dev/shm before /tmp and
# the checkout are hidden: nothing of the host's is reachable by its path.
# The checkout first: under /tmp (a fresh clone's), it is gone once /tmp is.
boxed_run rt "mount -t tmpfs tmpfs /dev/shm && cp '$TMP/rt' /dev/shm/rt &&
	mount -t tmpfs tmpfs '$TOP' && mount -t tmpfs tmpfs /tmp && exec /dev/shm/rt"
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

# A minimal root (a chroot holding the program, sh, and what ldd lists for
# them and for the hook: no libunwind, no libzstd) in its own namespaces, with its own
# /proc: the hook, injected from a memfd or preloaded from a copy in there,
# loads without them and unwinds by frame pointers (rt is built with them).
R=$TMP/root
mkdir -p "$R/proc" "$R/dev/shm" "$R/tmp"
cp "$TMP/rt" "$R/rt"
mkdir -p "$R/bin"
cp "$(readlink -f /bin/sh)" "$R/bin/sh"
for f in $( (ldd "$TMP/rt"; ldd "$HOOK"; ldd /bin/sh) | sed -n 's/.*[[:space:]]\(\/[^[:space:]]*\) (0x.*/\1/p' | sort -u); do
	mkdir -p "$R$(dirname "$f")"
	cp "$f" "$R$f"
done
cp "$HOOK" "$R/libmprof.so"
expect_eq "the minimal root has no libunwind nor libzstd" "$(find "$R" -name 'libunwind*' -o -name 'libzstd*')" ""

# chroot_run NAME [ENV...]: rt started as NAME in the root's namespaces
# (steps on fd 3), with ENV exported by the root's own sh when given (the
# host's chroot(1) would take an LD_PRELOAD too); sets hp, its host pid.
chroot_run() {
	_name=$1
	shift
	_cmd=/rt
	[ $# -gt 0 ] && _cmd="/bin/sh -c 'export $*; exec /rt'"
	boxed_run "$_name" "mount -t proc proc '$R/proc' && mount -t tmpfs tmpfs '$R/dev/shm' &&
		exec env -i PATH='$PATH' chroot '$R' $_cmd"
}
chroot_end() {
	echo quit >&3
	exec 3>&-
	wait "$UPID"
	expect_eq "$1: the program ends normally, nothing on its stderr" "$(tail -1 "$TMP/$1.out") $(cat "$TMP/$1.err")" \
		"reinject_target: end "
}

for how in injected preloaded; do
	if [ $how = injected ]; then
		chroot_run $how
		run_status env MPROF_LIB="$HOOK" "$MPROF" --inject "$hp"
		expect_eq "$how: --inject into the minimal root: exit 0, nothing on stderr" "$STATUS $ERR" "0 "
	else
		chroot_run $how LD_PRELOAD=/libmprof.so
	fi
	step_do "$TMP/$how.out" a1
	run_status "$MPROF" --snapshot "$hp" -o "$TMP/$how.pro"
	expect_eq "$how: --snapshot: exit 0" "$STATUS $ERR" "0 "
	expect_eq "$how: the blocks of keep_a1, exact" "$(flat_rows "$TMP/$how.pro" | tr ' ' '\n' | grep '^keep_a1:')" \
		"keep_a1:3000:3"
	expect_eq "$how: by frame pointers, the stacks reach main (keep_a1's 3000 B at least)" \
		"$("$MPROF" --top=cum --format=tsv --granularity=function "$TMP/$how.pro" 2> /dev/null | awk -F '\t' '$5 == "main" { print ($3 >= 3000) }')" 1
	expect_match "$how: --info --attach says the unwinder" "$("$MPROF" --info --attach "$hp" 2>&1)" \
		"unwinder: frame pointers \(libunwind.so.8 could not be loaded in the process\)"
	chroot_end $how
done

# Recording needs libzstd: refused with one line, the program unchanged.
chroot_run rec LD_PRELOAD=/libmprof.so MPROF_RECORD=/tmp/rec
step_do "$TMP/rec.out" a1
echo quit >&3
exec 3>&-
wait "$UPID"
expect_eq "MPROF_RECORD without libzstd: one line, the program ends normally" "$(tail -1 "$TMP/rec.out") / $(cat "$TMP/rec.err")" \
	"reinject_target: end / mprof: not recording: libzstd.so.1 cannot be loaded (MPROF_RECORD=/tmp/rec)"
