#!/bin/sh
# make bench: runs every test/bench/*.sh; each prints its figures with the
# targets beside them. Figures, not pass/fail: nothing here is timed in CI.
# (redis.sh: redis-server and heaptrack under redis-benchmark, ~5 min; REDIS_BENCH_RUNS=1 shortens it.)
cd "$(dirname "$0")/../.." || exit 2
for b in test/bench/*.sh; do
	[ "$b" = test/bench/run.sh ] && continue
	echo "== $(basename "$b" .sh)"
	sh "$b" || echo "(bench $(basename "$b") failed with status $?)"
done
