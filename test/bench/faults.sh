#!/bin/sh
# faults.sh - the slowdown of a page-fault-heavy program (512 MiB of fresh
# pages, 131072 faults, 12 frames deep) under mprof-tui --faults, beside
# perf record -e page-faults -c 1 -g --call-graph=dwarf's (which only
# copies the stacks into perf.data; perf report unwinds them later: that
# time is shown too).  Wall seconds, median of 3, each run back to back.
cd "$(dirname "$0")/../.." || exit 2
TMP=$(mktemp -d /tmp/mprof-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
MPROF=${MPROF_BIN:-$(pwd)/mprof-tui}
cc -O2 -g -o "$TMP/heavy" test/progs/faults_heavy.c || exit 1
if ! "$MPROF" --faults -o "$TMP/probe.pro" -- true 2> "$TMP/probe.err"; then
	echo "faults: skipped: $(cat "$TMP/probe.err")"
	exit 0
fi
# wall CMD...: elapsed seconds of CMD.
wall() {
	/usr/bin/time -o "$TMP/time" -f '%e' "$@" > /dev/null 2>> "$TMP/log"
	tail -1 "$TMP/time"
}
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
have_perf=0
command -v perf > /dev/null 2>&1 && perf record -q -o "$TMP/p.data" -e page-faults -c 1 -- true > /dev/null 2>&1 && have_perf=1
p="" m="" r="" rr=""
for i in 1 2 3; do
	p="$p $(wall "$TMP/heavy")"
	m="$m $(wall "$MPROF" --faults -o "$TMP/h.pro" -- "$TMP/heavy")"
	if [ $have_perf = 1 ]; then
		r="$r $(wall perf record -q -o "$TMP/p.data" -e page-faults -c 1 -g --call-graph=dwarf -- "$TMP/heavy")"
		rr="$rr $(wall perf report -i "$TMP/p.data" --stdio --no-children)"
	fi
done
P=$(median $p)
M=$(median $m)
printf 'plain                          %6.2f s\n' "$P"
printf 'mprof-tui --faults             %6.2f s  %sx   target: no more than perf record'"'"'s slowdown\n' "$M" "$(ratio "$M" "$P")"
grep '^mprof-tui:' "$TMP/log" | tail -1 | sed 's/^mprof-tui: /  (last run: /; s/$/)/'
if [ $have_perf = 1 ]; then
	R=$(median $r)
	RR=$(median $rr)
	printf 'perf record -g --call-graph=dwarf %5.2f s  %sx   (stacks copied, not unwound)\n' "$R" "$(ratio "$R" "$P")"
	printf '  + perf report to unwind them %6.2f s  %sx in all\n' "$RR" "$(ratio "$(awk -v a="$R" -v b="$RR" 'BEGIN { print a + b }')" "$P")"
else
	echo "perf: not usable here (linux-perf, perf_event_paranoid)"
fi

# lost [RUNAS...]: faults_heavy 1024 under --faults beside two busy loops;
# the samples lost, of how many, and the wall time.
lost() {
	sh -c 'while :; do :; done' & b1=$!
	sh -c 'while :; do :; done' & b2=$!
	/usr/bin/time -o "$TMP/time" -f '%e' "$@" "$MPROF" --faults -o "$TMP/g.pro" -- "$TMP/heavy" 1024 > /dev/null 2> "$TMP/g.err"
	kill $b1 $b2
	wait $b1 $b2 2> /dev/null
	sed -n 's/.*: \([0-9]*\) page faults .*, \([0-9]*\) samples lost.*/\1 \2/p' "$TMP/g.err" |
		awk -v t="$(tail -1 "$TMP/time")" '{ printf "%d of %d samples lost (%.2f %%), %.1f s   target: < 1 %%\n", $2, $1 + $2, 100 * $2 / ($1 + $2), t }'
	grep -q 'samples lost' "$TMP/g.err" || sed 's/^/  /' "$TMP/g.err"
}
chmod 755 "$TMP"
for i in 1 2 3; do
	printf '1 GiB beside two busy loops, as %s: ' "$(id -un)"
	lost
	if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
		rm -f "$TMP/g.pro"
		chmod 1777 "$TMP"
		printf '1 GiB beside two busy loops, as uid 65534: '
		lost setpriv --reuid=65534 --regid=65534 --clear-groups
		chmod 755 "$TMP"
	fi
done
