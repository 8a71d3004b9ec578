#!/bin/sh
# make bench: runs every test/bench/*.sh; each prints its figures with the
# targets beside them. Figures, not pass/fail: nothing here is timed in CI.
# (redis.sh: redis-server and heaptrack under redis-benchmark, ~5 min; REDIS_BENCH_RUNS=1 shortens it.
# inject_torture.sh: 1,002 inject/detach cycles, an hour or more on a loaded 2-core machine; 340 per
# allocator, the three at once with MPROF_INJECT_TIMEOUT=2000, took 21 min.)
cd "$(dirname "$0")/../.." || exit 2
for b in test/bench/*.sh; do
	[ "$b" = test/bench/run.sh ] && continue
	echo "== $(basename "$b" .sh)"
	sh "$b" || echo "(bench $(basename "$b") failed with status $?)"
done
