#!/bin/sh
# malloc.sh - CPU cost of libmprof.so on a malloc benchmark (2 threads,
# 1,000,000 malloc/free each, 16 B - 4 KiB, ~20 frames deep, 10,000 live
# blocks per thread), as ratios to the plain run: first plain, sampled at
# 512 KiB (MPROF_SAMPLE=524288, jemalloc's default rate) and full capture
# run back to back, RUNS rounds (default 11); each round's ratio, and the
# median of those (the machine may be shared: a round puts the same load on
# each of its runs); then frame pointers,
# heaptrack's ratio; then the same benchmark on jemalloc, dynamic
# (-ljemalloc, interposed) and static with its API renamed je_* (skynet's
# way: hooked at its entry points), each beside its own plain run.
cd "$(dirname "$0")/../.." || exit 2
TOP=$(pwd)
TMP=$(mktemp -d /tmp/mprof-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
[ -f libmprof.so ] || { echo "libmprof.so not built"; exit 1; }
cc -O2 -g -fno-omit-frame-pointer -o "$TMP/bench" test/progs/bench_malloc.c -lpthread || exit 1

# cpu CMD...: user+system seconds of CMD and its children (best of 3).
cpu() {
	best=""
	for i in 1 2 3; do
		/usr/bin/time -o "$TMP/time" -f '%U %S' "$@" > /dev/null 2>&1
		t=$(tail -1 "$TMP/time" | awk '{ print $1 + $2 }')
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
	done
	echo "$best"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }

# once CMD...: user+system seconds of one run of CMD, to the microsecond.
cc -O2 -o "$TMP/cputime" test/tools/cputime.c || exit 1
once() {
	"$TMP/cputime" "$@"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
RUNS=${RUNS:-11}
: > "$TMP/p"; : > "$TMP/s"; : > "$TMP/f"; : > "$TMP/rs"; : > "$TMP/rf"
for i in $(seq "$RUNS"); do
	p=$(once "$TMP/bench")
	s=$(once env LD_PRELOAD="$TOP/libmprof.so" MPROF_SAMPLE=524288 "$TMP/bench")
	f=$(once env LD_PRELOAD="$TOP/libmprof.so" "$TMP/bench")
	echo "$p" >> "$TMP/p"; echo "$s" >> "$TMP/s"; echo "$f" >> "$TMP/f"
	ratio "$s" "$p" >> "$TMP/rs"; echo >> "$TMP/rs"
	ratio "$f" "$p" >> "$TMP/rf"; echo >> "$TMP/rf"
done
plain=$(median < "$TMP/p")
smp=$(median < "$TMP/s")
unw=$(median < "$TMP/f")
# The ratio: the median of each round's own ratio (its runs are seconds
# apart), so a machine whose speed drifts over the minute weighs less.
rs=$(grep . "$TMP/rs" | median)
rf=$(grep . "$TMP/rf" | median)
fp=$(cpu env LD_PRELOAD="$TOP/libmprof.so" MPROF_UNWIND=fp "$TMP/bench")
echo "plain, sampled, full: $RUNS rounds back to back, median CPU and median of the rounds' ratios (load average $(cut -d' ' -f1 /proc/loadavg))"
printf 'plain                     %6.2f s CPU\n' "$plain"
printf 'mprof MPROF_SAMPLE=512K   %6.2f s CPU  %sx   target: at most 1.10x, aiming at 1.05x\n' "$smp" "$rs"
printf 'mprof (libunwind)         %6.2f s CPU  %sx   target: under a third of heaptrack'"'"'s ratio (~2.8x)\n' "$unw" "$rf"
printf 'mprof (MPROF_UNWIND=fp)   %6.2f s CPU  %sx   target: same\n' "$fp" "$(ratio "$fp" "$plain")"
if command -v heaptrack > /dev/null 2>&1; then
	ht=$(cpu heaptrack -o "$TMP/ht" "$TMP/bench")
	r=$(ratio "$ht" "$plain")
	printf 'heaptrack                 %6.2f s CPU  %sx   (a third of it: %sx)\n' "$ht" "$r" \
		"$(awk -v r="$r" 'BEGIN { printf "%.2f", r / 3 }')"
else
	echo "heaptrack: not installed"
fi

# jemalloc: dynamic, and static je_-prefixed (test/tools/je_prefixed.sh).
if cc -O2 -g -fno-omit-frame-pointer -o "$TMP/bench_je" test/progs/bench_malloc.c -ljemalloc -lpthread 2> /dev/null &&
	sh test/tools/je_prefixed.sh "$TMP/libje.a" &&
	cc -O2 -g -fno-omit-frame-pointer -Dmalloc=je_malloc -Dfree=je_free -Dcalloc=je_calloc \
		-o "$TMP/bench_sje" test/progs/bench_malloc.c "$TMP/libje.a" -lpthread -lm -ldl; then
	dp=$(cpu "$TMP/bench_je")
	dh=$(cpu env LD_PRELOAD="$TOP/libmprof.so" "$TMP/bench_je")
	sp=$(cpu "$TMP/bench_sje")
	sh_=$(cpu env LD_PRELOAD="$TOP/libmprof.so" "$TMP/bench_sje")
	printf 'jemalloc dynamic plain    %6.2f s CPU\n' "$dp"
	printf 'jemalloc dynamic, mprof   %6.2f s CPU  %sx   (interposed)\n' "$dh" "$(ratio "$dh" "$dp")"
	printf 'jemalloc static je_ plain %6.2f s CPU\n' "$sp"
	printf 'jemalloc static je_, mprof %5.2f s CPU  %sx   (entry-patched; target: as the dynamic one)\n' "$sh_" "$(ratio "$sh_" "$sp")"
else
	echo "jemalloc: cannot build the benchmark with it (libjemalloc-dev)"
fi
