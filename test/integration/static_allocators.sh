#!/bin/sh
# static_allocators.sh - allocators no symbol interposition reaches, hooked
# at their entry points (test/progs/static_alloc.c, wrapped in its own
# app_malloc/app_free as skynet wraps je_malloc):
#  - a static jemalloc whose API is renamed je_* (test/tools/je_prefixed.sh,
#    as skynet's build prefixes it), a static tcmalloc (libtcmalloc_minimal.a:
#    the executable's own malloc), and app_malloc & co. over the system
#    malloc named by MPROF_FUNCS (the wrapper calls malloc inside: one
#    record per allocation, not two);
#  - preloaded: output and exit status unchanged, in-use and alloc counts of
#    every leak exact, --info --attach says how each allocator is hooked;
#  - injected while three threads allocate through the patched functions:
#    the leaks made after it exact, --inject and --info say entry-patched;
#    detached (the bytes put back; for jemalloc, attached and detached once
#    more), the program checks every block, frees them and exits 0;
#  - a prologue a branch jumps back into (test/progs/entry_refuse.c):
#    refused with the reason, preloaded and injected, the function's bytes
#    untouched;
#  - live mode's status line names the entry-patched allocator.
. "$(dirname "$0")/../lib.sh"
HOOK=$TOP/libmprof.so
P=$TOP/test/progs

if [ "$(uname -m)" != x86_64 ]; then
	ok "static allocators # SKIP entry-point patching is implemented for x86_64 only"
	exit 0
fi

# Every program started here is killed on the way out, the tmux server too.
SOCK=mprof-test-$$
trap 'type tmux_down > /dev/null 2>&1 && tmux_down
for f in "$TMP"/*.pid; do [ -f "$f" ] && kill -KILL "$(cat "$f")" 2> /dev/null; done; rm -rf "$TMP"' EXIT

CF="-O1 -g -fno-omit-frame-pointer -pthread"
build() {   # NAME CMD...
	_n=$1
	shift
	if "$@" 2> "$TMP/build.err"; then ok "build $_n"; else not_ok "build $_n" "$(head -3 "$TMP/build.err" | tr '\n' ' ')"; fi
}
build "the je_-prefixed static jemalloc" sh "$TOP/test/tools/je_prefixed.sh" "$TMP/libje.a"
build "static_alloc with it" cc $CF -DJE -o "$TMP/sa_je" "$P/static_alloc.c" "$TMP/libje.a" -lpthread -lm -ldl
build "static_alloc with static tcmalloc" cc $CF -DTC -o "$TMP/sa_tc" "$P/static_alloc.c" \
	/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.a -lstdc++ -lm
build "static_alloc over malloc" cc $CF -DUSER -o "$TMP/sa_user" "$P/static_alloc.c"
build "entry_refuse" cc -O1 -g -o "$TMP/refuse" "$P/entry_refuse.c"

USER_FUNCS="app_malloc:malloc,app_free:free,app_calloc:calloc,app_realloc:realloc"
funcs_of() { [ "$1" = user ] && echo "$USER_FUNCS"; }
# One round of leaks (test/progs/static_alloc.c): in use, and allocated.
LEAKS="leak_alloc:1000_10:1000_10 leak_calloc:240_5:240_5 leak_realloc:4000_2:4020_4 leak_sys:132_4:132_4 churn:0_0:500500_1000"
direct_of() { [ "$1" = user ] && echo "leak_direct:0_0:0_0" || echo "leak_direct:416_5:416_5"; }
sumfa() {   # FILE FUNC: alloc "bytes objects" (cum)
	"$MPROF" --top=cum --alloc --format=tsv --no-symbols --granularity=address "$1" |
	awk -F '\t' -v f="($2+" 'NR > 1 && index($5, f) { b += $3; o += $4 } END { printf "%.0f %.0f\n", b, o }'
}
double() { echo "$1" | awk '{ print $1 * 2, $2 * 2 }'; }
what_of() { case $1 in je) echo "jemalloc je_ in $TMP/sa_je: entry-patched: 13 functions" ;;
	tc) echo "tcmalloc in $TMP/sa_tc: entry-patched: [0-9]+ functions" ;;
	user) echo "MPROF_FUNCS in $TMP/sa_user: entry-patched: 4 functions" ;; esac; }
wait_line() {   # FILE REGEX: up to 30 s
	_n=0
	while ! grep -Eq "$2" "$1" 2> /dev/null && [ $_n -lt 600 ]; do sleep 0.05; _n=$((_n + 1)); done
}

# ---- preloaded: exact -------------------------------------------------------------
for v in je tc user; do
	bin=$TMP/sa_$v
	[ -x "$bin" ] || { not_ok "preload $v: not built"; continue; }
	"$bin" exact > "$TMP/plain.out" 2>&1
	pst=$?
	rm -f "$TMP/x.pro"
	env ${USER_FUNCS:+MPROF_FUNCS=$(funcs_of $v)} MPROF_OUT="$TMP/x.pro" LD_PRELOAD="$HOOK" "$bin" exact \
		> "$TMP/hook.out" 2> "$TMP/hook.err"
	expect_eq "preload $v: exit status and output unchanged" "$? $(cat "$TMP/hook.out")" "$pst $(cat "$TMP/plain.out")"
	expect_eq "preload $v: nothing on stderr" "$(head -c 600 "$TMP/hook.err")" ""
	for l in $LEAKS $(direct_of $v); do
		f=${l%%:*} u=${l#*:}
		a=${u#*:} u=${u%%:*}
		expect_eq "preload $v: $f in use, exact" "$(sumf "$TMP/x.pro" "$f" cum)" "$(echo "$u" | tr _ ' ')"
		expect_eq "preload $v: $f allocated (two rounds), exact" "$(sumfa "$TMP/x.pro" "$f")" \
			"$(double "$(echo "$a" | tr _ ' ')")"
	done
done
# MPROF_FUNCS moved the leaf to app_malloc's caller: app_malloc itself is
# hooked, and malloc inside it adds nothing.
expect_eq "preload user: app_malloc's callers are the leaves (it is hooked)" \
	"$(sumf "$TMP/x.pro" leak_alloc flat) $(sumf "$TMP/x.pro" app_malloc flat)" "1000 10 0 0"

# --info --attach on a preloaded process.
for v in je tc user; do
	rm -f "$TMP/go" "$TMP/end" "$TMP/p.out"
	env ${USER_FUNCS:+MPROF_FUNCS=$(funcs_of $v)} LD_PRELOAD="$HOOK" "$TMP/sa_$v" run "$TMP/go" "$TMP/end" \
		> "$TMP/p.out" 2>&1 &
	echo $! > "$TMP/p.pid"
	wait_line "$TMP/p.out" '^[0-9]+$'
	PID=$(head -1 "$TMP/p.out")
	run_status "$MPROF" --info --attach "$PID"
	expect_match "preload $v: --info --attach says how its allocator is hooked" "$STATUS:$OUT" \
		"^0:process $PID: .*sa_$v run.*
hook: preloaded \\(LD_PRELOAD\\)
allocators:
  the program's malloc: .* in /.*: (interposed|GOT slots)
  $(what_of $v)"
	touch "$TMP/go" "$TMP/end"
	wait "$(cat "$TMP/p.pid")"
	expect_eq "preload $v: the run ends well" "$?:$(tail -1 "$TMP/p.out")" "0:static_alloc: ok"
done

# ---- injected while threads allocate, then detached ------------------------------------
for v in je tc user; do
	bin=$TMP/sa_$v
	[ -x "$bin" ] || { not_ok "inject $v: not built"; continue; }
	rm -f "$TMP/go" "$TMP/end" "$TMP/s.pro" "$TMP/r.out"
	"$bin" run "$TMP/go" "$TMP/end" > "$TMP/r.out" 2> "$TMP/r.err" &
	echo $! > "$TMP/r.pid"
	wait_line "$TMP/r.out" '^[0-9]+$'
	PID=$(head -1 "$TMP/r.out")
	sleep 0.3   # the three threads are allocating through app_malloc
	run_status env ${USER_FUNCS:+MPROF_FUNCS=$(funcs_of $v)} "$MPROF" --inject "$PID"
	expect_match "inject $v: --inject names the allocator it patched" "$STATUS:$OUT" \
		"^0:loaded libmprof.so into process $PID: /dev/shm/mprof-$PID
its allocator: /.*
also: $(what_of $v)"
	touch "$TMP/go"
	wait_line "$TMP/r.out" '^done$'
	"$MPROF" --snapshot "$PID" -o "$TMP/s.pro" > /dev/null 2>&1
	for l in $LEAKS $(direct_of $v); do
		f=${l%%:*} u=${l#*:}
		a=${u#*:} u=${u%%:*}
		expect_eq "inject $v: $f in use and allocated, exact" "$(sumf "$TMP/s.pro" "$f" cum) $(sumfa "$TMP/s.pro" "$f")" \
			"$(echo "$u $a" | tr _ ' ')"
	done
	w=$(sumfa "$TMP/s.pro" worker | cut -d' ' -f2)
	expect_match "inject $v: the threads' allocations through the patched functions are recorded" "$w" '^[1-9][0-9]*$'
	run_status "$MPROF" --detach "$PID"
	expect_match "inject $v: --detach" "$STATUS:$OUT" "^0:detached from process $PID"
	run_status "$MPROF" --info --attach "$PID"
	expect_match "inject $v: --info says the entries were put back" "$OUT" "hook: injected, detached
.*
  $(what_of $v).* \\(restored at the detach\\)"
	if [ $v = je ]; then   # attached again: the same trampolines, the jumps written again
		run_status "$MPROF" --inject "$PID"
		expect_match "inject $v: a second --inject patches again" "$STATUS:$OUT" \
			"^0:process $PID: recording again into /dev/shm/mprof-$PID
.*
also: $(what_of $v)"
		run_status "$MPROF" --detach "$PID"
		expect_match "inject $v: and a second --detach puts the bytes back again" "$STATUS:$OUT" \
			"^0:detached from process $PID \\([0-9]+ call slots"
	fi
	sleep 0.3   # the threads run on the original code
	touch "$TMP/end"
	wait "$(cat "$TMP/r.pid")"
	expect_eq "inject $v: after the detach the program checks and frees every block, exits 0" \
		"$?:$(tail -1 "$TMP/r.out"):$(head -c 300 "$TMP/r.err")" "0:static_alloc: ok:"
done

# ---- a prologue that cannot be moved ------------------------------------------------
if [ -x "$TMP/refuse" ]; then
	touch "$TMP/go"
	"$TMP/refuse" "$TMP/go" > "$TMP/plain.out"
	MPROF_FUNCS=bad_alloc:malloc LD_PRELOAD="$HOOK" "$TMP/refuse" "$TMP/go" > "$TMP/hook.out" 2> "$TMP/hook.err"
	expect_eq "refuse, preload: the function's bytes untouched, the program's output the same" \
		"$?:$(sed -n '2,$p' "$TMP/hook.out")" "0:$(sed -n '2,$p' "$TMP/plain.out")"
	expect_eq "refuse, preload: the reason on stderr" "$(cat "$TMP/hook.err")" \
		"mprof: MPROF_FUNCS in $TMP/refuse: not hooked: bad_alloc: a jne at +0x7 jumps to +0x2, inside the first 7 bytes, which the patch moves"
	rm -f "$TMP/go" "$TMP/r.out"
	"$TMP/refuse" "$TMP/go" > "$TMP/r.out" 2> "$TMP/r.err" &
	echo $! > "$TMP/r.pid"
	wait_line "$TMP/r.out" '^[0-9a-f]{32}$'
	PID=$(head -1 "$TMP/r.out")
	MPROF_FUNCS=bad_alloc:malloc "$MPROF" --inject "$PID" > /dev/null 2>&1
	run_status "$MPROF" --info --attach "$PID"
	expect_match "refuse, injected: --info says refused and why" "$OUT" \
		"  MPROF_FUNCS in $TMP/refuse: refused: bad_alloc: a jne at \\+0x7 jumps to \\+0x2"
	touch "$TMP/go"
	wait "$(cat "$TMP/r.pid")"
	st=$?
	expect_eq "refuse, injected: the function's bytes untouched, the program ends normally" \
		"$st:$(sed -n 3p "$TMP/r.out"):$(tail -1 "$TMP/r.out")" "0:$(sed -n 2p "$TMP/r.out"):done"
fi

# ---- live mode says it too ---------------------------------------------------------
. "$TOP/test/tmux.sh"
if [ -x "$TMP/sa_je" ]; then
	rm -f "$TMP/go" "$TMP/end"
	tmux_start 150 24 "$TMP"
	keys "MPROF_LIB='$HOOK' '$MPROF' -- ./sa_je run go end" Enter
	check "live: the program runs under the hook" "started ./sa_je"
	keys j   # the start message gives way to the selected row and the mode's note
	check "live: the status line names the entry-patched allocator" "allocators: je_ jemalloc: entry-patched"
	touch "$TMP/go" "$TMP/end"
	keys q
	wait_for '$ ' 100 || :   # the shell again (not a check: the next test's server is its own)
fi
