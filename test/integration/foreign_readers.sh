#!/bin/sh
# Other profilers' files (test/data/<tool>/, copied from the shared
# fixtures) read with the same numbers as the producing tool's own report
# (golden/): totals, and the flat values of the rows. Bad input: exit 2 and
# one line naming the file and the line.
. "$(dirname "$0")/../lib.sh"

# tsv_flats COL ARGS...: our non-zero flat values (COL 1 bytes, 2 objects),
# one per line, sorted; rows are addresses (or names: sum them with BYNAME=1).
tsv_flats() {
	col=$1
	shift
	"$MPROF" --no-symbols --top=flat --format=tsv "$@" | awk -F'\t' -v c="$col" -v byname="${BYNAME:-0}" '
		NR > 1 { k = byname ? $5 : NR; f[k] += $c }
		END { for (k in f) if (f[k] != 0) print f[k] }' | sort -n
}
# tsv_total COL ARGS...: the sum of the flat column.
tsv_total() {
	col=$1
	shift
	"$MPROF" --no-symbols --top=flat --format=tsv "$@" | awk -F'\t' -v c="$col" 'NR > 1 { t += $c } END { print t + 0 }'
}
# golden_flats FILE: the non-zero first column of a google-pprof/jeprof
# --text or go tool pprof -top report (bytes with -unit=B / --show_bytes).
golden_flats() {
	awk '/^ *-?[0-9]/ { v = $1; sub(/B$/, "", v); if (v != 0) print v }' "$1" | sort -n
}
# golden_byname FILE: "flat name" pairs of a go tool pprof -top report.
golden_byname() {
	awk '/^ *-?[0-9]/ { v = $1; sub(/B$/, "", v); n = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", n);
		sub(/ \(inline\)$/, "", n); if (v != 0) print v, n }' "$1" | sort
}
golden_total() {
	sed -n 's/^Total: \([0-9]*\).*/\1/p; s/^Showing nodes accounting for \([0-9]*\)B*, .*/\1/p' "$1" | head -1
}

# ---- gperftools: google-pprof --text (exact bytes and objects) ----------
for n in 0001 0002; do
	f=$DATA/gperftools/leakgen.$n.heap
	g=$DATA/gperftools/golden/leakgen.$n.google-pprof.text
	run_status "$MPROF" --info "$f"
	expect_eq "gperftools $n: loads" "$STATUS" 0
	expect_eq "gperftools $n: inuse bytes total" "$(tsv_total 1 "$f")" "$(golden_total $g.inuse_space.bytes.txt)"
	expect_eq "gperftools $n: inuse objects total" "$(tsv_total 2 "$f")" "$(golden_total $g.inuse_objects.txt)"
	expect_eq "gperftools $n: alloc bytes total" "$(tsv_total 1 --alloc "$f")" "$(golden_total $g.alloc_space.bytes.txt)"
	expect_eq "gperftools $n: alloc objects total" "$(tsv_total 2 --alloc "$f")" "$(golden_total $g.alloc_objects.txt)"
	# In use, every function has one allocation site: rows match one to one.
	expect_eq "gperftools $n: inuse flat bytes per site = google-pprof's" \
		"$(tsv_flats 1 "$f" | tr '\n' ' ')" "$(golden_flats $g.inuse_space.bytes.txt | tr '\n' ' ')"
	expect_eq "gperftools $n: inuse flat objects per site = google-pprof's" \
		"$(tsv_flats 2 "$f" | tr '\n' ' ')" "$(golden_flats $g.inuse_objects.txt | tr '\n' ' ')"
	expect_eq "gperftools $n: top 3 alloc sites" "$(tsv_flats 1 --alloc "$f" | tail -3 | tr '\n' ' ')" \
		"$(golden_flats $g.alloc_space.bytes.txt | tail -3 | tr '\n' ' ')"
done
run_status "$MPROF" --no-symbols --top=flat --format=tsv "$DATA/gperftools/leakgen.0002.heap"
expect_match "gperftools: known leak leak_blocks 3 x 1 MiB at one site" "$OUT" "^3145728	3	3145728	3	0x559579789277$"

# ---- jemalloc heap_v2: jeprof --text, jemalloc's own frames dropped --------
for n in 0.m0 1.f; do
	f=$DATA/jemalloc/jeprof.18970.$n.heap
	g=$DATA/jemalloc/golden/jeprof.18970.$n.jeprof.text
	expect_eq "jemalloc $n: inuse bytes total" "$(tsv_total 1 "$f")" "$(golden_total $g.inuse_space.bytes.txt)"
	expect_eq "jemalloc $n: inuse objects total" "$(tsv_total 2 "$f")" "$(golden_total $g.inuse_objects.txt)"
	expect_eq "jemalloc $n: alloc bytes total" "$(tsv_total 1 --alloc "$f")" "$(golden_total $g.alloc_space.bytes.txt)"
	expect_eq "jemalloc $n: alloc objects total" "$(tsv_total 2 --alloc "$f")" "$(golden_total $g.alloc_objects.txt)"
	expect_eq "jemalloc $n: inuse flat bytes per site = jeprof's" \
		"$(tsv_flats 1 "$f" | tr '\n' ' ')" "$(golden_flats $g.inuse_space.bytes.txt | tr '\n' ' ')"
	expect_eq "jemalloc $n: inuse flat objects per site = jeprof's" \
		"$(tsv_flats 2 "$f" | tr '\n' ' ')" "$(golden_flats $g.inuse_objects.txt | tr '\n' ' ')"
	expect_eq "jemalloc $n: top 3 alloc sites" "$(tsv_flats 1 --alloc "$f" | tail -3 | tr '\n' ' ')" \
		"$(golden_flats $g.alloc_space.bytes.txt | tail -3 | tr '\n' ' ')"
done
# The leaf must be the caller of malloc (leakgen's leak_blocks), not jemalloc.
run_status "$MPROF" --no-symbols --top=flat --format=tsv "$DATA/jemalloc/jeprof.18970.1.f.heap"
expect_match "jemalloc: leak_blocks' site is the leaf" "$OUT" "^3145728	3	3145728	3	0x55a7da82b277$"

# ---- Go legacy text (debug=1): go tool pprof -top, by function name -------
for r in rate1 rate524288; do
	f=$DATA/go/$r/heap.debug1.txt
	g=$DATA/go/golden/$r.heap.debug1.top
	for idx in inuse_space:1: inuse_objects:2: alloc_space:1:--alloc alloc_objects:2:--alloc; do
		name=${idx%%:*}; rest=${idx#*:}; col=${rest%%:*}; opt=${rest#*:}
		gf=$g.$name.txt
		[ -f $g.$name.bytes.txt ] && gf=$g.$name.bytes.txt
		# shellcheck disable=SC2086
		expect_eq "go $r $name: total = pprof's" "$(tsv_total $col $opt "$f")" "$(golden_total $gf)"
		# pprof names frames from the binary; we use Go's own "#" lines, which
		# name the innermost inlined function (strings.(*Builder).grow inside
		# strings.Repeat) and omit leading runtime frames (runtime.doaddtimer,
		# under time.resetTimer, 8 B): two known renames.
		# shellcheck disable=SC2086
		got=$("$MPROF" --no-symbols --top=flat --format=tsv $opt "$f" | awk -F'\t' -v c=$col 'NR > 1 { f[$5] += $c }
			END { for (k in f) if (f[k]) print f[k], k }' | sed 's/ strings\.(\*Builder)\.grow$/ strings.Repeat/; s/ time\.resetTimer$/ runtime.doaddtimer/' | sort)
		expect_eq "go $r $name: flat per function = pprof's" "$got" "$(golden_byname $gf)"
	done
done

# ---- pprof protobuf (Go debug=0, gzipped; inline frames kept) ------------
for r in rate1 rate524288; do
	f=$DATA/go/$r/heap.pb.gz
	g=$DATA/go/golden/$r.heap.pb.top
	for idx in inuse_space:1: inuse_objects:2: alloc_space:1:--alloc alloc_objects:2:--alloc; do
		name=${idx%%:*}; rest=${idx#*:}; col=${rest%%:*}; opt=${rest#*:}
		gf=$g.$name.txt
		[ -f $g.$name.bytes.txt ] && gf=$g.$name.bytes.txt
		# shellcheck disable=SC2086
		expect_eq "pprof $r $name: total = pprof's" "$(tsv_total $col $opt "$f")" "$(golden_total $gf)"
		# shellcheck disable=SC2086
		got=$("$MPROF" --no-symbols --top=flat --format=tsv $opt "$f" | awk -F'\t' -v c=$col 'NR > 1 { f[$5] += $c }
			END { for (k in f) if (f[k]) print f[k], k }' | sort)
		expect_eq "pprof $r $name: flat per function = pprof's (inline frames apart)" "$got" "$(golden_byname $gf)"
	done
done
# An inlined caller gets the cum of its inlined callee (pprof: strings.Repeat).
run_status "$MPROF" --no-symbols --top=cum --format=tsv "$DATA/go/rate1/heap.pb.gz"
expect_match "pprof: inlined caller strings.Repeat has the cum" "$OUT" "^0	0	22400	200	strings.Repeat$"

# ---- folded stacks: the sums the tools wrote, and the leaf rows -----------
for x in heaptrack.leakgen.leaked.folded:3217860 heaptrack.leakgen.peak.folded:3802578 \
	 heaptrack.leakgen.allocations.folded:13229 heaptrack.leakgen.temporary.folded:10017 \
	 gperftools.leakgen.0002.inuse_space.collapsed:3217884 gperftools.leakgen.0001.inuse_space.collapsed:3729884 \
	 jemalloc.jeprof.18970.1.f.inuse_space.collapsed:3302144; do
	expect_eq "folded ${x%%:*}: sum" "$(tsv_total 1 --alloc "$DATA/folded/${x%%:*}")" "${x#*:}"
done
expect_eq "folded gperftools collapsed: leaf rows = google-pprof's" \
	"$(BYNAME=1 tsv_flats 1 "$DATA/folded/gperftools.leakgen.0002.inuse_space.collapsed" | tr '\n' ' ')" \
	"$(golden_flats $DATA/gperftools/golden/leakgen.0002.google-pprof.text.inuse_space.bytes.txt | tr '\n' ' ')"
expect_eq "folded jeprof collapsed: leaf rows = jeprof's" \
	"$(BYNAME=1 tsv_flats 1 "$DATA/folded/jemalloc.jeprof.18970.1.f.inuse_space.collapsed" | tr '\n' ' ')" \
	"$(golden_flats $DATA/jemalloc/golden/jeprof.18970.1.f.jeprof.text.inuse_space.bytes.txt | tr '\n' ' ')"
run_status "$MPROF" --no-symbols --top=flat --format=tsv "$DATA/folded/heaptrack.leakgen.leaked.folded"
expect_match "folded heaptrack: names with spaces, stray ';' dropped" "$OUT" "	3145728	0	leak_blocks \\(leakgen.c\\)$"
expect_match "folded heaptrack: root first (main is cum of all)" "$OUT" "^0	0	3217860	0	main \\(leakgen.c\\)$"

# ---- bad input ------------------------------------------------------------
b=$TMP/bad
sed '3s/\[/(/' "$DATA/gperftools/leakgen.0002.heap" > $b
expect_refused "gperftools: broken sample line" $b "^mprof-tui: $b: line 3: expected 'N: N \\[N: N\\] @ addresses'$"
sed '3s/0x5595797891cf/0xZZ/' "$DATA/gperftools/leakgen.0002.heap" > $b
expect_refused "gperftools: bad address" $b "^mprof-tui: $b: line 3: bad address"
sed '1s/heapprofile/heapwhat/' "$DATA/gperftools/leakgen.0002.heap" > $b
expect_refused "gperftools: unknown kind" $b "^mprof-tui: $b: line 1: unknown heap profile kind 'heapwhat' \\(heapprofile, "
sed '23s/^.*$/nonsense/' "$DATA/gperftools/leakgen.0002.heap" > $b
expect_refused "gperftools: broken maps line" $b "^mprof-tui: $b: line 23: not a maps line"
sed '5s/t\*: 0: 0/t*: 0 0/' "$DATA/jemalloc/jeprof.18970.1.f.heap" > $b
expect_refused "jemalloc: broken counts" $b "^mprof-tui: $b: line 5: expected 'N: N \\[N: N\\]'$"
sed '1s/.*/heap_v2\/x/' "$DATA/jemalloc/jeprof.18970.1.f.heap" > $b
expect_refused "jemalloc: bad header" $b "^mprof-tui: $b: line 1: expected 'heap_v2/PERIOD'$"
sed '5,6d' "$DATA/jemalloc/jeprof.18970.1.f.heap" > $b
expect_refused "jemalloc: stack without counts" $b "^mprof-tui: $b: line 5: stack without a 't\\*:' line"
sed '2s/.*/2: 3145728 \[1: 3145728\] @ 0x4b5da5/;3s/.*/0: 5 [0: 0] @ 0x1/' "$DATA/go/rate1/heap.debug1.txt" > $b
expect_refused "go: bytes without objects" $b "^mprof-tui: $b: line 3: bytes without objects$"
{ head -3 "$DATA/folded/heaptrack.leakgen.leaked.folded"; echo "main;leak_blocks 12x"; } > $b
expect_refused "folded: line without a count" $b "^mprof-tui: $b: line 4: expected 'frame;frame;... COUNT'$"
head -c 2000 "$DATA/go/rate1/heap.pb.gz" > $b
expect_refused "pprof: truncated gzip" $b "^mprof-tui: $b: offset [0-9]+: gzip data"
printf '\n\002\010\0012\000\022\377\001abc' > $b
expect_refused "pprof: field past the end" $b "^mprof-tui: $b: offset 6: malformed protobuf field$"
printf '\n\002\010\001' > $b
expect_refused "pprof: no string table" $b "^mprof-tui: $b: offset 0: not a pprof profile"
