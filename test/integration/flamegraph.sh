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
# Zoom, unzoom, details and search in a real browser (headless Chromium, when
# installed): test/data/flamegraph/drive.svgjs clicks and reads the DOM back.
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
if [ -n "$browser" ]; then
	sed '$d' $svg > "$TMP/drive.svg"
	cat "$DATA/flamegraph/drive.svgjs" >> "$TMP/drive.svg"
	echo '</svg>' >> "$TMP/drive.svg"
	res=$(timeout 120 "$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$TMP/drive.svg" 2> /dev/null |
		grep -o 'data-result="[^"]*"' | sed 's/^data-result="//; s/"$//' | tr '|' '\n' | sed 's/^ //; s/ $//')
	before=$(echo "$res" | sed -n 's/^before leak=\([0-9.]*\) .*/\1/p')
	expect_eq "flamegraph in $browser: leak frame before zoom" "$before" \
		"$(titles $svg | awk -F '\t' '$1 == "main.leakBlocks" { printf "%.1f", $3 }')"
	expect_eq "flamegraph in $browser: a click zooms (full width, root faded, others hidden)" \
		"$(echo "$res" | grep '^zoomed')" "zoomed leak=1180.0 text=main.leakBlocks root=1180.0 rootop=0.5 malg=none unzoomop=1"
	expect_eq "flamegraph in $browser: hover shows the frame's title" "$(echo "$res" | grep '^details')" \
		"details=$(titles $svg | awk -F '\t' '$1 == "main.leakBlocks" { print $1 }') (3145728, 97.23%)"
	expect_eq "flamegraph in $browser: unzoom restores" "$(echo "$res" | grep '^unzoomed')" "unzoomed leak=$before malg="
	# Matched: the outermost frames whose name has "leak", over the root.
	want=$(python3 - $svg <<'PY'
import re, sys, xml.dom.minidom as m
fr = []
for g in m.parse(sys.argv[1]).getElementsByTagName('g'):
    r = g.getElementsByTagName('rect')[0]
    fr.append((g.getAttribute('data-name'), float(r.getAttribute('x')), float(r.getAttribute('width')), float(r.getAttribute('y'))))
seen, s = [], 0.0
for n, x, w, y in fr:
    if 'leak' in n and not any(x >= sx and x + w <= sx + sw for sx, sw in seen):
        seen.append((x, w)); s += w
print('%.1f' % (100 * s / fr[0][2]))
PY
)
	expect_eq "flamegraph in $browser: search highlights and sums the matches" "$(echo "$res" | grep '^search')" \
		"search=Matched: $want% fill=rgb(230,0,230)"
	expect_match "flamegraph in $browser: an empty search clears" "$(echo "$res" | grep '^cleared')" "^cleared=\[ \] fill=rgb\([0-9]+,[0-9]+,[0-9]+\)$"
else
	echo "ok - # SKIP flamegraph in a browser: chromium is not installed"
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
# Unresolved frames are boxes named file+offset; the title keeps the whole name.
run_status $M --flamegraph=$svg "$DATA/test_mem.pro"
expect_match "flamegraph: an unresolved frame's box is skynet.so+0xb55d" \
	"$(grep 'data-name="skynet.so+0xb55d"' $svg | head -1)" "<title>\./skynet/luaclib/skynet\.so\(\+0xb55d\) \[0x7feead9e855d\] "
# A long C++ name in a box of 41 characters (a quarter of the width) is cut
# inside its argument list, by the writer and by the script's cut() alike.
printf 'main;ns::Pool<int>::grow(std::vector<int, std::allocator<int> > const&, unsigned long) 25\nmain;other 75\n' > "$TMP/cxx.folded"
run_status $M --flamegraph=$svg "$TMP/cxx.folded"
label=$(python3 - "$svg" <<'PY'
import sys, xml.dom.minidom as m
for g in m.parse(sys.argv[1]).getElementsByTagName('g'):
    if g.getAttribute('data-name').startswith('ns::Pool'):
        t = g.getElementsByTagName('text')[0].firstChild
        print(g.getAttribute('data-args'), t.data if t else '')
PY
)
expect_eq "flamegraph: a long C++ name is cut inside its arguments" "$label" "19 80 ns::Pool<int>::grow(std::vector<int, s..)"
if command -v node > /dev/null; then
	sed -n '/<!\[CDATA\[/,/\]\]>/p' $svg | sed '1d;$d' > "$TMP/fg.js"
	echo 'console.log(cut("ns::Pool<int>::grow(std::vector<int, std::allocator<int> > const&, unsigned long)", [19, 80], 41))' >> "$TMP/fg.js"
	expect_eq "flamegraph: the script cuts it the same way" "$(node "$TMP/fg.js" 2>&1)" "ns::Pool<int>::grow(std::vector<int, s..)"
fi
run_status $M --flamegraph="$TMP/no/dir/x.svg" "$DATA/test_mem.pro"
expect_eq "flamegraph: unwritable path is exit 1" "$STATUS" 1
expect_match "flamegraph: and names it" "$ERR" "^mprof-tui: $TMP/no/dir/x\\.svg: No such file"
