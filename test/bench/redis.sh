#!/bin/sh
# redis.sh - throughput of Debian's redis-server (jemalloc) under
# redis-benchmark (-n 300000 -c 50 -t set,get -P 1, on 127.0.0.1) on a
# fresh server each: plain, under LD_PRELOAD=libmprof.so, after
# mprof-tui --inject, under heaptrack; requests/s and the ratio to plain
# (throughput: 1.00x is no cost, higher is better).  The benchmark client
# shares the 2 cores with the server (and heaptrack with its interpreter);
# loopback throughput on a shared VM moves by +-30 % from run to run, so
# each figure is the best of REDIS_BENCH_RUNS (default 3) benchmark runs
# against the same server, with the range of the runs beside it.  A slower
# server can even serve more requests per second (more requests wait per
# wake-up: fewer system calls each; the system time per request drops
# too), so the line also gives the user CPU time per request over all the
# runs, of the server and of heaptrack's interpreter and compressor (which
# do its work in other processes), and its ratio to plain's: the hooks'
# cost is user time.
cd "$(dirname "$0")/../.." || exit 2
TOP=$(pwd)
TMP=$(mktemp -d /tmp/mprof-bench.XXXXXX)
PIDS=""
stop_all() {
	for p in $PIDS; do kill -TERM "$p" 2> /dev/null; done
	n=0
	for p in $PIDS; do
		while kill -0 "$p" 2> /dev/null && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
		kill -KILL "$p" 2> /dev/null
		rm -f "/dev/shm/mprof-$p"
	done
}
trap 'stop_all; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP
[ -f libmprof.so ] || { echo "libmprof.so not built"; exit 1; }
for c in redis-server redis-cli redis-benchmark; do
	command -v $c > /dev/null 2>&1 || { echo "redis: $c is not installed (apt-get install redis-server redis-tools)"; exit 0; }
done

# free_port: a TCP port with no line in /proc/net/tcp*.
free_port() {
	i=0
	while [ $i -lt 50 ]; do
		p=$(( 20000 + ($$ * 131 + i * 7919 + $(date +%N | sed 's/^0*//;s/^$/0/') % 1000) % 40000 ))
		cat /proc/net/tcp /proc/net/tcp6 2> /dev/null | grep -q "$(printf ':%04X ' "$p")" || { echo "$p"; return; }
		i=$((i + 1))
	done
	echo 0
}

# start [PREFIX...]: a fresh redis-server (behind PREFIX: env ... or
# heaptrack -o FILE); sets PORT, RPID (the server) and WPID (what was
# started: the server or heaptrack's script). Returns 1 if it never answered.
start() {
	PORT=$(free_port)
	"$@" redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$TMP" \
		--logfile "$TMP/redis.log" > "$TMP/start.out" 2>&1 &
	WPID=$!
	PIDS="$PIDS $WPID"
	n=0
	while [ "$(redis-cli -p "$PORT" PING 2> /dev/null)" != PONG ]; do
		kill -0 "$WPID" 2> /dev/null && [ $n -lt 300 ] || return 1
		sleep 0.05; n=$((n + 1))
	done
	RPID=$(redis-cli -p "$PORT" INFO server | tr -d '\r' | sed -n 's/^process_id://p')
	PIDS="$PIDS $RPID"
}
# stop: SHUTDOWN NOSAVE, then waits for what start started (heaptrack
# interprets what is left of its data: 120 s at most).
stop() {
	redis-cli -p "$PORT" SHUTDOWN NOSAVE > /dev/null 2>&1
	n=0
	while kill -0 "$WPID" 2> /dev/null && [ $n -lt 1200 ]; do sleep 0.1; n=$((n + 1)); done
	if kill -0 "$WPID" 2> /dev/null; then
		kill -KILL "$WPID" "$RPID" 2> /dev/null
		echo "(redis-server $RPID did not exit: killed)"
	fi
	rm -f "/dev/shm/mprof-$RPID"
	PIDS=""
}
# ticks: user CPU ticks used so far by the server and, under heaptrack,
# by everything its script started (interpreter, compressor).
ticks() {
	ps=$RPID
	[ "$WPID" != "$RPID" ] && ps="$ps $(pgrep -P "$WPID" | grep -vx "$RPID")"
	for p in $ps; do sed 's/.*) //' "/proc/$p/stat" 2> /dev/null; done | awk '{ t += $12 } END { print t + 0 }'
}
# bench: "SET GET SETRANGE GETRANGE US": the best requests per second of
# RUNS benchmark runs and "min-max" of each ("-" when a run failed), and
# the user CPU microseconds per request over all of them.
RUNS=${REDIS_BENCH_RUNS:-3}
HZ=$(getconf CLK_TCK)
bench() {
	: > "$TMP/rps"
	t0=$(ticks)
	r=0
	while [ $r -lt "$RUNS" ]; do
		r=$((r + 1))
		timeout 300 redis-benchmark -p "$PORT" -q -n 300000 -c 50 -t set,get -P 1 2>&1 | tr '\r' '\n' > "$TMP/bench.out"
		s=$(sed -n 's/^ *SET: \([0-9.]*\) requests per second.*/\1/p' "$TMP/bench.out" | tail -1)
		g=$(sed -n 's/^ *GET: \([0-9.]*\) requests per second.*/\1/p' "$TMP/bench.out" | tail -1)
		echo "${s:-0} ${g:-0}" >> "$TMP/rps"
	done
	t1=$(ticks)
	awk -v t="$((t1 - t0))" -v hz="$HZ" -v n="$((RUNS * 600000))" 'NR == 1 { s0 = s1 = $1; g0 = g1 = $2 }
		{ if ($1 < s0) s0 = $1; if ($1 > s1) s1 = $1; if ($2 < g0) g0 = $2; if ($2 > g1) g1 = $2 }
		END { printf "%s %s %.0f-%.0f %.0f-%.0f %.2f\n", s0 ? sprintf("%.0f", s1) : "-", g0 ? sprintf("%.0f", g1) : "-",
			s0, s1, g0, g1, t / hz * 1e6 / n }' "$TMP/rps"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2fx", a / b; else print "n/a" }'; }
# line NAME SET GET SETRANGE GETRANGE US: requests/s, user CPU per request
# and the ratios to plain.
line() {
	printf '%-19s SET %6s req/s %5s (%s)  GET %6s req/s %5s (%s)  user CPU %5s us/req %5s\n' "$1" \
		"$2" "$(ratio "$2" "$PS")" "$4" "$3" "$(ratio "$3" "$PG")" "$5" "$6" "$(ratio "$6" "$PU")"
}

echo "redis-benchmark -n 300000 -c 50 -t set,get -P 1: best of $RUNS runs (range) and its ratio to plain's;"
echo "user CPU: the server's (and heaptrack's helpers') user time per request over the runs, and its ratio to plain's"
if start; then
	set -- $(bench); PS=$1 PG=$2 PU=$5
	stop
	line plain "$@"
else
	echo "plain: redis-server did not start: $(tail -2 "$TMP/redis.log" 2> /dev/null)"
	exit 0
fi

if start env LD_PRELOAD="$TOP/libmprof.so"; then
	set -- $(bench); stop
	line "mprof (LD_PRELOAD)" "$@"
else
	echo "mprof (LD_PRELOAD): redis-server did not start: $(tail -2 "$TMP/start.out")"
fi

if start; then
	if timeout 60 ./mprof-tui --inject "$RPID" > "$TMP/inject.out" 2>&1; then
		set -- $(bench)
		line "mprof (--inject)" "$@"
	else
		echo "mprof (--inject): the injection failed: $(tail -1 "$TMP/inject.out")"
	fi
	stop
fi

if command -v heaptrack > /dev/null 2>&1; then
	if start heaptrack -o "$TMP/ht"; then
		set -- $(bench); stop
		line heaptrack "$@"
	else
		echo "heaptrack: redis-server did not start: $(tail -2 "$TMP/start.out")"
	fi
else
	echo "heaptrack: not installed"
fi
