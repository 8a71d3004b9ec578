#!/bin/sh
# tui_callgraph.sh - e offers the call graph in the UI (tmux): the picture of
# the view on screen, at its granularity (g), rendered by graphviz's dot, the
# same as --callgraph writes; with two files and d on, the diff graph.
. "$(dirname "$0")/../lib.sh"

. "$TOP/test/tmux.sh"
. "$TOP/test/integration/graph_app.inc"
# titles SVG: every tooltip dot drew (nodes with their exact flat and cum,
# edges with their weight), sorted: what two pictures of one graph share.
titles() { grep -o 'xlink:title="[^"]*"' "$1" | sort; }
(cd "$TMP" && "$MPROF" --callgraph=batch.svg new.pro && "$MPROF" --callgraph=batch.dot new.pro &&
	"$MPROF" --granularity=line --callgraph=batch-line.svg new.pro &&
	"$MPROF" --diff base.pro --callgraph=batch-diff.svg new.pro) || not_ok "the batch graphs are written"
# The counts the status line must give: the batch graph's boxes and arrows.
NN=$(grep -c '^N[0-9]* \[' "$TMP/batch.dot")
NE=$(grep -c '^N[0-9]* -> ' "$TMP/batch.dot")

tmux_start 150 30 "$TMP"
keys clear Enter "'$MPROF' base.pro new.pro; echo EXIT=\$?" Enter
check "BASE NEW opens NEW" "two files: d shows the diff NEW - BASE"
keys e
check "e offers the call graph" "export as pprof, folded, skynet, native or callgraph [folded]:"
keys -l callgraph; keys Enter
check "the default name is an SVG" "export to file [new-callgraph.svg]:"
keys Enter
expect_eq "new.pro: 9 nodes (tiny dropped), 12 edges (builder -> recurse and main ... leaf_alloc dropped)" "$NN $NE $(grep -o 'Dropped [0-9]* [a-z]*' "$TMP/batch.dot" | tr '\n' ' ')" \
	"9 12 Dropped 1 node Dropped 2 edges "
check "e writes the call graph and says what it holds" \
	"wrote new-callgraph.svg (call graph, granularity function: $NN nodes and $NE edges shown, 1 and 2 dropped)"
expect_eq "e: dot rendered it" "$(head -c 5 "$TMP/new-callgraph.svg")" "<?xml"
expect_eq "e: the graph --callgraph draws (every node and edge, same numbers)" "$(titles "$TMP/new-callgraph.svg")" \
	"$(titles "$TMP/batch.svg")"
expect_match "e: leaf_alloc's exact flat and cum" "$(titles "$TMP/new-callgraph.svg")" \
	'xlink:title="leaf_alloc&#10;flat 68757 bytes, cum 68757 bytes"'
keys g
check "g: line granularity" "granularity line"
keys e; keys -l callgraph; keys Enter
check "e at line granularity" "export to file [new-2-callgraph.svg]:"
keys Enter
check "e writes the graph of lines" "wrote new-2-callgraph.svg (call graph, granularity line:"
expect_eq "e by line: the graph --granularity=line --callgraph draws" "$(titles "$TMP/new-2-callgraph.svg")" \
	"$(titles "$TMP/batch-line.svg")"
keys g g g
check "g: back to functions" "granularity function"
keys d
check "d: the diff" "diff NEW − BASE"
keys e; keys -l callgraph; keys Enter
check "e in the diff proposes a -diff name" "export to file [new-diff-callgraph.svg]:"
keys Enter
check "e writes the diff graph" "wrote new-diff-callgraph.svg (diff call graph, granularity function: 8 nodes and"
expect_eq "e in the diff: the graph --diff --callgraph draws" "$(titles "$TMP/new-diff-callgraph.svg")" \
	"$(titles "$TMP/batch-diff.svg")"
expect_match "e in the diff: big grew 32 KiB" "$(titles "$TMP/new-diff-callgraph.svg")" \
	'xlink:title="big&#10;flat 0 bytes, cum 32768 bytes"'
# Without graphviz: .dot is offered, and asking for .svg says why not.
keys q
check "quits" "EXIT=0"
keys clear Enter "PATH=/nonexistent '$MPROF' new.pro; echo EXIT=\$?" Enter
check "opens without graphviz on PATH" "granularity function"
keys e; keys -l callgraph; keys Enter
check "no dot: the default name is .dot" "export to file [new-callgraph.dot]:"
keys Enter
check "no dot: the .dot is written" "wrote new-callgraph.dot (call graph"
expect_eq "no dot: dot text" "$(head -1 "$TMP/new-callgraph.dot")" 'digraph "mprof" {'
keys e; keys -l callgraph; keys Enter; keys -l x.png; keys Enter
check "no dot: .png says why in the status line" "call graph: x.png: graphviz's dot program is not on PATH"
keys q
check "quits" "EXIT=0"
