#!/bin/sh
# faults_tui: mprof-tui --faults --attach PID in a real terminal: the pages
# view of a process under the hook fills as its threads touch 24 MiB, v
# switches to its heap (the 80 MiB malloc) and back, w and W write the one
# shown, q leaves.
. "$(dirname "$0")/../lib.sh"

cc -O2 -g -pthread -o "$TMP/ft" "$TOP/test/progs/faults_touch.c" || { not_ok "build faults_touch"; exit 0; }
faults_or_skip
run_status "$MPROF" --faults --attach $$ < /dev/null
expect_eq "without a terminal: one line, exit 2" "$STATUS $ERR" \
	"2 mprof-tui: the pages view needs a terminal (for a file: --faults $$ -o FILE)"

. "$TOP/test/tmux.sh"
LIB=$(dirname "$MPROF")/libmprof.so
[ -f "$LIB" ] || LIB=$TOP/libmprof.so
mkfifo "$TMP/go"
( exec 3<> "$TMP/go"; LD_PRELOAD=$LIB timeout 60 "$TMP/ft" wait <&3 > "$TMP/w.out" 2>&1 ) &
n=0
while [ ! -s "$TMP/w.out" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
PID=$(head -1 "$TMP/w.out")

tmux_start 150 30 "$TMP"
keys "'$MPROF' --faults --attach $PID --interval 200; echo EXIT=\$?" Enter
check "pages: the view opens on the process" "pid $PID running PAGES"
check "pages: the strip shows the faulted and resident bytes" " faults: minor "
expect_match "pages: the key bar has v and w" "$(screen | sed -n 30p)" "vHeap/Pages wWrite"
echo go > "$TMP/go"
check "pages: touch_sixteen shows once the threads ran" "touch_sixteen"
check "pages: the process's end is seen, its last state kept" "pid $PID EXITED PAGES"
# It frees its arena before it exits: in use may have seen it go; allocated is every fault.
keys s
sleep 0.3
row=$(screen | grep -E " touch_sixteen" | head -1)
expect_match "s: allocated, touch_sixteen's cum is 16 MiB" "$row" " 16\.0 MiB "
screen > "$TMP/alloc.screen"
keys s
sleep 0.3
screen > "$TMP/inuse.screen"
expect_match "s again: in use, the title says which" "$(head -1 "$TMP/alloc.screen") / $(head -1 "$TMP/inuse.screen")" "alloc bytes.* / .*in use bytes"
keys v
check "v: the heap of the same process" "pid $PID EXITED HEAP"
keys s
check "v: the 80 MiB malloc in main (alloc: it was freed at the end)" "80.0 MiB"
keys W
check "W in the heap asks where to write it" "write the heap (skynet v1) to [mprof-$PID-heap.pro]:"
keys Enter
check "W writes the heap" "wrote mprof-$PID-heap.pro (skynet v1"
keys v
check "v again: the pages" "PAGES"
keys w
check "w in the pages asks where to write them" "write the pages (native) to [mprof-$PID-faults.pro]:"
keys -l "  pages.pro"
keys Enter
check "w writes the pages, the answer's leading spaces skipped as in the other modes" "wrote pages.pro (native"
expect_match "the written pages read back (allocated: in use may have seen the arena freed)" "$("$MPROF" --top=flat --alloc --format=tsv "$TMP/pages.pro" 2>&1)" "touch_sixteen"
keys q
check "q leaves with status 0" "EXIT=0"
