#!/bin/sh
# Analyzer: load + flat + cum of a 1,000,000-bucket v1 profile; then, when
# MPROF_GO_READER names a build of skynet-mprof's own reader (mprof.go, go
# build; not shipped here), load + flat against it side by side: ROUNDS
# rounds (default 7) of both, wall and CPU, the median of each round's ratio.
cd "$(dirname "$0")/../.." || exit 2
. test/bench/bigpro.inc
f=$BIG
build/tools/bench_load "$f"
build/tools/bench_load "$f" | sed -n 2,3p | sed 's/^/(warm) /'
MPROF_LOAD_THREADS=1 build/tools/bench_load "$f" | sed -n 2p | sed 's/^/(one thread, MPROF_LOAD_THREADS=1) /'
[ -n "$MPROF_GO_READER" ] || { echo "skynet-mprof's Go reader: MPROF_GO_READER not set, not compared"; exit 0; }
TMP=$(mktemp -d /tmp/mprof-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# run NAME CMD...: appends "wall cpu" of one run to $TMP/NAME.
run() {
	n=$1; shift
	/usr/bin/time -o "$TMP/t" -f '%e %U %S' "$@" > /dev/null 2>&1 || { echo "failed: $*"; exit 1; }
	awk '{ print $1, $2 + $3 }' "$TMP/t" >> "$TMP/$n"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for i in $(seq "${ROUNDS:-7}"); do
	run go "$MPROF_GO_READER" -i "$f" -top flat
	run m ./mprof-tui --no-symbols --top=flat "$f"
done
paste "$TMP/m" "$TMP/go" | awk '{ print $1 / $3 }' | median > "$TMP/rw"
paste "$TMP/m" "$TMP/go" | awk '{ print $2 / $4 }' | median > "$TMP/rc"
echo "load + flat (mprof-tui --no-symbols --top=flat vs mprof -i FILE -top flat), ${ROUNDS:-7} rounds, load average $(cut -d' ' -f1 /proc/loadavg):"
printf 'Go reader  %.2f s wall, %.2f s CPU (medians)\n' "$(cut -d' ' -f1 "$TMP/go" | median)" "$(cut -d' ' -f2 "$TMP/go" | median)"
printf 'mprof-tui  %.2f s wall, %.2f s CPU (medians)\n' "$(cut -d' ' -f1 "$TMP/m" | median)" "$(cut -d' ' -f2 "$TMP/m" | median)"
printf 'ratio      %.2fx wall, %.2fx CPU   target: at most 0.35x\n' "$(cat "$TMP/rw")" "$(cat "$TMP/rc")"
