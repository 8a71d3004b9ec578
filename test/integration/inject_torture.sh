#!/bin/sh
# inject_torture: mprof-tui --inject and --detach over and over into
# targets whose threads never leave malloc/free, under glibc, jemalloc and
# tcmalloc at once: no target may die.  test/bench/inject_torture.sh,
# shortened (INJECT_TORTURE_CYCLES per allocator, default 16; the bench
# itself runs 1,000 and more).  A command that finds no safe moment within
# MPROF_INJECT_TIMEOUT (2 s here: a loaded machine) fails without harm and
# is counted apart: its stop armed and let go every thread all the same.
. "$(dirname "$0")/../lib.sh"

if [ "$(uname -m)" != x86_64 ]; then
	ok "inject torture # SKIP injection is x86_64 only"
	exit 0
fi
n=${INJECT_TORTURE_CYCLES:-16}
for a in glibc jemalloc tcmalloc; do
	INJECT_TORTURE_ALLOCS=$a MPROF_INJECT_TIMEOUT=${MPROF_INJECT_TIMEOUT:-2000} \
		sh "$TOP/test/bench/inject_torture.sh" "$n" 8 > "$TMP/$a.out" 2>&1 &
done
wait
for a in glibc jemalloc tcmalloc; do
	line=$(grep "^$a: " "$TMP/$a.out")
	expect_match "torture $a: $n inject/detach cycles, no target died ($line)" "$line" "^$a: $n cycles .*: deaths 0 "
	grep -q '^  target ' "$TMP/$a.out" && not_ok "torture $a: the targets that died" "$(grep '^  target ' "$TMP/$a.out")"
done
exit 0
