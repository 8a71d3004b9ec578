#!/bin/sh
# --diff BASE NEW (rows matched by module+offset or name across ASLR) and
# --export=pprof|folded|skynet|native: exact deltas, and exports that our
# own readers (and go tool pprof, when it can be had) read back the same.
. "$(dirname "$0")/../lib.sh"
M="$MPROF --no-symbols"

# tsv FILE [OPTS]: the address-granularity TSV rows, sorted (ties unordered).
tsv() {
	f=$1
	shift
	$M --top=flat --format=tsv "$@" "$f" | sort
}
# byname: "flat_bytes<TAB>name" summed per name, from TSV rows.
byname() { awk -F'\t' '$5 != "name" { s[$5] += $1 } END { for (k in s) if (s[k]) print s[k] "\t" k }' | sort; }
# Numbers only (names change when a format writes its own).
nums() { tsv "$@" | cut -f1-4 | sort; }

# ---- diff: skynet v1 dumps of two runs (different ASLR bases) -----------
D=$DATA
run_status $M --diff "$D/test_mem_fixed.pro" --top=flat --format=tsv "$D/test_mem.pro"
expect_eq "diff v1: exit 0" "$STATUS" 0
expect_match "diff v1: +0xb55d leak site grew 31 objects / 2,880 B" "$OUT" \
	"^2880	31	2880	31	\\./skynet/luaclib/skynet\\.so\\(\\+0xb55d\\) "
expect_match "diff v1: +0xb519 leak site grew 29 objects / 2,384 B" "$OUT" \
	"^2384	29	2384	29	\\./skynet/luaclib/skynet\\.so\\(\\+0xb519\\) "
expect_match "diff v1: the pending timer of the fixed run is -1 / -32 B" "$OUT" \
	"^-32	-1	-32	-1	\\./skynet/skynet\\(skynet_timeout\\+0x30\\) "
expect_eq "diff v1: total in-use delta is the 60 leaked messages (5,264 B)" \
	"$(printf '%s\n' "$OUT" | awk -F'\t' 'NR > 1 { b += $1; o += $2 } END { print b, o }')" "5264 60"
# Reversed (NEW smaller than BASE): the biggest change first, shrink or growth.
run_status $M --diff "$D/test_mem.pro" --top=flat --format=tsv "$D/test_mem_fixed.pro"
expect_eq "reverse diff: the biggest shrink first, then the next" \
	"$(printf '%s\n' "$OUT" | sed -n '2,3p' | cut -f1,2)" "$(printf -- '-2880\t-31\n-2384\t-29')"
expect_eq "reverse diff: the small timer growth after them" "$(printf '%s\n' "$OUT" | sed -n 4p | cut -f1,2)" "$(printf '32\t1')"
run_status $M --diff "$D/test_mem_fixed.pro" --alloc --top=flat --format=tsv "$D/test_mem.pro"
expect_match "diff v1 alloc: +0xb55d 31 - 43 objects, 2,880 - 4,384 B" "$OUT" \
	"^-1504	-12	-1504	-12	\\./skynet/luaclib/skynet\\.so\\(\\+0xb55d\\) "
expect_match "diff v1 alloc: +0xb519 29 - 17 objects, 2,384 - 1,184 B" "$OUT" \
	"^1200	12	1200	12	\\./skynet/luaclib/skynet\\.so\\(\\+0xb519\\) "
# Every leaf: delta = NEW - BASE, keyed by the name without its [0xaddr].
key_vals() { awk -F'\t' 'NR > 1 && $1 != 0 { n = $5; sub(/ \[0x[0-9a-f]*\]$/, "", n); v[n] += $1 }
	END { for (k in v) print k "\t" v[k] }' | sort; }
for mode in "" --alloc; do
	# shellcheck disable=SC2086
	$M --top=flat --format=tsv $mode "$D/test_mem.pro" | key_vals > "$TMP/new"
	# shellcheck disable=SC2086
	$M --top=flat --format=tsv $mode "$D/test_mem_fixed.pro" | key_vals > "$TMP/base"
	# shellcheck disable=SC2086
	$M --diff "$D/test_mem_fixed.pro" --top=flat --format=tsv $mode "$D/test_mem.pro" | key_vals > "$TMP/diff"
	want=$(join -t "$(printf '\t')" -a1 -a2 -e 0 -o 0,1.2,2.2 "$TMP/new" "$TMP/base" |
		awk -F'\t' '$2 - $3 != 0 { print $1 "\t" $2 - $3 }')
	expect_eq "diff v1 ${mode:-inuse}: every leaf delta = NEW - BASE" "$(cat "$TMP/diff")" "$want"
done
# The same run against itself: nothing left.
run_status $M --diff "$D/test_mem.pro" --top=flat --format=tsv "$D/test_mem.pro"
expect_eq "diff of a file with itself is empty" "$OUT" "flat_bytes	flat_objects	cum_bytes	cum_objects	name"

# ---- diff: gperftools, two dumps of one run ------------------------------
G=$DATA/gperftools
run_status $M --diff "$G/leakgen.0001.heap" --top=flat --format=tsv "$G/leakgen.0002.heap"
expect_eq "diff gperftools: in use, only the batch (freed after the checkpoint) changed" \
	"$(printf '%s\n' "$OUT" | awk -F'\t' 'NR > 1 && $1 != 0')" "-512000	-2000	-512000	-2000	0x55957978960c"
run_status $M --diff "$G/leakgen.0001.heap" --alloc --top=flat --format=tsv "$G/leakgen.0002.heap"
expect_eq "diff gperftools: no allocation after the checkpoint" \
	"$(printf '%s\n' "$OUT" | awk -F'\t' 'NR > 1 && ($1 != 0 || $2 != 0)' | wc -l)" 0
# Across runs with different bases: jemalloc vs gperftools of one binary
# keys by module + offset (leakgen+0x1277 is leak_blocks' site in both).
run_status $M --diff "$G/leakgen.0002.heap" --top=flat --format=tsv "$DATA/jemalloc/jeprof.18970.1.f.heap"
expect_match "diff across ASLR: leak_blocks' site cancels out (matched by leakgen+0x1277)" \
	"$(printf '%s\n' "$OUT" | grep -c '0x55a7da82b277$')" "^0$"
expect_match "diff across ASLR: strdup site 22,400 - 20,000 (usable vs requested sizes)" "$OUT" \
	"^2400	0	2400	0	0x7fc977cbc9aa$"
printf 'junk\n' > "$TMP/junk"
run_status $M --diff "$TMP/junk" --top=flat "$D/test_mem.pro"
expect_eq "diff: bad BASE is exit 2" "$STATUS" 2
expect_match "diff: bad BASE names the file" "$ERR" "^mprof-tui: $TMP/junk: "

# ---- exports re-read by our own readers --------------------------------
for f in "$D/test_mem.pro" "$G/leakgen.0002.heap" "$DATA/jemalloc/jeprof.18970.1.f.heap" \
	 "$DATA/go/rate1/heap.pb.gz" "$DATA/go/rate524288/heap.debug1.txt"; do
	n=$(basename "$f")
	for fmt in native pprof; do
		run_status $M --export=$fmt -o "$TMP/x.$fmt" "$f"
		expect_eq "export $fmt $n: exit 0, quiet" "$STATUS:$OUT" "0:"
		for mode in "" --alloc; do
			# shellcheck disable=SC2086
			expect_eq "export $fmt $n ${mode:-inuse}: re-read rows are the same" \
				"$(tsv "$TMP/x.$fmt" $mode)" "$(tsv "$f" $mode)"
		done
	done
	run_status $M --export=skynet -o "$TMP/x.pro" "$f"
	expect_eq "export skynet $n: exit 0" "$STATUS" 0
	# v1 keeps 32-bit counters and writes names of its own: numbers only.
	expect_eq "export skynet $n: re-read numbers are the same" "$(nums "$TMP/x.pro" --alloc)" "$(nums "$f" --alloc)"
	run_status $M --export=folded -o "$TMP/x.folded" "$f"
	expect_eq "export folded $n: exit 0" "$STATUS" 0
	expect_eq "export folded $n: re-read in-use bytes per name are the same" \
		"$(tsv "$TMP/x.folded" --alloc | byname)" "$(tsv "$f" | byname)"
done
$M --export=folded --alloc --objects -o "$TMP/a.folded" "$DATA/go/rate1/heap.pb.gz"
expect_match "export folded: root first, inline chain kept, weight = chosen metric" "$(cat "$TMP/a.folded")" \
	"^runtime\\.main;main\\.main;main\\.leakStrings;strings\\.Repeat;strings\\.\\(\\*Builder\\)\\.Grow;strings\\.\\(\\*Builder\\)\\.grow 200$"
run_status $M --export=bogus -o "$TMP/x" "$D/test_mem.pro"
expect_eq "export: unknown format is exit 2" "$STATUS" 2
run_status $M --export=pprof "$D/test_mem.pro"
expect_eq "export: no -o is exit 2" "$STATUS:$ERR" "2:mprof-tui: --export needs -o FILE"
run_status $M --export=pprof -o "$TMP/no/such/dir/x" "$D/test_mem.pro"
expect_eq "export: unwritable path is exit 1" "$STATUS" 1
expect_match "export: unwritable path names it" "$ERR" "^mprof-tui: $TMP/no/such/dir/x: No such file"

# ---- go tool pprof on our export -------------------------------------
GO=$(command -v go || ls /usr/lib/go-*/bin/go 2>/dev/null | head -1)
if [ -z "$GO" ] && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
	timeout 120 apt-get install -y -q golang-go > "$TMP/apt.log" 2>&1
	GO=$(command -v go || ls /usr/lib/go-*/bin/go 2>/dev/null | head -1)
fi
if [ -z "$GO" ]; then
	echo "ok - # SKIP go tool pprof: golang-go is not installed and could not be installed here"
else
	# pprof's -top by function name on our export equals our own rows by name.
	for f in "$G/leakgen.0002.heap" "$DATA/go/rate1/heap.pb.gz" "$D/test_mem.pro"; do
		n=$(basename "$f")
		$M --export=pprof -o "$TMP/g.pb.gz" "$f"
		for idx in inuse_space:1: alloc_space:1:--alloc inuse_objects:2: alloc_objects:2:--alloc; do
			name=${idx%%:*}; rest=${idx#*:}; col=${rest%%:*}; opt=${rest#*:}
			got=$(HOME=$TMP "$GO" tool pprof -top -nodefraction=0 -unit=B -sample_index=$name "$TMP/g.pb.gz" 2>/dev/null |
				awk '/^ *-?[0-9]/ { v = $1; sub(/B$/, "", v); n = $0;
					sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", n); sub(/ \(inline\)$/, "", n);
					if (v != 0) print v "\t" n }' | sort)
			# shellcheck disable=SC2086
			want=$($M --top=flat --format=tsv $opt "$f" | awk -F'\t' -v c=$col 'NR > 1 { s[$5] += $c }
				END { for (k in s) if (s[k]) print s[k] "\t" k }' |
				sed -E 's/\((\+|[A-Za-z_][A-Za-z_0-9]*\+)0x[0-9a-f]+\)//' | sort)
			# (pprof prints names without their "(+0xoff)" part, as C++ argument lists)
			expect_eq "go tool pprof -top on our export of $n ($name) = our flat rows" "$got" "$want"
		done
	done

	# With symbols, the export carries source lines: pprof -list shows an
	# inlined function's bytes on its own source line, -lines names it.
	P=$TOP/test/progs
	mkdir -p "$TMP/sa"
	cp "$P/sym_app.c" "$P/sym_cxx.cpp" "$P/sym_lib.c" "$TMP/sa/"
	if (cd "$TMP/sa" && gcc -O2 -g -fPIC -shared -o libsymdl.so sym_lib.c && g++ -O2 -g -c sym_cxx.cpp &&
	    gcc -O2 -g -c sym_app.c && g++ -o sym_app sym_app.o sym_cxx.o -ldl &&
	    MPROF_OUT=$TMP/sa/n.pro LD_PRELOAD=$TOP/libmprof.so ./sym_app v1.pro "$TMP/sa/libsymdl.so"); then
		L=$(grep -n 'L:grow_buf' "$P/sym_app.c" | cut -d: -f1)
		"$MPROF" --export=pprof -o "$TMP/sa/l.pb.gz" "$TMP/sa/n.pro" 2> /dev/null
		lst=$(HOME=$TMP "$GO" tool pprof -list '^grow_buf$' -sample_index=inuse_space "$TMP/sa/l.pb.gz" 2> /dev/null)
		expect_match "pprof -list: grow_buf's routine is in sym_app.c" "$lst" "ROUTINE =+ grow_buf in $TMP/sa/sym_app.c"
		expect_match "pprof -list: its 300 B on line $L" "$lst" "^ +\. +300B +$L:.*L:grow_buf"
		top=$(HOME=$TMP "$GO" tool pprof -lines -top -nodefraction=0 -sample_index=inuse_space "$TMP/sa/l.pb.gz" 2> /dev/null)
		expect_match "pprof -lines: rows name file:line" "$top" " rec_alloc $TMP/sa/sym_app.c:[0-9]+"
		raw=$(HOME=$TMP "$GO" tool pprof -raw "$TMP/sa/l.pb.gz" 2> /dev/null)
		expect_match "pprof -raw: locations carry lines, inline frames as lines of one location" "$raw" \
			"grow_buf $TMP/sa/sym_app.c:$L s=0"
	else
		not_ok "sym_app builds and runs under the hook"
	fi
fi
