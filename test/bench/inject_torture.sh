#!/bin/sh
# inject_torture [CYCLES [PER_TARGET]]: mprof-tui --inject then --detach,
# CYCLES times (default 334) into inject_target in its busy mode (every
# thread always in malloc/free) linked with glibc, jemalloc and tcmalloc, a
# fresh target every PER_TARGET cycles (default 10: its first injection
# dlopens the hook, the others switch it back on).  Counts the targets that
# died (any end but their own exit with status 7, or a cycle that finds the
# target gone) and the commands that failed; prints one line per allocator
# and a total, with the target beside them: deaths 0.  INJECT_TORTURE_ALLOCS
# picks allocators (default "glibc jemalloc tcmalloc").  A command may fail
# (a safe moment not found within MPROF_INJECT_TIMEOUT): its stop still
# arms and releases every thread, so it counts as a cycle.  make check runs
# it shortened (test/integration/inject_torture.sh).
cd "$(dirname "$0")/../.." || exit 2
[ "$(uname -m)" = x86_64 ] || { echo "inject_torture: x86_64 only"; exit 0; }
[ -x mprof-tui ] && [ -f libmprof.so ] || { echo "inject_torture: mprof-tui or libmprof.so not built"; exit 1; }
cycles=${1:-334}
per=${2:-10}
d=$(mktemp -d /tmp/mprof-bench.XXXXXX)
trap 'touch "$d/stop"; sleep 0.3; rm -rf "$d"' EXIT
M=$PWD/mprof-tui

# start N: a busy target in the background (no hook); PID, its status in $d/N.st.
start() {
	( exec 2> /dev/null; "$d/target_$lib" 900 busy "$d/stop$1" > "$d/$1.out" 2>&1; echo $? > "$d/$1.st" ) &
	n=0
	while [ ! -s "$d/$1.out" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	PID=$(head -1 "$d/$1.out")
}
# finish N: stops the target, waits for its end; 1 when it died.
finish() {
	touch "$d/stop$1"
	n=0
	while [ ! -s "$d/$1.st" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
	st=$(cat "$d/$1.st" 2> /dev/null)
	[ "$st" = 7 ] && tail -1 "$d/$1.out" | grep -q '^inject_target: leaked' && return 0
	echo "  target $1 ($lib, pid $PID): status ${st:-none} $(tail -1 "$d/$1.out")"
	return 1
}

total=0 dead=0 bad=0 t0=$(date +%s)
for name in ${INJECT_TORTURE_ALLOCS:-glibc jemalloc tcmalloc}; do
	case $name in glibc) lib=c ;; tcmalloc) lib=tcmalloc_minimal ;; *) lib=$name ;; esac
	if ! cc -O1 -g -pthread -o "$d/target_$lib" test/progs/inject_target.c -l$lib 2> /dev/null; then
		echo "$name: cannot link -l$lib (make deps installs it)"
		bad=$((bad + 1))
		continue
	fi
	i=0 deaths=0 fails=0 k=0 s=$(date +%s)
	while [ $i -lt "$cycles" ]; do
		k=$((k + 1))
		start "$name$k"
		j=0
		while [ $j -lt "$per" ] && [ $i -lt "$cycles" ]; do
			i=$((i + 1))
			j=$((j + 1))
			for op in inject detach; do
				timeout 60 "$M" --$op "$PID" > /dev/null 2> "$d/err" ||
					{ fails=$((fails + 1)); echo "  cycle $i ($name), --$op: $(cat "$d/err")"; }
			done
			kill -0 "$PID" 2> /dev/null || break   # died: counted by finish
		done
		finish "$name$k" || deaths=$((deaths + 1))
	done
	echo "$name: $i cycles on $k targets, $(( ($(date +%s) - s) )) s: deaths $deaths (target 0), failed commands $fails"
	total=$((total + i))
	dead=$((dead + deaths))
	bad=$((bad + fails))
done
echo "all: $total cycles, $(( $(date +%s) - t0 )) s: deaths $dead (target 0), failed commands $bad"
[ "$dead" = 0 ]
