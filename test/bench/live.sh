#!/bin/sh
# Live: the consumer's ring drain rate, and one refresh of a hooked process
# with about 100,000 stacks (50,000 call paths give that many in the hook's
# table; PATHS=N to change): read the segment, aggregate, re-sort, keep the place.
cd "$(dirname "$0")/../.." || exit 2
[ -x build/tools/bench_live ] || make -s build/tools/bench_live || exit 1
[ -f libmprof.so ] || { echo "live: libmprof.so not built"; exit 1; }
build/tools/bench_live drain 50000000 || exit 1
d=$(mktemp -d /tmp/mprof-bench.XXXXXX)
trap 'touch "$d/go"; sleep 0.2; rm -rf "$d"' EXIT
cc -O1 -g -fno-omit-frame-pointer -o "$d/stacks" test/progs/live_stacks.c || exit 1
MPROF_STACKS=524288 LD_PRELOAD=$PWD/libmprof.so "$d/stacks" "$d/go" "${PATHS:-50000}" > "$d/out" &
pid=$!
n=0
until grep -q ready "$d/out" 2> /dev/null; do
	n=$((n + 1))
	[ $n -gt 600 ] && { echo "live: the target did not start"; kill $pid; exit 1; }
	sleep 0.1
done
build/tools/bench_live refresh $pid 20
