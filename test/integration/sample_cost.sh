#!/bin/sh
# sample_cost.sh - what the sampled path costs a call, counted exactly:
# the malloc benchmark (test/progs/bench_malloc.c: 2 threads x 1,000,000
# malloc/free) under MPROF_SAMPLE=524288 in callgrind, whose instruction
# counts do not swing with the machine's load as CPU times do.  The hook's
# own instructions in malloc and free (their inlined parts, not the
# allocator's nor the slow paths taken when a block is sampled) per call:
# malloc at most 16 (the countdown: one compare and a store), free at most
# 24 (sfilt.h's byte; live.c's hashed filter took 47).  Skipped without
# valgrind.
. "$(dirname "$0")/../lib.sh"
if ! command -v valgrind > /dev/null 2>&1 || ! command -v callgrind_annotate > /dev/null 2>&1; then
	ok "sampled malloc and free per call # SKIP valgrind not installed"
	exit 0
fi
cc -O2 -g -fno-omit-frame-pointer -o "$TMP/bench" "$TOP/test/progs/bench_malloc.c" -lpthread ||
	{ not_ok "build bench_malloc"; exit 0; }
env LD_PRELOAD="$TOP/libmprof.so" MPROF_SAMPLE=524288 MPROF_SAMPLE_SEED=7 \
	valgrind --tool=callgrind --callgrind-out-file="$TMP/cg" "$TMP/bench" > "$TMP/vg.out" 2>&1 ||
	{ not_ok "bench_malloc under callgrind" "$(tail -3 "$TMP/vg.out")"; exit 0; }
callgrind_annotate --inclusive=no --threshold=100 "$TMP/cg" > "$TMP/ann" 2>&1

# per FN: the hook's own instructions in FN (its lines from the hook's
# sources: attach/ and core/, inlined headers included) per call.
per() {
	awk -v fn="$1" -v calls=2000000 '
		$0 !~ /=>/ && $0 ~ ("[ /](attach|core)/[^ ]*:" fn "( |$)") { gsub(",", "", $1); s += $1 }
		END { printf "%.1f\n", s / calls }' "$TMP/ann"
}
m=$(per malloc)
f=$(per free)
if awk -v v="$m" 'BEGIN { exit !(v > 0 && v <= 16) }'; then
	ok "sampled malloc: $m instructions of the hook per call (at most 16)"
else
	not_ok "sampled malloc: $m instructions of the hook per call (at most 16)" "$(grep -E ':malloc( |$)' "$TMP/ann")"
fi
if awk -v v="$f" 'BEGIN { exit !(v > 0 && v <= 24) }'; then
	ok "sampled free: $f instructions of the hook per call (at most 24)"
else
	not_ok "sampled free: $f instructions of the hook per call (at most 24)" "$(grep -E ':free( |$)' "$TMP/ann")"
fi
