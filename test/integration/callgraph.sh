#!/bin/sh
# callgraph.sh - --callgraph=FILE on a program run under the hook whose
# numbers are known (test/progs/graph_app.c): every node's flat and cum
# against --top's TSV at every granularity and metric, every edge's weight
# (recursion's self-edge once per stack, the inlined callee's edge, the
# residual edge over dropped nodes), the dropped counts, the diff graph;
# every graph written is rendered by graphviz's dot; missing dot, a failing
# dot, a bad name and a bad directory each give one line.
. "$(dirname "$0")/../lib.sh"
. "$TOP/test/integration/graph_app.inc"

# gparse DOT [TSV]: writes DOT.p, one line per node "node<TAB>name<TAB>flat
# <TAB>cum", per edge "edge<TAB>from<TAB>to<TAB>w<TAB>flags" (r: residual,
# dotted; i: inline; -: neither) and "legend<TAB>text<TAB>tooltip", from the
# exact values in the tooltips. With TSV (--top's): every node's flat and
# cum equal its row, every row at or over the cut is a node (at most 80 are
# kept), the rows under it are the legend's dropped count; prints "N nodes
# match, D dropped" or what differs. One python per graph: it starts slowly.
gparse() {
	python3 - "$@" <<'PY'
import re, sys
q = r'"((?:[^"\\]|\\.)*)"'
un = lambda s: re.sub(r'\\(.)', r'\1', s)
names, nodes, out, leg = {}, {}, [], None
for ln in open(sys.argv[1]):
    m = re.match(r'N(\d+) \[label=' + q + '.*tooltip=' + q, ln)
    if m:
        name, vals = m.group(3).split('\\n')
        name = un(re.sub(r' \(inlined\)$', '', name))
        names[m.group(1)] = name
        f, c = re.match(r'flat (-?\d+) \w+, cum (-?\d+) \w+$', vals).groups()
        nodes[name] = (int(f), int(c))
        out.append('node\t%s\t%s\t%s' % (name, f, c))
        continue
    m = re.match(r'N(\d+) -> N(\d+) \[label=' + q + '.*? tooltip=' + q, ln)
    if m:
        w = re.search(r'\((-?\d+) \w+\)( \(inline\))?$', m.group(4))
        fl = ('r' if 'style="dotted"' in ln else '') + ('i' if w.group(2) else '')
        out.append('edge\t%s\t%s\t%s\t%s' % (names[m.group(1)], names[m.group(2)], w.group(1), fl or '-'))
        continue
    m = re.match(r'subgraph cluster_L \{ "legend" \[.*label=' + q + ' tooltip=' + q, ln)
    if m:
        leg = (m.group(1).replace('\\l', '|'), m.group(2))
        out.append('legend\t%s\t%s' % leg)
open(sys.argv[1] + '.p', 'w').write(''.join(l + '\n' for l in out))
if len(sys.argv) > 2:
    rows = {}
    for ln in list(open(sys.argv[2]))[1:]:
        f = ln.rstrip('\n').split('\t')
        rows[f[4]] = (int(f[0]), int(f[2]))
    cut = int(re.search(r'under (\d+) and', leg[1]).group(1))
    bad = [n for n in nodes if rows.get(n) != nodes[n]]
    under = [n for n in rows if abs(rows[n][1]) < cut]
    over = [n for n in rows if abs(rows[n][1]) >= cut and n not in nodes]
    dropped = int(re.search(r'Dropped (\d+) node', leg[0]).group(1))
    if bad: print('differ: ' + '; '.join('%s %s vs table %s' % (n, nodes[n], rows.get(n)) for n in bad[:3]))
    elif over and len(nodes) < 80: print('missing: ' + ', '.join(over[:3]))
    elif dropped != len(under): print('legend drops %d, table has %d under %d' % (dropped, len(under), cut))
    else: print('%d nodes match, %d dropped' % (len(nodes), dropped))
PY
}
edge() { awk -F '\t' -v f="$2" -v t="$3" '$1 == "edge" && $2 == f && $3 == t { print $4, $5 }' "$1.p"; }
legend() { awk -F '\t' '$1 == "legend" { print $2 }' "$1.p"; }
# renders NAME DOT: graphviz's dot reads what mprof wrote.
renders() {
	if dot -Tsvg "$2" -o "$TMP/r.svg" 2> "$TMP/dot.err" && grep -q '<svg' "$TMP/r.svg"; then
		ok "$1: dot renders it"
	else
		not_ok "$1: dot renders it" "$(head -3 "$TMP/dot.err")"
	fi
}

# In use, functions: the numbers graph_app.c promises.
run_status "$MPROF" --callgraph="$TMP/g.dot" "$TMP/base.pro"
expect_eq "callgraph: exit 0, nothing printed" "$STATUS:$OUT:$ERR" "0::"
renders "in use" "$TMP/g.dot"
"$MPROF" --top=flat --format=tsv "$TMP/base.pro" > "$TMP/t.tsv"
expect_match "in use: every node is its --top row" "$(gparse "$TMP/g.dot" "$TMP/t.tsv")" "^9 nodes match, 2 dropped$"
expect_eq "in use: leaf_alloc holds everything flat" "$(grep '^node	leaf_alloc	' "$TMP/g.dot.p")" \
	"node	leaf_alloc	35339	35339"
expect_eq "in use: main -> builder" "$(edge "$TMP/g.dot" main builder)" "1420 -"
expect_eq "in use: builder -> inl_fill is an inlined call, inl_fill its own node" \
	"$(edge "$TMP/g.dot" builder inl_fill)" "1200 i"
expect_eq "in use: inl_fill -> leaf_alloc" "$(edge "$TMP/g.dot" inl_fill leaf_alloc)" "1200 -"
expect_eq "in use: builder -> leaf_alloc" "$(edge "$TMP/g.dot" builder leaf_alloc)" "200 -"
expect_eq "in use: main -> recurse" "$(edge "$TMP/g.dot" main recurse)" "1000 -"
expect_eq "in use: recursion's self-edge counts its stack once" "$(edge "$TMP/g.dot" recurse recurse)" "1000 -"
expect_eq "in use: recurse -> leaf_alloc (1000 + builder's 20)" "$(edge "$TMP/g.dot" recurse leaf_alloc)" "1020 -"
expect_eq "in use: main -> big -> leaf_alloc (the freed block not counted)" \
	"$(edge "$TMP/g.dot" main big; edge "$TMP/g.dot" big leaf_alloc)" "32768 -
32768 -"
expect_eq "in use: rare and tiny dropped, main ... leaf_alloc residual (dotted)" \
	"$(edge "$TMP/g.dot" main leaf_alloc)" "151 r"
expect_eq "in use: builder -> recurse (20 B, under 0.1%) dropped" "$(edge "$TMP/g.dot" builder recurse)" ""
expect_eq "in use: the legend says what was dropped and why" "$(legend "$TMP/g.dot")" \
	"File: $TMP/base.pro|Type: inuse_space|Showing nodes accounting for 34.5 KiB, 100.00% of 34.5 KiB total|Dropped 2 nodes (cum < 176 B)|Dropped 1 edge (freq < 35 B)|"
expect_eq "in use: 13 edges" "$(grep -c '^edge' "$TMP/g.dot.p")" 13

# Alloc space: the freed block counts; objects: counts, not bytes.
run_status "$MPROF" --alloc --callgraph="$TMP/a.dot" "$TMP/base.pro"
renders "alloc" "$TMP/a.dot"
"$MPROF" --top=flat --format=tsv --alloc "$TMP/base.pro" > "$TMP/t.tsv"
expect_match "alloc: every node is its --top --alloc row" "$(gparse "$TMP/a.dot" "$TMP/t.tsv")" "^9 nodes match, 2 dropped$"
expect_eq "alloc: big -> leaf_alloc has both blocks" "$(edge "$TMP/a.dot" big leaf_alloc)" "65536 -"
expect_match "alloc: type alloc_space" "$(legend "$TMP/a.dot")" "\\|Type: alloc_space\\|"
run_status "$MPROF" --alloc --objects --callgraph="$TMP/o.dot" "$TMP/base.pro"
renders "alloc objects" "$TMP/o.dot"
# Objects: the TSV's object columns in the byte columns' place.
"$MPROF" --top=flat --format=tsv --alloc "$TMP/base.pro" |
	awk -F '\t' 'BEGIN { OFS = "\t" } { print $2, $1, $4, $3, $5 }' > "$TMP/t.tsv"
expect_match "alloc objects: every node is its --top row's objects" "$(gparse "$TMP/o.dot" "$TMP/t.tsv")" \
	"^[0-9]+ nodes match, [0-9]+ dropped$"
expect_eq "alloc objects: leaf_alloc made 10 blocks, the recursion 2, inlined 3" \
	"$(awk -F '\t' '$1 == "node" && ($2 == "leaf_alloc" || $2 == "recurse" || $2 == "inl_fill") { print $2, $3, $4 }' "$TMP/o.dot.p" | sort)" \
	"inl_fill 0 3
leaf_alloc 10 10
recurse 0 2"
expect_eq "alloc objects: self-edge once per stack" "$(edge "$TMP/o.dot" recurse recurse)" "1 -"

# Every granularity: nodes against the table at that granularity.
for g in line address module; do
	run_status "$MPROF" --granularity=$g --callgraph="$TMP/$g.dot" "$TMP/base.pro"
	renders "granularity $g" "$TMP/$g.dot"
	"$MPROF" --granularity=$g --top=flat --format=tsv "$TMP/base.pro" > "$TMP/t.tsv"
	expect_match "granularity $g: every node is its --top row" "$(gparse "$TMP/$g.dot" "$TMP/t.tsv")" \
		"^[0-9]+ nodes match, [0-9]+ dropped$"
done
# By line the inlined call's line is a node of its own, reached inline.
L=$(grep -n 'leaf_alloc(400)' "$TMP/graph_app.c" | cut -d: -f1)
expect_match "granularity line: the inlined line is a node, its edge inline" \
	"$(grep '^edge' "$TMP/line.dot.p" | grep "graph_app\\.c:$L	" | head -1)" "	1200	i$"
expect_match "granularity module: graph_app -> graph_app is a self-edge" \
	"$(awk -F '\t' '$1 == "edge" && $2 == $3 && $2 ~ /graph_app/ { print $4 }' "$TMP/module.dot.p")" "^[0-9]+$"

# The diff graph: NEW - BASE, signed; rare went away (-150 B, dropped; its
# bytes on a residual edge), inl_fill grew 800 B, big 32 KiB.
run_status "$MPROF" --diff "$TMP/base.pro" --callgraph="$TMP/d.dot" "$TMP/new.pro"
expect_eq "diff: exit 0" "$STATUS" 0
renders "diff" "$TMP/d.dot"
"$MPROF" --diff "$TMP/base.pro" --top=flat --format=tsv "$TMP/new.pro" > "$TMP/t.tsv"
expect_match "diff: every node is its --top --diff row (rare and recurse dropped)" "$(gparse "$TMP/d.dot" "$TMP/t.tsv")" "^8 nodes match, 2 dropped$"
expect_eq "diff: edges carry the change" \
	"$(for e in "main builder" "builder inl_fill" "inl_fill leaf_alloc" "main big" "big leaf_alloc" "main leaf_alloc"; do edge "$TMP/d.dot" $e; done)" \
	"800 -
800 i
800 -
32768 -
32768 -
-150 r"
expect_match "diff: the legend says NEW - BASE and the total change" "$(legend "$TMP/d.dot")" \
	"^File: $TMP/new.pro - $TMP/base.pro\\|Type: inuse_space \\(NEW - BASE: red grew, green shrank\\)\\|Showing nodes accounting for \\+32.6 KiB, 99.11% of 32.9 KiB changed\\|Dropped 2 nodes \\(cum < 168 B\\)\\|"
expect_match "diff: growth is labelled + and red" "$(grep -F 'tooltip="big\n' "$TMP/d.dot")" 'label="big\\n0 of \+32.0 KiB.* color="#b2'
expect_match "diff: the shrink is labelled - and green" "$(grep -- '-> N1 .*main \.\.\. leaf_alloc' "$TMP/d.dot")" 'label=" -150 B".*color="#[0-9a-f]{2}b2'

# Rendered formats: what dot writes, in the place asked for.
run_status "$MPROF" --callgraph="$TMP/g.svg" "$TMP/base.pro"
expect_eq "svg: exit 0" "$STATUS:$ERR" "0:"
expect_eq "svg: one box per node plus the legend" "$(grep -c '<g id="node' "$TMP/g.svg")" 10
expect_match "svg: the tooltips keep the exact numbers" "$(grep -c -F 'xlink:title="recurse &#45;&gt; recurse (1000 bytes)"' "$TMP/g.svg")" "^[1-9]"
run_status "$MPROF" --callgraph="$TMP/g.png" "$TMP/base.pro"
expect_eq "png: a PNG" "$STATUS:$(head -c 4 "$TMP/g.png" | tail -c 3)" "0:PNG"
run_status "$MPROF" --diff "$TMP/base.pro" --callgraph="$TMP/d.pdf" "$TMP/new.pro"
expect_eq "pdf (diff): a PDF" "$STATUS:$(head -c 4 "$TMP/d.pdf")" "0:%PDF"

# Errors: one line each, nothing left behind.
run_status env PATH=/nonexistent "$MPROF" --callgraph="$TMP/x.svg" "$TMP/base.pro"
expect_eq "no dot on PATH: one line, exit 1, no file" "$STATUS:$ERR:$(ls "$TMP"/x.* 2> /dev/null)" \
	"1:mprof-tui: $TMP/x.svg: graphviz's dot program is not on PATH (install graphviz, or write a .dot file):"
run_status env PATH=/nonexistent "$MPROF" --callgraph="$TMP/x.dot" "$TMP/base.pro"
expect_eq "no dot on PATH: .dot is still written" "$STATUS:$(head -1 "$TMP/x.dot")" '0:digraph "mprof" {'
mkdir "$TMP/bin"
printf '#!/bin/sh\ncat > /dev/null\necho "Error: <stdin>: syntax error in line 3" >&2\necho "more" >&2\nexit 1\n' > "$TMP/bin/dot"
chmod +x "$TMP/bin/dot"
run_status env PATH="$TMP/bin:$PATH" "$MPROF" --callgraph="$TMP/y.svg" "$TMP/base.pro"
expect_eq "dot fails: its first complaint on one line, exit 1, no file" "$STATUS:$ERR:$(ls "$TMP"/y.* 2> /dev/null)" \
	"1:mprof-tui: $TMP/y.svg: dot -Tsvg failed (exit 1): Error: <stdin>: syntax error in line 3:"
run_status "$MPROF" --callgraph="$TMP/z.jpg" "$TMP/base.pro"
expect_eq "unknown extension: usage error, exit 2" "$STATUS:$ERR" \
	"2:mprof-tui: --callgraph writes .dot, .svg, .png or .pdf, not '$TMP/z.jpg'"
run_status "$MPROF" --callgraph="$TMP/no/such/dir/g.svg" "$TMP/base.pro"
expect_eq "no such directory: one line with the path, exit 1" "$STATUS:$(echo "$ERR" | wc -l)" "1:1"
expect_match "no such directory: the error names it" "$ERR" "^mprof-tui: $TMP/no/such/dir/g.svg.*No such file or directory$"
run_status "$MPROF" --callgraph="$TMP/rec.svg" "$DATA/recordings/peak-v2.rec"
expect_eq "a recording: refused on one line, not the report instead" "$STATUS:$OUT:$ERR:$(ls "$TMP"/rec.* 2> /dev/null)" \
	"2::mprof-tui: $DATA/recordings/peak-v2.rec: --callgraph and --flamegraph take a profile file, not a recording:"
run_status "$MPROF" --callgraph="$TMP/g.dot" "$TMP/graph_app.c"
expect_match "not a profile: exit 2, one line" "$STATUS:$ERR" "^2:mprof-tui: .*graph_app\\.c"

# go tool pprof draws the same graph of the same profile: every node's flat
# and cum, every edge's weight and style, the dropped counts (pprof's
# defaults are ours), Go's fixtures with inlined functions, rate 1 and
# sampled, all four sample types. pprof draws no self-edges; ours are left
# out of the comparison and counted.
if command -v go > /dev/null && go tool pprof -h > /dev/null 2>&1; then
	pairs=""
	for f in rate1 rate524288; do
		for s in inuse_space inuse_objects alloc_space alloc_objects; do
			case $s in inuse_space) o= ;; inuse_objects) o=--objects ;; alloc_space) o=--alloc ;; *) o="--alloc --objects" ;; esac
			go tool pprof -dot -unit=B -sample_index=$s "$DATA/go/$f/heap.pb.gz" > "$TMP/pp-$f-$s.dot" 2> /dev/null
			"$MPROF" $o --callgraph="$TMP/mp-$f-$s.dot" "$DATA/go/$f/heap.pb.gz" 2> /dev/null
			pairs="$pairs $f-$s"
		done
	done
	python3 - "$TMP" $pairs > "$TMP/peer" <<'PY'
import re, sys
q = r'"((?:[^"\\]|\\.)*)"'
def parse(path, pprof):
    names, nodes, edges, text = {}, {}, {}, open(path).read()
    for ln in text.split('\n'):
        m = re.match(r'N(\d+) \[label=' + q + '.*? tooltip=' + q, ln)
        if m and pprof:   # tooltip "name (cum)", flat in the label ("0 of" when none)
            name, cum = re.match(r'(.*) \((-?\d+)B?\)$', m.group(3)).groups()
            fl = [int(x.group(1)) for x in (re.match(r'(-?\d+)B? \(', p) for p in m.group(2).split('\\n')) if x]
            names[m.group(1)], nodes[name] = name, (fl[0] if fl else 0, int(cum))
        elif m:           # tooltip "name\nflat F unit, cum C unit"
            name, vals = m.group(3).split('\\n')
            name = re.sub(r'\\(.)', r'\1', re.sub(r' \(inlined\)$', '', name))
            names[m.group(1)] = name
            nodes[name] = tuple(int(x) for x in re.match(r'flat (-?\d+) \w+, cum (-?\d+) \w+$', vals).groups())
        m = re.match(r'N(\d+) -> N(\d+) \[label=' + q + '.*? tooltip=' + q, ln)
        if m:
            w = int(re.search(r'\((-?\d+)(?:B| \w+)?\)( \(inline\))?$', m.group(4)).group(1))
            edges[(names[m.group(1)], names[m.group(2)])] = (w, 'style="dotted"' in ln)
    dn, de = (re.search(r'Dropped (\d+) ' + w, text) for w in ('node', 'edge'))
    return nodes, edges, int(dn.group(1)) if dn else 0, int(de.group(1)) if de else 0
for pair in sys.argv[2:]:
    pn, pe, pdn, pde = parse('%s/pp-%s.dot' % (sys.argv[1], pair), True)
    on, oe, odn, ode = parse('%s/mp-%s.dot' % (sys.argv[1], pair), False)
    selfe = [k for k in oe if k[0] == k[1]]
    for k in selfe: del oe[k]
    why = []
    if not pn: why.append('pprof drew nothing')
    if pn != on: why.append('nodes: pprof only %s, ours only %s' % (sorted(set(pn.items()) - set(on.items()))[:2], sorted(set(on.items()) - set(pn.items()))[:2]))
    if pe != oe: why.append('edges: pprof only %s, ours only %s' % (sorted(set(pe.items()) - set(oe.items()))[:2], sorted(set(oe.items()) - set(pe.items()))[:2]))
    if (pdn, pde) != (odn, ode): why.append('dropped: pprof %d/%d, ours %d/%d' % (pdn, pde, odn, ode))
    print('%s\t%s' % (pair, '; '.join(why) or 'same: %d nodes, %d edges (+%d self), dropped %d nodes, %d edges' % (len(on), len(oe), len(selfe), odn, ode)))
PY
	while IFS='	' read -r pair res; do
		expect_match "go tool pprof -dot, $pair: the same graph" "$res" "^same: "
	done < "$TMP/peer"
	expect_eq "go tool pprof -dot: 8 profiles compared" "$(grep -c . "$TMP/peer")" 8
	renders "go rate524288 alloc_objects" "$TMP/mp-rate524288-alloc_objects.dot"
else
	echo "ok - # SKIP go tool pprof is not installed: no peer graph"
fi
