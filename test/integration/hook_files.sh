#!/bin/sh
# hook_files.sh - files written the way a root process must write them:
#  a. symlinks planted by another user (nobody) in a sticky world-writable
#     directory, at the old temporary's name (FILE.tmp) and at the final
#     name, pointing at a victim file: the hook's dump (as root), mprof-tui's
#     exports, flame graph and --window -o never write through them; the
#     victim is untouched and each file is written in place of the link.
#     The directory is nobody's: fs.protected_symlinks does not apply where
#     the link's owner owns the directory, so the test needs no sysctl.
#  b. a dump that fails says why (a full tmpfs under unshare -m): on stderr,
#     and with stderr closed (2>&-), or closed and its number reused by the
#     program for a file of its own, to syslog, read from a /dev/log socket
#     the test binds in a private /dev.
. "$(dirname "$0")/../lib.sh"
hook_prog sig "$TOP/test/progs/sig_leak.c"
if [ "$(id -u)" != 0 ]; then
	ok "files under another user's symlinks # SKIP not root (needs a second user and root's dump)"
	exit 0
fi
NOBODY=$(id -u nobody 2> /dev/null) || { ok "# SKIP no user nobody"; exit 0; }
AS_NOBODY="setpriv --reuid=$NOBODY --regid=$(id -g nobody) --clear-groups"

# wait_ready FILE: until the program printed "ready" (10 s at most).
wait_ready() {
	i=0
	while ! grep -q ready "$1" 2> /dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}

chmod 711 "$TMP"   # nobody reaches the sticky directory inside
S=$TMP/sticky
mkdir "$S" && chown nobody "$S" && chmod 1777 "$S"
echo precious > "$TMP/victim"
# plant NAME: nobody's links at NAME and NAME.tmp, to the victim.
plant() {
	$AS_NOBODY ln -sf "$TMP/victim" "$S/$1" && $AS_NOBODY ln -sf "$TMP/victim" "$S/$1.tmp"
}
# written NAME WHAT: the victim is intact, NAME is a regular file now.
written() {
	expect_eq "$2: the victim is untouched" "$(head -c 40 "$TMP/victim" | tr -c 'a-z\n' '?')" precious
	t=link
	[ -f "$S/$1" ] && [ ! -L "$S/$1" ] && t=file
	expect_eq "$2: written in place of the planted link" "$t" file
}

# a. the hook's dump, as root, at exit and on SIGTERM.
plant o.pro
MPROF_OUT=$S/o.pro LD_PRELOAD=$HOOK "$TMP/sig" < /dev/null > "$TMP/o.out" 2> "$TMP/o.err" &
pid=$!
wait_ready "$TMP/o.out"
kill -TERM $pid
wait $pid
written o.pro "hook dump"
expect_eq "hook dump: holds the leak" "$(sumf "$S/o.pro" leak_before_wait flat)" "2331 7"
expect_eq "hook dump: nothing said" "$(cat "$TMP/o.err")" ""

# mprof-tui's writes.
for kind in native skynet folded pprof; do
	plant "e.$kind"
	run_status "$MPROF" --no-symbols --export=$kind -o "$S/e.$kind" "$S/o.pro"
	expect_eq "export $kind: exit 0" "$STATUS:$ERR" "0:"
	written "e.$kind" "export $kind"
done
plant f.svg
run_status "$MPROF" --no-symbols --flamegraph="$S/f.svg" "$S/o.pro"
expect_eq "flame graph: exit 0" "$STATUS:$ERR" "0:"
written f.svg "flame graph"
env --default-signal=TERM "$TMP/sig" < /dev/null > "$TMP/w.out" 2>&1 &
pid=$!
wait_ready "$TMP/w.out"
plant w.pro
run_status "$MPROF" --window 1 "$pid" -o "$S/w.pro"
kill -TERM $pid
{ wait $pid; } 2> /dev/null
expect_eq "--window -o: exit 0" "$STATUS" 0
written w.pro "--window -o"
expect_eq "no temporary is left" "$(ls "$S" | grep -v '\.tmp$' | wc -l) $(ls "$S" | grep -c '\.[a-z0-9]\{8\}\.tmp$')" "7 0"

# b. a dump to a full disk says why: a 64 KiB tmpfs filled up, in a mount
# namespace of the test's own, where /dev is a private tmpfs too (its null
# and a private shm bound in) so the test can listen on /dev/log.
cc -O1 -o "$TMP/logsink" "$TOP/test/progs/logsink.c" || { not_ok "build logsink"; exit 0; }
cc -O1 -o "$TMP/fd2" "$TOP/test/progs/fd2_reuse.c" || { not_ok "build fd2_reuse"; exit 0; }
if ! unshare -m true 2> /dev/null; then
	ok "failed dumps say why # SKIP unshare -m does not work here"
	exit 0
fi
cat > "$TMP/ns.sh" << NSEOF
mount --make-rprivate / || exit 3
mkdir "$TMP/full" && mount -t tmpfs -o size=64k tmpfs "$TMP/full" || exit 3
dd if=/dev/zero of="$TMP/full/fill" bs=4k 2> /dev/null
MPROF_OUT=$TMP/full/d.pro LD_PRELOAD=$HOOK /bin/true 2> "$TMP/full.err"
echo \$? > "$TMP/full.st"
touch "$TMP/null" && mount --bind /dev/null "$TMP/null" || exit 3
mount -t tmpfs tmpfs /dev && touch /dev/null && mount --bind "$TMP/null" /dev/null || exit 3
mkdir /dev/shm && mount -t tmpfs tmpfs /dev/shm || exit 3
"$TMP/logsink" /dev/log > "$TMP/log.out" &
i=0
while ! grep -q ready "$TMP/log.out" 2> /dev/null && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done
MPROF_OUT=$TMP/full/d.pro LD_PRELOAD=$HOOK /bin/true 2>&-
echo \$? > "$TMP/closed.st"
wait
"$TMP/logsink" /dev/log > "$TMP/log2.out" &
i=0
while ! grep -q ready "$TMP/log2.out" 2> /dev/null && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done
MPROF_OUT=$TMP/full/d.pro LD_PRELOAD=$HOOK "$TMP/fd2" "$TMP/own.txt" 2> "$TMP/reuse.err"
echo \$? > "$TMP/reuse.st"
wait
NSEOF
unshare -m sh "$TMP/ns.sh"
expect_eq "full disk: the namespace was set up" "$?" 0
expect_eq "full disk: the program's exit status is its own" "$(cat "$TMP/full.st")" 0
expect_eq "full disk: stderr says the file and why" "$(cat "$TMP/full.err")" \
	"mprof: cannot write $TMP/full/d.pro: No space left on device"
expect_eq "stderr closed: the program's exit status is its own" "$(cat "$TMP/closed.st")" 0
expect_match "stderr closed: the line goes to syslog (LOG_USER|LOG_ERR) on /dev/log" "$(sed -n 2p "$TMP/log.out")" \
	"^<11>libmprof\\[[0-9]+\\]: cannot write $TMP/full/d\\.pro: No space left on device\$"
expect_eq "stderr reused by the program: its file holds only its own line" "$(cat "$TMP/reuse.st") $(cat "$TMP/own.txt")" "0 mine"
expect_eq "stderr reused: nothing on the stderr it started with" "$(cat "$TMP/reuse.err")" ""
expect_match "stderr reused: the line goes to syslog" "$(sed -n 2p "$TMP/log2.out")" \
	"^<11>libmprof\\[[0-9]+\\]: cannot write $TMP/full/d\\.pro: No space left on device\$"
