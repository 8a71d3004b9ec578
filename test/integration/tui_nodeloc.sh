#!/bin/sh
# tui_nodeloc.sh - at function granularity a row's file:line follows the
# metric on screen (issue 20 item 2): a -O0 -g program run under the hook
# whose handler keeps its bytes through one line and allocates most through
# another; in the table, on the callers/callees screen (the call site of
# each edge) and in the source pane (l highlights the line the row shows).
. "$(dirname "$0")/../lib.sh"

. "$TOP/test/tmux.sh"
if ! command -v gcc > /dev/null; then
	echo "ok - # SKIP gcc missing"
	exit 0
fi
mkdir -p "$TMP/src"
cp "$TOP/test/progs/loc_leak.c" "$TMP/src/"
if ! (cd "$TMP/src" && gcc -O0 -g -o "$TMP/loc_leak" loc_leak.c) 2> "$TMP/build.err"; then
	not_ok "loc_leak builds" "$(head -5 "$TMP/build.err")"
	exit 0
fi
(cd "$TMP" && MPROF_OUT=$TMP/leak.pro LD_PRELOAD=$TOP/libmprof.so ./loc_leak) || not_ok "loc_leak runs under the hook"
# The line of a marker comment in the source.
L() { grep -n "L:$1 " "$TMP/src/loc_leak.c" | cut -d: -f1; }
expect_eq "the markers are seven lines" "$(for m in make_buf scratch warm_buf temp kept warm call; do L $m; done | sort -u | wc -l)" "7"

# What the hook saw: 20 records of 64 B kept through handle_request, 20
# temporaries of 4096 B freed; warm_up keeps 8 KiB and frees 128 KiB.
cum_of() { f=$1; shift; "$MPROF" --top=cum --format=tsv "$@" "$TMP/leak.pro" | awk -F '\t' -v f="$f" '$5 == f { print $3, $4 }'; }
expect_eq "batch: handle_request keeps 1280 B in 20 objects" "$(cum_of handle_request)" "1280 20"
expect_eq "batch: handle_request allocated 20 x (4096 + 64) B" "$(cum_of handle_request --alloc)" "83200 40"
expect_eq "batch: warm_up keeps 8 KiB" "$(cum_of warm_up)" "8192 1"
expect_eq "batch: warm_up allocated 136 KiB" "$(cum_of warm_up --alloc)" "139264 2"

line() { screen | sed -n "$1p"; }
tmux_start 110 30 "$TMP"
keys clear Enter "'$MPROF' leak.pro; echo EXIT=\$?" Enter
check "the UI opens at function granularity" "granularity function"
row() { screen | sed -n '4,27p' | grep -E " $1  " | head -1; }
# In use: every byte handle_request keeps goes through the call on L:kept.
expect_match "in use: handle_request shows the kept line" "$(row handle_request)" " handle_request  loc_leak\.c:$(L kept)$"
expect_match "in use: main shows the warm_up call (8 KiB kept)" "$(row main)" " main  loc_leak\.c:$(L warm)$"
expect_match "in use: make_buf shows its malloc" "$(row make_buf)" " make_buf  loc_leak\.c:$(L make_buf)$"
keys o
check "o: in use objects" "in use objects"
expect_match "in use objects: main shows the handle_request call (20 objects)" "$(row main)" " main  loc_leak\.c:$(L call)$"
keys o s
check "s: alloc bytes" "alloc bytes"
expect_match "alloc: handle_request shows the temporary's line" "$(row handle_request)" " handle_request  loc_leak\.c:$(L temp)$"
expect_match "alloc: main shows the warm_up call (136 KiB)" "$(row main)" " main  loc_leak\.c:$(L warm)$"
keys s
check "s: at peak bytes (the dump kept its peak)" "at peak bytes"
keys s
check "s: in use bytes again" "in use bytes"
expect_match "in use again: handle_request shows the kept line" "$(row handle_request)" " handle_request  loc_leak\.c:$(L kept)$"

# l on the row: the line it shows, with its bytes in use.
keys /; keys -l '^handle_request$'; keys Enter
check "focus on handle_request" "focus /^handle_request$/: 1 rows match"
keys l
check "l: the source pane of handle_request" "Source of handle_request"
expect_match "l: the kept line is highlighted, 1.25 KiB cum" "$(screen | grep -F 'L:kept')" "^ +\. +1\.25 KiB +$(L kept)> "
expect_match "l: the temporary's line holds nothing in use" "$(screen | grep -F 'L:temp')" "^ +\. +\. +$(L temp)  "
keys l

# Enter: the caller's row shows where main calls handle_request, the
# callee's where handle_request calls make_buf for that metric.
keys Enter
check "Enter: callers/callees of handle_request" "Callers/callees of handle_request"
expect_match "callers: main at its call of handle_request" "$(line 5)" "^ +1\.25 KiB .* main  loc_leak\.c:$(L call)$"
expect_match "the centre keeps its own place" "$(line 6)" "handle_request  loc_leak\.c:$(L kept)  \(flat 0 B\)$"
expect_match "callees: make_buf at the kept call" "$(line 8)" "^ +1\.25 KiB .* make_buf  loc_leak\.c:$(L kept)$"
expect_match "the status line names the caller's call site" "$(line 29)" "^main  loc_leak\.c:$(L call) *$"
keys l
check "l on the caller: the source pane" "Source of main"
expect_match "l on the caller: the call line is highlighted, 1.25 KiB cum" "$(screen | grep -F 'L:call')" \
	"^ +\. +1\.25 KiB +$(L call)> "
keys l End
check "back on the callers screen" "Callers/callees of handle_request"
keys l
check "l on the callee: the source pane" "Source of make_buf"
expect_match "l on the callee: the kept call is highlighted in handle_request" "$(screen | grep -F 'L:kept')" \
	"^ +\. +1\.25 KiB +$(L kept)> "
keys l s
check "s on the callers screen: alloc bytes" "alloc bytes"
expect_match "alloc: the callee make_buf at the temporary's call" "$(line 8)" "^ +81\.2 KiB .* make_buf  loc_leak\.c:$(L temp)$"
expect_match "alloc: the caller main still at its call" "$(line 5)" " main  loc_leak\.c:$(L call)$"
keys l
check "l on the callee in alloc: the source pane" "Source of make_buf"
expect_match "l: the temporary's call is highlighted, 80 KiB cum" "$(screen | grep -F 'L:temp')" \
	"^ +\. +80\.0 KiB +$(L temp)> "
keys Q
check "quits" "EXIT=0"
