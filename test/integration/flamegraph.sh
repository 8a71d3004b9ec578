#!/bin/sh
# --flamegraph FILE.svg: a self-contained SVG (well-formed XML, inline
# script, no outside resources) whose frame widths carry the chosen metric;
# with --diff, the net deltas and their colours.
. "$(dirname "$0")/../lib.sh"
M="$MPROF --no-symbols"
svg=$TMP/fg.svg
# titles SVG: "name<TAB>value" of every frame, from the <title>s.
titles() {
	python3 - "$1" <<'PY'
import re, sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
for g in d.getElementsByTagName('g'):
    t = g.getElementsByTagName('title')[0].firstChild.data
    r = g.getElementsByTagName('rect')[0]
    print(re.sub(r' \(([-+0-9]+)[,)].*$', r'\t\1', t) + '\t' + r.getAttribute('width'))
PY
}
run_status $M --flamegraph=$svg "$DATA/go/rate1/heap.pb.gz"
expect_eq "flamegraph: exit 0, nothing on stdout" "$STATUS:$OUT" "0:"
expect_match "flamegraph: well-formed XML, root is the in-use total" "$(titles $svg | head -1)" "^all	3235256	1180"
expect_match "flamegraph: leak frame carries its bytes" "$(titles $svg)" "^main\\.leakBlocks	3145728	1147\\."
expect_match "flamegraph: inlined callees are frames of their own" "$(titles $svg)" "^strings\\.\\(\\*Builder\\)\\.grow	22400	"
expect_eq "flamegraph: self-contained (no outside references)" \
	"$(grep -Eo '(href|src)="[^"]*"' $svg | grep -v '^xmlns' | wc -l)" 0
expect_match "flamegraph: zoom and search are inline script" "$(grep -c 'function zoom\|function search\|function unzoom' $svg)" "^3$"
if command -v node > /dev/null; then
	sed -n '/<!\[CDATA\[/,/\]\]>/p' $svg | sed '1d;$d' > "$TMP/fg.js"
	run_status node --check "$TMP/fg.js"
	expect_eq "flamegraph: the script parses (node --check)" "$STATUS:$ERR" "0:"
else
	echo "ok - # SKIP flamegraph script syntax: node is not installed"
fi
run_status $M --alloc --objects --flamegraph=$svg "$DATA/gperftools/leakgen.0002.heap"
expect_match "flamegraph: chosen metric (alloc objects) at the root" "$(titles $svg | head -1)" "^all	13227	"
# Diff: width = |deltas|, title = net delta, red grows, blue shrinks.
run_status $M --diff "$DATA/test_mem_fixed.pro" --flamegraph=$svg "$DATA/test_mem.pro"
expect_eq "diff flamegraph: exit 0" "$STATUS" 0
expect_match "diff flamegraph: root is the net in-use growth" "$(titles $svg | head -1)" "^all	\\+5264	"
expect_match "diff flamegraph: grown leak site is red" "$(grep 'skynet.so(+0xb55d)' $svg | head -1)" \
	"\\(\\+2880, 2880 changed.*fill=\"rgb\\(255,55,55\\)\""
expect_match "diff flamegraph: the timer that went away is blue" "$(grep 'skynet_timeout+0x30' $svg | head -1)" \
	"\\(-32, 32 changed.*fill=\"rgb\\(55,55,255\\)\""
run_status $M --flamegraph="$TMP/no/dir/x.svg" "$DATA/test_mem.pro"
expect_eq "flamegraph: unwritable path is exit 1" "$STATUS" 1
expect_match "flamegraph: and names it" "$ERR" "^mprof-tui: $TMP/no/dir/x\\.svg\\.tmp: No such file"
