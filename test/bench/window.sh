#!/bin/sh
# window.sh - what an open heap window (mprof-tui --window) adds to the
# hook on the malloc benchmark (2 threads, 1,000,000 malloc/free each; every
# block marked, counted in the window counters with atomic adds): CPU of
# the benchmark under the hook with no window and with a window open for
# its whole run, measured back to back, the median of 3 of each.
cd "$(dirname "$0")/../.." || exit 2
TOP=$(pwd)
TMP=$(mktemp -d /tmp/mprof-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
[ -f libmprof.so ] && [ -x mprof-tui ] || { echo "libmprof.so or mprof-tui not built"; exit 1; }
cc -O2 -g -fno-omit-frame-pointer -o "$TMP/bench" test/progs/bench_malloc.c -lpthread || exit 1

# run WINDOW: user+system seconds of one run under the hook; with WINDOW=1
# a window is open on it from before its first allocation to its exit.
run() {
	rm -f "$TMP/go" "$TMP/time" "$TMP/werr"
	/usr/bin/time -o "$TMP/time" -f '%U %S' env LD_PRELOAD="$TOP/libmprof.so" "$TMP/bench" "$TMP/go" > /dev/null 2>&1 &
	bpid=$!
	if [ "$1" = 1 ]; then
		n=0
		while [ ! -e "/dev/shm/mprof-$(pgrep -P $bpid | head -1)" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
		./mprof-tui --window 600 "$(pgrep -P $bpid | head -1)" -o "$TMP/w.pro" 2> "$TMP/werr" &
		wpid=$!
		n=0
		while ! grep -q "window open" "$TMP/werr" 2> /dev/null && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	fi
	touch "$TMP/go"
	wait $bpid
	[ "$1" = 1 ] && wait $wpid
	awk '{ print $1 + $2 }' "$TMP/time" | tail -1
}
median() { sort -n | sed -n 2p; }
: > "$TMP/off"; : > "$TMP/on"
for i in 1 2 3; do
	run 0 >> "$TMP/off"
	run 1 >> "$TMP/on"
done
off=$(median < "$TMP/off")
on=$(median < "$TMP/on")
printf 'hook, no window            %6.2f s CPU (median of %s)\n' "$off" "$(tr '\n' ' ' < "$TMP/off")"
printf 'hook, window open          %6.2f s CPU (median of %s)  %sx   target: none set; the window is for minutes, not always on\n' \
	"$on" "$(tr '\n' ' ' < "$TMP/on")" "$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.2f", a / b }')"
printf 'window saw                 %s\n' "$(sed -n 2p "$TMP/werr" | sed 's/^mprof-tui: //')"
