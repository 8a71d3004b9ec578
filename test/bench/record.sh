#!/bin/sh
# record.sh - recordings (MPROF_RECORD): their size beside heaptrack's file
# of the same run, on the malloc benchmark (2 threads x 1M pairs, as
# malloc.sh runs it) and on Debian's sqlite3 (200,000 inserts, an index, two
# queries); the CPU of recording beside the hook alone on the malloc
# benchmark (RUNS rounds, default 9, each pair run back to back); the time to open a
# large recording and to jump to a moment in it. REC_BENCH_EVENTS (default
# 20,000,000) sizes the large recording (written to a temporary directory,
# removed after).
cd "$(dirname "$0")/../.." || exit 2
TOP=$(pwd)
TMP=$(mktemp -d /tmp/mprof-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
[ -f libmprof.so ] || { echo "libmprof.so not built"; exit 1; }
[ -x build/tools/bench_rec ] || make -s build/tools/bench_rec || exit 1
cc -O2 -g -fno-omit-frame-pointer -o "$TMP/bench" test/progs/bench_malloc.c -lpthread || exit 1
cc -O2 -g -fno-omit-frame-pointer -o "$TMP/work" test/progs/rec_work.c || exit 1

sh test/progs/sqlite_work.sh 200000 > "$TMP/work.sql"
: > "$TMP/init.sql"

size() { du -sb "$1" | cut -f1; }
events() { ./mprof-tui --info "$1" | sed -n 's/^events \([0-9]*\) \.\. \([0-9]*\).*/\2/p'; }
verdict() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx the size of heaptrack file: %s", a / b, a <= b ? "met" : "NOT met"; else print "heaptrack n/a" }'; }
ht_size() {
	rm -f "$TMP"/ht.*
	heaptrack -o "$TMP/ht" "$@" > /dev/null 2>&1 < "${HT_IN:-/dev/null}"
	f=$(ls "$TMP"/ht.* 2> /dev/null | head -1)
	[ -n "$f" ] && size "$f" || echo 0
}
have_ht=0
command -v heaptrack > /dev/null 2>&1 && have_ht=1

LD_PRELOAD="$TOP/libmprof.so" MPROF_RECORD="$TMP/rb" "$TMP/bench" > /dev/null 2>&1
rb=$(size "$TMP/rb") eb=$(events "$TMP/rb")
hb=0
[ $have_ht = 1 ] && hb=$(ht_size "$TMP/bench")
printf 'malloc benchmark: recording %10d bytes (%s events, %.2f bytes/event), heaptrack %10d bytes   %s   target: at or under heaptrack'"'"'s\n' \
	"$rb" "$eb" "$(awk -v a="$rb" -v b="$eb" 'BEGIN { print b ? a / b : 0 }')" "$hb" "$(verdict "$rb" "$hb")"

if command -v sqlite3 > /dev/null 2>&1; then
	env HOME="$TMP" TZ=UTC LD_PRELOAD="$TOP/libmprof.so" MPROF_RECORD="$TMP/rs" \
		sqlite3 -init "$TMP/init.sql" :memory: < "$TMP/work.sql" > /dev/null 2>&1
	rs=$(size "$TMP/rs") es=$(events "$TMP/rs")
	hs=0
	[ $have_ht = 1 ] && hs=$(HOME="$TMP" TZ=UTC HT_IN="$TMP/work.sql" ht_size sqlite3 -init "$TMP/init.sql" :memory:)
	printf 'sqlite3 workload: recording %10d bytes (%s events, %.3f bytes/event), heaptrack %10d bytes   %s   target: at or under heaptrack'"'"'s\n' \
		"$rs" "$es" "$(awk -v a="$rs" -v b="$es" 'BEGIN { print b ? a / b : 0 }')" "$hs" "$(verdict "$rs" "$hs")"
else
	echo "sqlite3 workload: sqlite3 not installed"
fi

# CPU: user + system seconds of one run, to the microsecond
# (test/tools/cputime.c).
cc -O2 -o "$TMP/cputime" test/tools/cputime.c || exit 1
cpu() { "$TMP/cputime" "$@"; }
: > "$TMP/ratios"
RUNS=${RUNS:-9}
for i in $(seq "$RUNS"); do
	h=$(cpu env LD_PRELOAD="$TOP/libmprof.so" "$TMP/bench")
	rm -rf "$TMP/rc"
	r=$(cpu env LD_PRELOAD="$TOP/libmprof.so" MPROF_RECORD="$TMP/rc" "$TMP/bench")
	echo "$h $r" | awk '{ printf "%.3f %s %s\n", $2 / $1, $1, $2 }' >> "$TMP/ratios"
done
# The median of the rounds' own ratios: each pair runs back to back, so a
# machine whose speed drifts over the minute weighs less.
set -- $(sort -n "$TMP/ratios" | sed -n "$(((RUNS + 1) / 2))p")
printf 'recording CPU: %.2fx the hook alone (median of %s rounds: %s s recording, %s s hook alone; all ratios: %s; load average %s)   target: at most 1.25x\n' \
	"$1" "$RUNS" "$3" "$2" "$(cut -d' ' -f1 "$TMP/ratios" | sort -n | tr '\n' ' ')" "$(cut -d' ' -f1 /proc/loadavg)"

set -- $(cpu env LD_PRELOAD="$TOP/libmprof.so" MPROF_RECORD="$TMP/rc" MPROF_SAMPLE=65536 "$TMP/bench")
printf 'hook + record + MPROF_SAMPLE=64K: %s s CPU (hook alone: %s s)\n' "$1" "$h"
rm -rf "$TMP/rc"

# A large recording: rec_work makes 1.9 events per call. A jump decodes
# from the nearest checkpoint (at most max(2^20, 64 x stacks) events back),
# whatever the size of the recording.
n=$(awk -v e="${REC_BENCH_EVENTS:-20000000}" 'BEGIN { printf "%d", e / 1.9 }')
LD_PRELOAD="$TOP/libmprof.so" MPROF_RECORD="$TMP/big" MPROF_RECORD_FILES=1000 "$TMP/work" "$n" 1000 > /dev/null
printf 'large recording: %s bytes in %s files\n' "$(du -sb "$TMP/big" | cut -f1)" "$(ls "$TMP/big" | wc -l)"
sync
build/tools/bench_rec "$TMP/big" 50 | sed 's/^open:/open (page cache warm):/'
echo "target: a large recording opens in seconds; any moment is reached in well under a second"
# Cold cache, when we may drop it (root): the disk's share of the open.
if [ "$(id -u)" = 0 ] && echo 1 > /proc/sys/vm/drop_caches 2> /dev/null; then
	build/tools/bench_rec "$TMP/big" 0 | sed 's/^open:/open (page cache dropped):/; /^jump/d'
fi
