#!/bin/sh
# own_malloc.sh - an executable that defines and exports (-rdynamic) its own
# malloc over a static je_-prefixed jemalloc, as skynet does
# (test/progs/own_malloc.c: a 16-byte header before each block):
#  - preloaded, the hook knows it was preloaded (not injected: that came
#    from which malloc the program defines): --info --attach says so,
#    SIGTERM writes the dump and leaves no segment, and so does
#    mprof-tui -- PROG, q, Enter;
#  - blocks made on four threads (the program's malloc, malloc(0) among
#    them, or je_realloc directly) and freed on two others (free, je_free):
#    the dump's in-use of make_block is exactly what the program holds, in
#    every run (malloc(0)'s pointer, past its header, is where a 16-byte
#    block of je_malloc's may start: one key held both, 180-260 blocks too
#    many per run); and with no header (-DPASS), each family freeing the
#    other's blocks.
. "$(dirname "$0")/../lib.sh"
HOOK=$TOP/libmprof.so
P=$TOP/test/progs

SOCK=mprof-test-$$
pid=""   # the program waiting for SIGTERM, killed on the way out like the tmux server
trap 'type tmux_down > /dev/null 2>&1 && tmux_down; [ -n "$pid" ] && kill -KILL "$pid" 2> /dev/null; rm -rf "$TMP"' EXIT

if ! sh "$TOP/test/tools/je_prefixed.sh" "$TMP/libje.a" 2> "$TMP/build.err" ||
	! cc -O1 -g -fno-omit-frame-pointer -pthread -rdynamic -o "$TMP/own" "$P/own_malloc.c" "$TMP/libje.a" \
		-lpthread -lm -ldl 2>> "$TMP/build.err" ||
	! cc -O1 -g -fno-omit-frame-pointer -pthread -rdynamic -DPASS -o "$TMP/own_pass" "$P/own_malloc.c" \
		"$TMP/libje.a" -lpthread -lm -ldl 2>> "$TMP/build.err"; then
	not_ok "build own_malloc over the je_-prefixed jemalloc" "$(head -3 "$TMP/build.err" | tr '\n' ' ')"
	exit 0
fi
ok "build own_malloc over the je_-prefixed jemalloc"

# wait_line FILE TEXT: up to 30 s.
wait_line() {
	_n=0
	while ! grep -q "$2" "$1" 2> /dev/null && [ $_n -lt 600 ]; do sleep 0.05; _n=$((_n + 1)); done
}

# ---- preloaded, it says so; SIGTERM dumps and removes the segment -------------------
rm -f "$TMP/t.pro"
MPROF_OUT="$TMP/t.pro" LD_PRELOAD="$HOOK" "$TMP/own" wait > "$TMP/w.out" 2> "$TMP/w.err" &
pid=$!
wait_line "$TMP/w.out" ready
expect_match "preload: --info --attach says preloaded" "$("$MPROF" --info --attach "$pid" 2>&1)" \
	"^hook: preloaded \(LD_PRELOAD\)$"
kill -TERM "$pid"
wait "$pid" 2> /dev/null   # not the shell's "Terminated" line
st=$?
expect_eq "preload: SIGTERM still kills it (status 143)" "$st" 143
if [ -s "$TMP/t.pro" ]; then ok "preload: SIGTERM writes the dump"; else not_ok "preload: SIGTERM writes the dump" "no $TMP/t.pro"; fi
expect_eq "preload: SIGTERM leaves no segment" "$(ls "/dev/shm/mprof-$pid" 2> /dev/null)" ""
rm -f "/dev/shm/mprof-$pid"
expect_eq "preload: nothing on stderr" "$(head -c 600 "$TMP/w.err")" ""
pid=""

# ---- exact across threads (the allocators' entry points are patched: x86_64) --------
# exact WHAT PROG RUNS: the dump's in-use of make_block against what PROG holds.
exact() {
	if [ "$(uname -m)" != x86_64 ]; then
		ok "$1 # SKIP entry-point patching is implemented for x86_64 only"
		return
	fi
	bad=""
	for i in $(seq 1 "$3"); do
		rm -f "$TMP/x.pro"
		held=$(MPROF_OUT="$TMP/x.pro" LD_PRELOAD="$HOOK" "$TMP/$2" run 20000 2> "$TMP/x.err" | sed -n 's/^held //p')
		got=$(sumf "$TMP/x.pro" make_block cum | awk '{ print $2, $1 }')
		[ -n "$held" ] && [ "$got" = "$held" ] && ! [ -s "$TMP/x.err" ] ||
			bad="$bad run $i: held $held, dump $got $(head -c 200 "$TMP/x.err");"
	done
	expect_eq "$1: the dump's in-use of make_block is what the program holds, $3 of $3 runs" "$bad" ""
}
exact "cross-thread frees, a malloc that adds a header" own "${OWN_MALLOC_RUNS:-6}"
# Blocks handed on as they are: je_realloc's freed by free, malloc's by je_free.
exact "cross-thread frees, each family freeing the other's" own_pass "${OWN_MALLOC_RUNS:-3}"

# ---- mprof-tui -- PROG, q, Enter ----------------------------------------------------
. "$TOP/test/tmux.sh"
rm -f "$TMP/tui.pro"
tmux_start 120 24 "$TMP"
keys "clear; MPROF_OUT='$TMP/tui.pro' MPROF_LIB='$HOOK' '$MPROF' -- ./own wait; echo EXIT=\$?" Enter
check "live: the program runs under the hook" "started ./own"
tpid=$(ls /dev/shm 2> /dev/null | sed -n 's/^mprof-//p' | while read -r p; do
	[ "$(readlink "/proc/$p/exe" 2> /dev/null)" = "$TMP/own" ] && echo "$p"; done | head -1)
keys q
check "live: q asks before stopping it" "quit: stop"
keys Enter
check "live: Enter stops it and leaves" "EXIT=0" 100
n=0
while ! [ -s "$TMP/tui.pro" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
if [ -s "$TMP/tui.pro" ]; then ok "live: q, Enter writes the dump"; else not_ok "live: q, Enter writes the dump" "no $TMP/tui.pro"; fi
if [ -n "$tpid" ]; then
	expect_eq "live: q, Enter leaves no segment" "$(ls "/dev/shm/mprof-$tpid" 2> /dev/null)" ""
	rm -f "/dev/shm/mprof-$tpid"
else
	not_ok "live: q, Enter leaves no segment" "the program's segment was not found while it ran"
fi
