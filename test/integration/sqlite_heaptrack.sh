#!/bin/sh
# sqlite_heaptrack.sh - mprof against heaptrack and an independent counter
# on a program nobody here wrote: Debian's sqlite3 CLI running a
# deterministic script (a table, 20,000 inserts in one transaction, an
# index, two queries, a local-time conversion) on :memory:.
#
# Three separate runs of the same input, each under one tool:
#   mprof      MPROF_OUT=... LD_PRELOAD=libmprof.so sqlite3
#   counter    LD_PRELOAD=count_allocs.so sqlite3 (test/progs/count_allocs.c:
#              counts every block an allocation function hands out or
#              takes back, once each)
#   heaptrack  heaptrack sqlite3, read back with heaptrack_print
# sqlite3's allocations do not depend on the run (same script, same
# environment, no threads; checked below: all three agree), so counts
# taken in different runs are comparable exactly.
#
# What is equal, and why:
# - Bytes in use at exit.  mprof's dump at exit and heaptrack's "total
#   memory leaked" both count every block allocated and not freed by the
#   time they stop at exit, after main returned: here
#   stdin's and stdout's stdio buffers and glibc's time-zone data from
#   tzset (TZ=UTC; sqlite3's 'localtime' modifier calls localtime_r).
#   heaptrack_print hides "known leaks from common system libraries" by
#   default (tzset_internal is on its built-in list), so it runs with
#   --disable-builtin-suppressions.  Its summary prints bytes in units of
#   1000 with two decimals ("8.23K" stands for any of some ten byte
#   counts around 8230); the exact figure is
#   the sum of the per-trace costs of its flame-graph output with
#   --flamegraph-cost-type leaked (raw integers), and the test checks that
#   the summary line is that sum formatted as heaptrack_print formats it.
#   sqlite3 is started with -init on an empty file: without it, it looks
#   for ~/.sqliterc through getpwuid (whose result depends on the user
#   running the test and leaves NSS state behind).
# - Blocks in use at exit: mprof's in-use objects = the counter's
#   allocations - frees = heaptrack's "leaked allocations".
# - Allocations: mprof's --alloc --objects total = the counter's.  Both
#   count a call that returned a block; realloc(p, n) is one allocation
#   (and one free of p); a block is counted once even when one allocation
#   function calls another (glibc's reallocarray calls realloc).  Neither
#   records its own allocations (the counter makes none but dlsym's,
#   served from a static buffer; mprof's run under its busy flag).
# - heaptrack's "calls to allocation functions" is one more.  That call is
#   libstdc++'s: libheaptrack_preload.so is C++, so heaptrack loads
#   libstdc++.so.6 into sqlite3, a C program that otherwise never loads it,
#   and libstdc++'s initializer mallocs its exception-handling emergency
#   pool (72,704 B).  It runs before the preloaded libraries' constructors:
#   an allocation made before the hook's constructor ran, which heaptrack,
#   the counter and mprof all count, since all three resolve the next
#   allocator inside that first call.  heaptrack frees the pool again at
#   exit (__gnu_cxx::__freeres in its atexit handler, before it stops), so
#   the pool is not among its leaks.  Checked three ways: the counter and
#   mprof, run with libstdc++.so.6 loaded beside them (the process heaptrack
#   makes), count exactly heaptrack's figure, and mprof's in-use bytes then
#   exceed heaptrack's leaks by exactly libstdc++'s block (mprof calls no
#   __freeres); heaptrack's own list of allocation sites puts exactly the
#   difference at a leaf frame in libstdc++.so.6.  In sqlite3's own process
#   nothing allocates before the preloads' constructors.  heaptrack 1.4
#   does not interpose memalign or pvalloc (it would miss such calls): the
#   counter shows sqlite3 makes none.
. "$(dirname "$0")/../lib.sh"

if ! command -v sqlite3 > /dev/null 2>&1; then
	ok "sqlite3 # SKIP sqlite3 is not installed (apt-get install sqlite3)"
	exit 0
fi
COUNT=$TMP/count_allocs.so
if ! cc -shared -fPIC -O2 -o "$COUNT" "$TOP/test/progs/count_allocs.c" -ldl; then
	not_ok "build count_allocs.so"
	exit 0
fi

# The workload: deterministic, fed on stdin.
sh "$TOP/test/progs/sqlite_work.sh" 20000 localtime > "$TMP/work.sql"
: > "$TMP/init.sql"
# sq OUTFILE [VAR=VALUE...]: sqlite3 on the script with those variables.
sq() {
	out=$1; shift
	env HOME="$TMP" TZ=UTC "$@" sqlite3 -init "$TMP/init.sql" :memory: < "$TMP/work.sql" > "$out" 2> "$out.err"
}

sq "$TMP/plain.out"; plain=$?
expect_eq "sqlite3: the plain run" "$plain $(tail -1 "$TMP/plain.out")" "0 2023-11-14 22:13:20"

# --- mprof ------------------------------------------------------------------------------
sq "$TMP/mprof.out" MPROF_OUT="$TMP/sq.pro" LD_PRELOAD="$TOP/libmprof.so"; st=$?
expect_eq "mprof: exit status unchanged" "$st" "$plain"
expect_file_eq "mprof: output unchanged" "$TMP/mprof.out" "$TMP/plain.out"
expect_eq "mprof: nothing on stderr" "$(cat "$TMP/mprof.out.err")" ""
# Totals: sums over every row (each sample has one leaf, so flat sums to
# the whole profile).  %.0f: mawk's %d stops at 2^31 - 1.
# total FILE [OPTION] [MODULE]: "bytes objects" over the rows (of MODULE).
total() {
	"$MPROF" --top=flat --format=tsv --no-symbols --granularity=address $2 "$1" |
	awk -F '\t' -v m="$3" 'NR > 1 && index($5, m) { b += $1; o += $2 } END { printf "%.0f %.0f\n", b, o }'
}
set -- $(total "$TMP/sq.pro")
m_bytes=$1 m_objs=$2
set -- $(total "$TMP/sq.pro" --alloc)
m_allocs=$2

# --- the counter ----------------------------------------------------------------------
# field NAME FILE: the counter's figure NAME.
field() { awk -v k="$1" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$2"; }
sq "$TMP/count.out" COUNT_ALLOCS_OUT="$TMP/count.txt" LD_PRELOAD="$COUNT"; st=$?
expect_eq "counter: exit status unchanged" "$st" "$plain"
expect_file_eq "counter: output unchanged" "$TMP/count.out" "$TMP/plain.out"
c_allocs=$(field allocs "$TMP/count.txt")
c_frees=$(field frees "$TMP/count.txt")
if [ -z "$c_allocs" ] || [ "$c_allocs" -lt 20000 ]; then
	not_ok "counter: counted the run" "$(cat "$TMP/count.txt" 2> /dev/null)"
fi
expect_eq "mprof: allocations ($m_allocs) = the counter's" "$m_allocs" "$c_allocs"
expect_eq "mprof: blocks in use at exit ($m_objs) = the counter's allocations - frees" "$m_objs" "$((c_allocs - c_frees))"

# --- heaptrack ------------------------------------------------------------------------
if ! command -v heaptrack > /dev/null 2>&1 || ! command -v heaptrack_print > /dev/null 2>&1; then
	ok "heaptrack # SKIP heaptrack is not installed (apt-get install heaptrack)"
	exit 0
fi
sq "$TMP/ht.out" heaptrack -o "$TMP/ht"; st=$?
expect_eq "heaptrack: exit status unchanged" "$st" "$plain"
HT=$(ls "$TMP"/ht.zst "$TMP"/ht.gz 2> /dev/null | head -1)
if [ -z "$HT" ]; then
	not_ok "heaptrack: wrote its data file" "$(tail -5 "$TMP/ht.out")" "$(tail -5 "$TMP/ht.out.err")"
	exit 0
fi
# One pass: the summary, every allocation site unmerged (label line, then
# the frames, leaf first, each with an "in MODULE" line), and the leaked
# bytes of every trace as raw integers in the flame-graph file.
heaptrack_print --disable-builtin-suppressions --print-peaks=0 --print-temporary=0 \
	--print-allocators=1 --merge-backtraces=0 --peak-limit=100000000 \
	--print-flamegraph="$TMP/leaked.txt" --flamegraph-cost-type=leaked -f "$HT" > "$TMP/ht.txt" 2> "$TMP/ht.txt.err"
h_calls=$(sed -n 's/^calls to allocation functions: \([0-9]*\) .*/\1/p' "$TMP/ht.txt")
h_leaked_text=$(sed -n 's/^total memory leaked: //p' "$TMP/ht.txt")
h_leaked=$(awk '{ s += $NF } END { printf "%.0f\n", s }' "$TMP/leaked.txt")
h_blocks=$(sed -n 's/^[[:space:]]*leaked allocations:[[:space:]]*\([0-9]*\).*/\1/p' "$TMP/ht.out.err")
# heaptrack_print's formatBytes: divide by 1000 while above 1000, two
# decimals and the unit's first letter; bytes below 1000 without decimals.
fmt=$(awk -v b="$h_leaked" 'BEGIN { split("B K M G T", u, " "); i = 1; v = b
	while (i < 5 && (v > 1000 || v < -1000)) { v /= 1000; i++ }
	if (i == 1) printf "%dB\n", b; else printf "%.2f%s\n", v, u[i] }')
expect_eq "heaptrack: the summary's leaked figure ($h_leaked_text) is the flame graph's total ($h_leaked B) rounded" "$h_leaked_text" "$fmt"
expect_eq "mprof: bytes in use at exit ($m_bytes) = heaptrack's total memory leaked" "$m_bytes" "$h_leaked"
expect_eq "mprof: blocks in use at exit = heaptrack's leaked allocations" "$m_objs" "$h_blocks"

# The one allocation heaptrack sees and the others do not: libstdc++'s.
sq "$TMP/countx.out" COUNT_ALLOCS_OUT="$TMP/countx.txt" LD_PRELOAD="$COUNT libstdc++.so.6"
cx_allocs=$(field allocs "$TMP/countx.txt")
expect_eq "heaptrack: calls to allocation functions ($h_calls) = the counter's with libstdc++.so.6 loaded as heaptrack loads it" "$h_calls" "$cx_allocs"
sq "$TMP/mprofx.out" MPROF_OUT="$TMP/sqx.pro" LD_PRELOAD="$TOP/libmprof.so libstdc++.so.6"
set -- $(total "$TMP/sqx.pro" --alloc)
expect_eq "heaptrack: calls to allocation functions = mprof's with libstdc++.so.6 loaded (one before mprof's constructor)" "$h_calls" "$2"
set -- $(total "$TMP/sqx.pro")
xb=$1
set -- $(total "$TMP/sqx.pro" "" /libstdc++.so)
expect_eq "heaptrack: leaks = mprof's in use with libstdc++.so.6 loaded - libstdc++'s block ($1 B, freed by heaptrack's __freeres)" "$((xb - $1))" "$h_leaked"
h_cxx=$(awk '/^[0-9]+ calls to allocation functions/ { n = $1; leaf = 1; next }
	leaf && /^    in / { if (index($0, "/libstdc++.so")) s += n; leaf = 0 }
	END { printf "%.0f\n", s }' "$TMP/ht.txt")
expect_eq "heaptrack: its calls - the counter's = its calls from a leaf in libstdc++.so.6 (the emergency EH pool)" "$((h_calls - c_allocs))" "$h_cxx"
expect_eq "heaptrack: that is libstdc++'s one initializer allocation" "$h_cxx" 1
expect_eq "counter: no memalign or pvalloc (heaptrack 1.4 does not interpose them)" \
	"$(field memalign "$TMP/count.txt") $(field pvalloc "$TMP/count.txt")" "0 0"
