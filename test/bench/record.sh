#!/bin/sh
# record.sh - recording (MPROF_RECORD): CPU cost on the malloc benchmark
# beside the hook alone; the time to open a large recording and to jump to
# a moment in it. REC_BENCH_MB (default 1024) sizes the large recording
# (written to a temporary directory, removed after).
cd "$(dirname "$0")/../.." || exit 2
TOP=$(pwd)
TMP=$(mktemp -d /tmp/mprof-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
[ -f libmprof.so ] || { echo "libmprof.so not built"; exit 1; }
[ -x build/tools/bench_rec ] || make -s build/tools/bench_rec || exit 1
cc -O2 -g -fno-omit-frame-pointer -o "$TMP/bench" test/progs/bench_malloc.c -lpthread || exit 1
cc -O2 -g -fno-omit-frame-pointer -o "$TMP/work" test/progs/rec_work.c || exit 1

# cpu CMD...: user+system seconds (best of 3), wall seconds of that run.
cpu() {
	best=""
	for i in 1 2 3; do
		rm -rf "$TMP/rec"
		/usr/bin/time -o "$TMP/time" -f '%U %S %e' "$@" > /dev/null 2>&1
		t=$(tail -1 "$TMP/time" | awk '{ print $1 + $2 }')
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$t
			wall=$(tail -1 "$TMP/time" | awk '{ print $3 }')
		fi
	done
	echo "$best $wall"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

set -- $(cpu "$TMP/bench"); plain=$1
set -- $(cpu env LD_PRELOAD="$TOP/libmprof.so" "$TMP/bench"); hook=$1 hookw=$2
set -- $(cpu env LD_PRELOAD="$TOP/libmprof.so" MPROF_RECORD="$TMP/rec" "$TMP/bench"); rec=$1 recw=$2
set -- $(cpu env LD_PRELOAD="$TOP/libmprof.so" MPROF_RECORD="$TMP/rec" MPROF_SAMPLE=65536 "$TMP/bench"); smp=$1
bytes=$(du -sb "$TMP/rec" | cut -f1)
printf 'plain                          %6.2f s CPU\n' "$plain"
printf 'hook alone                     %6.2f s CPU  %sx plain   (%s s wall)\n' "$hook" "$(ratio "$hook" "$plain")" "$hookw"
printf 'hook + MPROF_RECORD            %6.2f s CPU  %sx plain, %sx the hook alone   (%s s wall)   target: recording adds little to the hook\n' \
	"$rec" "$(ratio "$rec" "$plain")" "$(ratio "$rec" "$hook")" "$recw"
printf 'hook + record + MPROF_SAMPLE=64K %4.2f s CPU  %sx plain\n' "$smp" "$(ratio "$smp" "$plain")"
rm -rf "$TMP/rec"
LD_PRELOAD="$TOP/libmprof.so" MPROF_RECORD="$TMP/rec" "$TMP/bench" > /dev/null 2>&1
./mprof-tui --info "$TMP/rec" | sed -n 's/^waits/recording of the benchmark: waits/p; s/^events/recording of the benchmark: events/p'
echo "  ($(du -sb "$TMP/rec" | cut -f1) bytes)"
rm -rf "$TMP/rec"

# A large recording: rec_work writes 32 bytes per event, 1.9 events per call.
mb=${REC_BENCH_MB:-1024}
n=$(awk -v mb="$mb" 'BEGIN { printf "%d", mb * 1048576 / 32 / 1.9 }')
LD_PRELOAD="$TOP/libmprof.so" MPROF_RECORD="$TMP/big" MPROF_RECORD_FILES=1000 "$TMP/work" "$n" 1000 > /dev/null
printf 'large recording: %s bytes in %s files\n' "$(du -sb "$TMP/big" | cut -f1)" "$(ls "$TMP/big" | wc -l)"
sync
build/tools/bench_rec "$TMP/big" 50 | sed 's/^open:/open (page cache warm):/'
echo "target: a large recording opens in seconds; any moment is reached in well under a second"
# Cold cache, when we may drop it (root): the disk's share of the open.
if [ "$(id -u)" = 0 ] && echo 1 > /proc/sys/vm/drop_caches 2> /dev/null; then
	build/tools/bench_rec "$TMP/big" 0 | sed 's/^open:/open (page cache dropped):/; /^jump/d'
fi
