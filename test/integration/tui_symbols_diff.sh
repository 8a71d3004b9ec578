#!/bin/sh
# tui_symbols_diff.sh - the UI over resolved symbols and over two files, in
# a real terminal (tmux on an isolated server, as tui_tmux.sh does): rows
# with function and file:line, g cycling, the source pane (l) against
# eu-addr2line, inline edges, a missing module reported once, --source-dir;
# BASE NEW with d (signed deltas on every screen), e (export of the view),
# --alloc/--objects, and names with escape sequences drawn escaped.
. "$(dirname "$0")/../lib.sh"

. "$TOP/test/tmux.sh"
# Copies under short names, so that the header shows them whole.
cp "$DATA/test_mem_fixed.pro" "$TMP/base.pro"
cp "$DATA/test_mem.pro" "$TMP/new.pro"
BASE=base.pro
NEW=new.pro

line() { screen | sed -n "$1p"; }
start() { w=$1 h=$2; shift 2; tmux_start "$w" "$h" "$TMP" "$@"; }
# run ARGS: mprof-tui ARGS in the pane, the exit status echoed after it.
run() { keys clear Enter "'$MPROF' $*; echo EXIT=\$?" Enter; }

# ---- two files: d toggles NEW - BASE -----------------------------------------
start 100 30
run --no-symbols "'$BASE'" "'$NEW'"
check "BASE NEW opens NEW" "two files: d shows the diff NEW - BASE (BASE base.pro)"
expect_match "header: NEW's path and totals" "$(line 1)" "in use bytes +total 5\.17 KiB \(61 objects\) +granularity address +new\.pro$"
keys d
check "d: the status says diff NEW − BASE" "diff NEW − BASE: total +5.14 KiB; largest growth first; d closes"
expect_match "d: the header says diff NEW − BASE" "$(line 1)" "granularity address  diff NEW − BASE: new\.pro"
expect_match "d: total +5.14 KiB (+60 objects)" "$(line 1)" "total \+5\.14 KiB \(\+60 objects\)"
expect_match "d: top row is the +0xb55d netpack site, +2.81 KiB (+31)" "$(line 4)" \
	"^ +1 \+2\.81 KiB +54\.7% +54\.7% \+2\.81 KiB +54\.7% +\+31 skynet\.so\+0xb55d$"
expect_eq "d: the batch diff agrees: +0xb55d grew by 2880 B, 31 objects" \
	"$("$MPROF" --no-symbols --diff "$TMP/$BASE" --top=flat --format=tsv "$TMP/$NEW" | sed -n 2p | cut -f1-4)" "2880	31	2880	31"
expect_match "d: +0xc588 allocated only in NEW: marked NEW" "$(line 6)" \
	"^ +3 +\+32 B .* +\+1 NEW skynet\+0xc588$"
expect_eq "d: NEW marks +0xc588 and its 3 callers only" \
	"$(screen | sed -n '4,27p' | grep ' NEW ' | sed 's/.* NEW \([^ ]*\) *$/\1/' | tr '\n' ' ')" \
	"skynet+0xc588 skynet.so+0x5553 skynet_send+0x49 skynet_sendname+0x191 "
keys End
check "d: a shrinking row is negative (skynet_timeout -32 B)" "-32 B"
expect_match "d: skynet_timeout row" "$(screen | grep -E '^ +[0-9]+ .*skynet_timeout')" "^ +[0-9]+ +-32 B .* -1 skynet_timeout\+0x30$"
keys Home o
check "d, o: objects +31" "in use objects  total +60 (+5.14 KiB bytes)"
expect_match "d, o: row 1 +31 objects" "$(line 4)" "^ +1 +\+31 .*skynet\.so\+0xb55d$"
keys o Enter
check "d, Enter: callers/callees of the growth" "Callers/callees of ./skynet/luaclib/skynet.so(+0xb55d)"
expect_match "d, Enter: the caller passes +2.81 KiB" "$(line 5)" "^\+2\.81 KiB +54\.7% +100\.0% +\+31 +skynet\+0x19599$"
keys t
check "d, t: the tree in deltas" "Call tree (top-down)"
expect_match "d, t: the root carries +5.14 KiB" "$(line 4)" "^\+5\.14 KiB +100\.0% +0 B"
keys d
check "d again in the tree: NEW again" "diff closed: NEW (new.pro) again"
expect_match "d again: the tree holds NEW's 5.17 KiB" "$(line 4)" "^ 5\.17 KiB +100\.0%"
keys Escape Escape
check "back to the table" "Main table"
expect_match "d again: row 1 unsigned 2.81 KiB" "$(line 4)" "^ +1 +2\.81 KiB +54\.4% +54\.4% +2\.81 KiB"
expect_match "d again: header without diff" "$(line 1)" "total 5\.17 KiB \(61 objects\) +granularity address +new\.pro$"

# ---- e: export the view ----------------------------------------------------------
"$MPROF" --no-symbols --export=folded -o "$TMP/batch.folded" "$TMP/$NEW"
"$MPROF" --no-symbols --diff "$TMP/$BASE" --export=folded -o "$TMP/batchdiff.folded" "$TMP/$NEW"
sum() { awk '{s += $NF} END {print s + 0}' "$1"; }
keys e
check "e asks for the format" "export as pprof, folded, skynet, native or callgraph [folded]:"
keys Enter
check "then for the file" "export to file [new.folded]:"
keys -l "$TMP/tui.folded"; keys Enter
check "e writes the file" "exported $TMP/tui.folded (folded, granularity address)"
expect_file_eq "e: the same folded stacks as the batch export" "$TMP/tui.folded" "$TMP/batch.folded"
expect_eq "e: sums equal the batch export's (5296 B)" "$(sum "$TMP/tui.folded") $(sum "$TMP/batch.folded")" "5296 5296"
keys d e; keys -l folded; keys Enter
check "e in the diff proposes a -diff name" "export to file [new-diff.folded]:"
keys Enter
check "e writes the diff" "exported new-diff.folded"
expect_eq "e in the diff: sums equal the batch --diff export's" "$(sum "$TMP/new-diff.folded")" "$(sum "$TMP/batchdiff.folded")"
expect_file_eq "e in the diff: same stacks as the batch --diff export" "$TMP/new-diff.folded" "$TMP/batchdiff.folded"
keys e; keys -l bogus; keys Enter
check "e: an unknown format is refused" "export: 'bogus' is not pprof, folded, skynet, native or callgraph"
keys e; keys -l native; keys Enter; keys Escape
check "e: Esc cancels" "export cancelled"
keys q
check "quits" "EXIT=0"
run --no-symbols --base "'$BASE'" "'$NEW'"
check "--base BASE NEW works the same" "two files: d shows the diff NEW - BASE"
keys d
check "--base: d diffs" "diff NEW − BASE"
keys q
check "quits" "EXIT=0"

# Reversed (NEW smaller than BASE): the biggest shrink is the top row.
run --no-symbols "'$NEW'" "'$BASE'"
check "reverse: opens" "two files: d shows the diff NEW - BASE"
keys d
check "reverse: d diffs" "diff NEW − BASE: total -5.14 KiB"
expect_match "reverse: the top row is the biggest change (-2.81 KiB at +0xb55d)" "$(line 4)" "^ +1 +-2\.81 KiB .*skynet\.so\+0xb55d"
keys q
check "quits" "EXIT=0"

# ---- --alloc / --objects start the UI in that mode -------------------------------
run --no-symbols --alloc --objects "'$NEW'"
check "--alloc --objects: the UI starts on alloc objects" "alloc objects  total 221 (11.6 KiB bytes)"
keys q
run --no-symbols --objects "'$NEW'"
check "--objects alone: in use objects" "in use objects  total 61 (5.17 KiB bytes)"
keys q
check "quits" "EXIT=0"

# ---- names with escape sequences never reach the terminal raw --------------------
# v1: one function named "ev" ESC "]0;pwned" BEL "il" (an OSC that would set
# the window title), one sample of 16 bytes in use.
printf '\000\000\000\067\000\000\000\001\016ev\033]0;pwned\007il\000\000\000\000\000\000\000\020' > "$TMP/evil.pro"
printf '\000\000\000\001\000\000\000\020\000\000\000\000\000\000\000\000\000\000\000\001\000\000\000\000\000\000\000\020' >> "$TMP/evil.pro"
# The check can fail: the raw sequence does set the title.
keys clear Enter "printf '\\033]0;pwned\\007'" Enter
n=0
while [ "$n" -lt 30 ] && [ "$(tm display -p -t t '#{pane_title}')" != pwned ]; do sleep 0.1; n=$((n + 1)); done
expect_eq "the raw sequence printed by a shell sets the pane title" "$(tm display -p -t t '#{pane_title}')" "pwned"
tm select-pane -t t -T clean
for opt in --no-symbols ""; do
	run $opt "'$TMP/evil.pro'"
	check "escape sequence in a name ($opt): the table shows it escaped" 'ev\x1b]0;pwned\x07il'
	expect_match "($opt) the status line too" "$(line 29)" 'ev\\x1b\]0;pwned\\x07il'
	keys Enter
	check "($opt) the callers screen too" 'Callers/callees of ev\x1b]0;pwned\x07il'
	keys t
	check "($opt) the tree opens" "Call tree (top-down)"
	expect_match "($opt) the tree too" "$(line 4)" 'ev\\x1b\]0;pwned\\x07il'
	expect_eq "($opt) the pane title was not changed by the name" "$(tm display -p -t t '#{pane_title}')" "clean"
	keys Q
	check "quits" "EXIT=0"
done

# ---- symbols: a program built here, -O2 -g ------------------------------------------
if ! command -v eu-addr2line > /dev/null || ! command -v g++ > /dev/null; then
	echo "ok - # SKIP eu-addr2line or g++ missing"
	exit 0
fi
P=$TOP/test/progs
mkdir -p "$TMP/src" "$TMP/gone" "$TMP/moved"
cp "$P/sym_app.c" "$P/sym_cxx.cpp" "$P/sym_lib.c" "$TMP/src/"
if ! (cd "$TMP/src" && gcc -O2 -g -fPIC -shared -o "$TMP/gone/libsymdl.so" sym_lib.c &&
      g++ -O2 -g -c -o "$TMP/sym_cxx.o" sym_cxx.cpp && gcc -O2 -g -c -o "$TMP/sym_app.o" sym_app.c &&
      g++ -o "$TMP/sym_app" "$TMP/sym_app.o" "$TMP/sym_cxx.o" -ldl) 2> "$TMP/build.err"; then
	not_ok "test program builds" "$(head -5 "$TMP/build.err")"
	exit 0
fi
(cd "$TMP" && ./sym_app out.pro "$TMP/gone/libsymdl.so") || not_ok "sym_app writes its profile"
L() { grep -n "L:$1" "$P/sym_app.c" | cut -d: -f1; }
run "out.pro"
check "symbols: the UI opens at function granularity" "granularity function"
expect_match "row 1: grow_buf and its file:line, 300 B" "$(line 4)" \
	"^ +1 +300 B +35\.0% +35\.0% +300 B +35\.0% +3 grow_buf  sym_app\.c:$(L grow_buf)$"
expect_match "row 2: new_node and its file:line, 240 B" "$(line 5)" \
	"^ +2 +240 B .* +5 new_node  sym_app\.c:$(L new_node)$"
expect_match "the status line: the selected row's name and place" "$(line 29)" "^grow_buf  sym_app\.c:$(L grow_buf) *$"

# g cycles function -> line -> address -> module -> function
keys g
check "g: line granularity in the header" "granularity line"
expect_match "g: line rows name file:line" "$(line 4)" " 3 grow_buf sym_app\.c:$(L grow_buf)$"
keys g
check "g: address granularity" "granularity address"
expect_match "g: address rows: 0xADDR func file:line" "$(line 4)" " 5 0x[0-9a-f]+ new_node sym_app\.c:$(L new_node)$"
keys g
check "g: module granularity" "granularity module"
expect_match "g: module row: the program, 768 B flat" "$(line 4)" "^ +1 +768 B .*\./sym_app$"
keys l
check "l at module granularity explains itself" "(module granularity: g)"
keys g
check "g: back to function granularity" "granularity function"

# Callers of grow_buf: append, inlined into it; callers of make_nodes: main, a real call.
keys Home Enter
check "Enter: callers of grow_buf" "Callers/callees of grow_buf"
expect_match "the inlined edge append -> grow_buf is marked (inline)" "$(line 5)" \
	"^ +300 B .* +append  sym_app\.c:$(L append)  \(inline\)$"
keys Escape /; keys -l '^make_nodes$'; keys Enter
check "focus on make_nodes" "focus /^make_nodes$/: 1 rows match"
keys Enter
check "Enter: callers/callees of make_nodes" "Callers/callees of make_nodes"
expect_match "the call main -> make_nodes is not inline" "$(line 5)" "^ +240 B .* +main  sym_app\.c:[0-9]+$"
expect_match "the callee new_node is inlined into make_nodes, shown at its call site there" "$(screen | grep -F 'new_node')" \
	"new_node  sym_app\.c:$(L make_nodes)  \(inline\)$"

# l: the inline chain as eu-addr2line -f -i -C prints it for pc-1, then the source.
keys Escape l
check "l opens the source pane of make_nodes" "Source of make_nodes"
off=$("$TOP/${B:-build}/tools/sym_dump" "$TMP/out.pro" | awk -F'\t' '$5 ~ /^new_node@.*\| make_nodes@/ {print $3; exit}')
eu-addr2line -f -i -C -e "$TMP/sym_app" "$off" | sed -e 's/ inlined at .*//' -e 's/:\([0-9]*\):[0-9]*$/:\1/' > "$TMP/want_chain"
screen | sed -n "4,$((3 + $(wc -l < "$TMP/want_chain")))p" | sed 's/ *$//' > "$TMP/got_chain"
expect_file_eq "l: the chain equals eu-addr2line -f -i -C for pc-1 ($off)" "$TMP/got_chain" "$TMP/want_chain"
expect_eq "l: the chain has 2 levels (new_node inlined into make_nodes)" "$(sed -n '1p;3p' "$TMP/got_chain" | tr '\n' ' ')" "new_node make_nodes "
check "l: the source file is named" "source $TMP/src/sym_app.c"
expect_match "l: the call line is highlighted with its bytes (cum 240 B)" "$(screen | grep -F '>' | grep 'L:make_nodes')" \
	"^ +\. +240 B +$(L make_nodes)> +new_node\(48\); /\* L:make_nodes \*/$"
keys s
check "s in the source pane: alloc space (same here)" "alloc bytes"
keys s q c Home l
check "l on grow_buf" "Source of grow_buf"
expect_match "l: grow_buf's line: 300 B flat and cum, highlighted" "$(screen | grep -F 'L:grow_buf')" \
	"^ +300 B +300 B +$(L grow_buf)> "
expect_match "l: append's call of grow_buf: cum only" "$(screen | grep -F 'L:append')" "^ +\. +300 B +$(L append)  "
expect_match "l: the other inlined helper's line carries 240 B flat" "$(screen | grep -F 'L:new_node')" \
	"^ +240 B +240 B +$(L new_node)  .*rec_alloc\(n\); /\\* L:new_node \\*/$"
keys Q
check "quits" "EXIT=0"

# Two runs of the same program (ASLR moves them): d in the source pane
# recomputes its lines over NEW - BASE, which is empty here.
(cd "$TMP" && ./sym_app out2.pro "$TMP/gone/libsymdl.so") || not_ok "sym_app runs again"
run out2.pro out.pro
check "two runs: opens NEW" "two files: d shows the diff NEW - BASE (BASE out2.pro)"
keys l
check "l on grow_buf (two runs)" "Source of grow_buf"
keys d
check "d in the source pane: the header says diff" "total 0 B (0 objects)  granularity function  diff NEW − BASE: out.pro"
expect_match "d: grow_buf's line holds no growth between the runs" "$(screen | grep -F 'L:grow_buf')" \
	"^ +\. +\. +$(L grow_buf)> "
keys d
check "d again: NEW's values" "diff closed: NEW (out.pro) again"
expect_match "d again: grow_buf's line 300 B" "$(screen | grep -F 'L:grow_buf')" "^ +300 B +300 B +$(L grow_buf)> "
keys Q
check "quits" "EXIT=0"

# The source moved away: the pane says so; --source-dir finds it again.
mv "$TMP/src" "$TMP/moved/"
run "out.pro"
check "opens" "granularity function"
keys l
check "l: an unreadable source is named, with the way out" "sym_app.c: not readable here (--source-dir DIR maps build paths)"
keys Q
run --source-dir "'$TMP/moved'" out.pro
check "opens with --source-dir" "granularity function"
keys l
check "--source-dir: the pane reads the file there" "source $TMP/moved/src/sym_app.c for $TMP/src/sym_app.c"
expect_match "--source-dir: grow_buf's line with its bytes" "$(screen | grep -F 'L:grow_buf')" "^ +300 B +300 B +$(L grow_buf)> "
keys Q
check "quits" "EXIT=0"

# A missing module: reported once, in the status line.
mv "$TMP/gone/libsymdl.so" "$TMP/moved/"
run out.pro
check "a missing module is reported once in the status line" \
	"1 module without symbols: $TMP/gone/libsymdl.so (not found)"
expect_eq "and on no row" "$(screen | sed -n '4,27p' | grep -c 'not found')" "0"
keys Q
check "quits" "EXIT=0"

# Another build at the module's path: said as such, not as "not found"
# (a dump of the hook records build-ids).
mv "$TMP/moved/libsymdl.so" "$TMP/gone/"
(cd "$TMP" && MPROF_OUT=$TMP/native.pro LD_PRELOAD=$TOP/libmprof.so ./sym_app out4.pro "$TMP/gone/libsymdl.so") ||
	not_ok "sym_app runs under the hook"
(cd "$TMP/moved/src" && gcc -O0 -g -fPIC -shared -DOTHER_BUILD -o "$TMP/gone/libsymdl.so" sym_lib.c) ||
	not_ok "another build of libsymdl.so"
run native.pro
check "a module whose build-id differs is said so" \
	"1 module without symbols: $TMP/gone/libsymdl.so (build-id differs)"
keys Q
check "quits" "EXIT=0"
rm -f "$TMP/gone/libsymdl.so"

# ---- batch: BASE NEW without a terminal is --diff BASE NEW -----------------------
cd "$TMP" || exit 2
expect_eq "batch: BASE NEW reports NEW - BASE like --diff" \
	"$("$MPROF" --no-symbols --top=flat --format=tsv base.pro new.pro)" \
	"$("$MPROF" --no-symbols --top=flat --format=tsv --diff base.pro new.pro)"
run_status "$MPROF" --no-symbols --top=flat --format=tsv --base base.pro new.pro
expect_eq "batch: --base BASE NEW too: +0xb55d first, 2880 B" "$STATUS $(printf '%s\n' "$OUT" | sed -n 2p | cut -f1)" "0 2880"
run_status "$MPROF" --no-symbols a.pro b.pro c.pro
expect_eq "three files are refused (status 2)" "$STATUS $(printf '%s\n' "$ERR" | sed -n 1p)" \
	"2 mprof-tui: one profile file, or two (BASE NEW)"
