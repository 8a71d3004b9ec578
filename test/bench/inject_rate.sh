#!/bin/sh
# Leak rate seen after an injection and over a live diff: inject_target and
# live_leaker leak 100,000 B/s; the growth between two snapshots 2 s apart,
# as B/s beside that. A figure, not a check: make check tests the growth exactly.
cd "$(dirname "$0")/../.." || exit 2
[ -x mprof-tui ] && [ -f libmprof.so ] || { echo "inject_rate: mprof-tui or libmprof.so not built"; exit 1; }
d=$(mktemp -d /tmp/mprof-bench.XXXXXX)
trap 'touch "$d/stop"; sleep 0.2; rm -rf "$d"' EXIT
now_ms() { date +%s%3N; }
inuse() { ./mprof-tui --top=flat --format=tsv "$1" 2> /dev/null | awk -F '\t' -v f="$2" '$5 == f { print $1 }'; }
# rate WHAT PID FUNCTION: two snapshots 2 s apart, the function's growth per second.
rate() {
	t1=$(now_ms)
	./mprof-tui --snapshot "$2" -o "$d/s1.pro" > /dev/null 2>&1
	sleep 2
	t2=$(now_ms)
	./mprof-tui --snapshot "$2" -o "$d/s2.pro" > /dev/null 2>&1
	a=$(inuse "$d/s1.pro" "$3")
	b=$(inuse "$d/s2.pro" "$3")
	if [ -n "$a" ] && [ -n "$b" ]; then
		echo "$1: $(( (b - a) * 1000 / (t2 - t1) )) B/s (leaks 100,000 B/s)"
	else
		echo "$1: $3 not found in the snapshots"
	fi
}
if [ "$(uname -m)" = x86_64 ]; then
	cc -O1 -g -pthread -o "$d/inject_target" test/progs/inject_target.c || exit 1
	"$d/inject_target" 10 x "$d/stop" > "$d/inject.out" 2>&1 &
	pid=$!
	n=0
	while [ ! -s "$d/inject.out" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	./mprof-tui --inject "$pid" > /dev/null || exit 1
	sleep 0.5
	rate "injected" "$pid" leak_fn
fi
cc -O1 -g -fno-omit-frame-pointer -o "$d/leaker" test/progs/live_leaker.c || exit 1
LD_PRELOAD=$PWD/libmprof.so "$d/leaker" "$d/stop" 10 > "$d/leaker.out" 2>&1 &
pid=$!
n=0
while [ ! -e /dev/shm/mprof-$pid ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
sleep 0.5
rate "preloaded" "$pid" leak_here
