#!/bin/sh
# legacy_heap.sh - every legacy text heap profile pprof reads, with pprof's
# totals:
#  - tcmalloc's own GetHeapSample() (heap_v2/PERIOD, un-sampled per line) and
#    GetHeapGrowthStacks() ("growth", as written) from test/progs/
#    tc_heapsample.cpp: totals and per-function flat against google-pprof
#    (which sums un-sampled floats: within one unit per line) and go tool
#    pprof (which truncates per line, as we do: exactly); the known leaks
#    exactly; sampling off ("%warn" lines, heap_v2/0);
#  - every kind on one hand-checked line (heapprofile, heap_v2, heapz_v2,
#    heap, growthz, growth, fragmentationz; periods none, 0, 1);
#  - a sample with an empty stack: in every total and one "<no stack>" row,
#    in --top, the exports, the flame graph and the TUI (a real Go profile
#    with one empty-stack line added; a pprof protobuf sample without
#    locations);
#  - both memory-map trailers on hand-checked files (MAPPED_LIBRARIES:,
#    --- Memory map: --- with a variable, an offset and a build id);
#  - bad input: truncated, garbage headers, huge counts, hostile sampling
#    periods: exit 2 and one line naming the file and the line.
. "$(dirname "$0")/../lib.sh"
L=$DATA/legacy

# col_total COL: the sum of column COL of a TSV report on stdin (every
# sample has a row); row_of NAME: "flat_bytes flat_objects" of its row NAME.
col_total() { awk -F'\t' -v c="$1" 'NR > 1 { t += $c } END { printf "%.0f\n", t }'; }
row_of() { awk -F'\t' -v n="$1" 'NR > 1 && $5 == n { print $1, $2 }'; }
# tsv_total COL ARGS..., tsv_row NAME ARGS...: the same of our report on ARGS.
tsv_total() {
	col=$1
	shift
	"$MPROF" --top=flat --format=tsv "$@" | col_total "$col"
}
tsv_row() {
	n=$1
	shift
	"$MPROF" --top=flat --format=tsv "$@" | row_of "$n"
}
# go_total IDX FILE...: go tool pprof's total of sample type IDX.
go_total() {
	i=$1
	shift
	go tool pprof -top -nodefraction=0 -unit=B -sample_index="$i" "$@" 2> /dev/null |
		sed -n 's/^Showing nodes accounting for .* of \(-*[0-9]*\)B* total.*/\1/p'
}
HAVE_GO=0
command -v go > /dev/null 2>&1 && go tool pprof -h > /dev/null 2>&1 && HAVE_GO=1

# ---- tcmalloc's own heap sample and growth stacks --------------------------
cd "$TMP" || exit 2
# pp_total REPORT, pp_flat REPORT FUNC: of a google-pprof --text report.
pp_total() { sed -n 's/^Total: \([0-9.]*\).*/\1/p' "$1"; }
pp_flat() { awk -v f="$2" '$NF == f { print $1 }' "$1"; }
# within NAME OURS PPROF LINES: google-pprof sums floats, we truncate each
# line: 0 <= pprof - ours <= lines.
within() {
	if [ -n "$2" ] && [ -n "$3" ] && [ "$3" -ge "$2" ] && [ $(($3 - $2)) -le "$4" ]; then
		ok "$1 ($2, google-pprof $3)"
	else
		not_ok "$1" "ours: $2" "google-pprof: $3 (at most $4 above ours)"
	fi
}
if ! command -v google-pprof > /dev/null 2>&1; then
	echo "ok - # SKIP tcmalloc: google-pprof is missing (make deps installs google-perftools)"
elif ! c++ -g -O1 -fno-omit-frame-pointer -o tc_heapsample "$TOP/test/progs/tc_heapsample.cpp" -ltcmalloc \
	2> build.err; then
	not_ok "tcmalloc: build tc_heapsample against -ltcmalloc (make deps installs libgoogle-perftools-dev)" \
		"$(head -3 build.err)"
else
	TCMALLOC_SAMPLE_PARAMETER=65536 ./tc_heapsample s.heap g.heap
	expect_eq "tcmalloc: GetHeapSample and GetHeapGrowthStacks written" "$?" 0
	expect_match "tcmalloc: the sample is heap_v2/65536" "$(head -1 s.heap)" "^heap profile: .* @ heap_v2/65536$"
	expect_match "tcmalloc: the growth stacks are 'growth'" "$(head -1 g.heap)" "^heap profile: .* @ growth$"
	# Every report once, side by side: google-pprof symbolizes the whole
	# map on each run.
	for f in s g; do
		for m in inuse_space inuse_objects alloc_space alloc_objects; do
			google-pprof --text --$m --show_bytes ./tc_heapsample $f.heap > $f.$m 2> /dev/null &
		done
		"$MPROF" --top=flat --format=tsv $f.heap > $f.in 2> /dev/null &
		"$MPROF" --top=flat --format=tsv --alloc $f.heap > $f.al 2> /dev/null &
		wait
	done
	for f in s g; do
		n=$(sed -n '/^MAPPED_LIBRARIES:/q; /@/p' $f.heap | wc -l)
		n=$((n - 1))
		ti=$(col_total 1 < $f.in) oi=$(col_total 2 < $f.in) ta=$(col_total 1 < $f.al) oa=$(col_total 2 < $f.al)
		if [ $f = s ]; then
			# Un-sampled: google-pprof's float sums, at most a unit per line above.
			within "heap_v2: inuse bytes total = google-pprof's" "$ti" "$(pp_total $f.inuse_space)" $n
			within "heap_v2: inuse objects total = google-pprof's" "$oi" "$(pp_total $f.inuse_objects)" $n
			within "heap_v2: alloc bytes total = google-pprof's" "$ta" "$(pp_total $f.alloc_space)" $n
			within "heap_v2: alloc objects total = google-pprof's" "$oa" "$(pp_total $f.alloc_objects)" $n
			for fn in leak_mid leak_small; do
				row=$(row_of $fn < $f.in)
				within "heap_v2: $fn flat bytes = google-pprof's" "${row% *}" "$(pp_flat $f.inuse_space $fn)" $n
				within "heap_v2: $fn flat objects = google-pprof's" "${row#* }" "$(pp_flat $f.inuse_objects $fn)" $n
			done
			# 1 MiB and 3 MiB at a 64 KiB period: sampled all, scaled by 1 + 2^-16
			# and less: the known leaks exactly.
			expect_eq "heap_v2: leak_big = 4 x 1 MiB" "$(row_of leak_big < $f.in)" "4194304 4"
			expect_eq "heap_v2: grow_heap = 24 x 3 MiB" "$(row_of grow_heap < $f.in)" "75497472 24"
		else
			# growth: as written, exactly google-pprof's numbers.
			expect_eq "growth: inuse bytes total = google-pprof's" "$ti" "$(pp_total $f.inuse_space)"
			expect_eq "growth: inuse objects total = google-pprof's" "$oi" "$(pp_total $f.inuse_objects)"
			expect_eq "growth: alloc bytes total = google-pprof's" "$ta" "$(pp_total $f.alloc_space)"
			expect_eq "growth: alloc objects total = google-pprof's" "$oa" "$(pp_total $f.alloc_objects)"
			for fn in grow_heap leak_big churn warm_up; do
				expect_eq "growth: $fn flat = google-pprof's" "$(row_of $fn < $f.in)" \
					"$(pp_flat $f.inuse_space $fn) $(pp_flat $f.inuse_objects $fn)"
			done
			expect_eq "growth: grow_heap = 24 x 3 MiB" "$(row_of grow_heap < $f.in)" "75497472 24"
		fi
		# go tool pprof truncates per line as we do: equal.
		if [ $HAVE_GO = 1 ]; then
			expect_eq "$f.heap: inuse bytes total = go tool pprof's" "$ti" "$(go_total space ./tc_heapsample $f.heap)"
			expect_eq "$f.heap: inuse objects total = go tool pprof's" "$oi" \
				"$(go_total objects ./tc_heapsample $f.heap)"
		else
			echo "ok - # SKIP $f.heap: go tool pprof is missing (make deps installs golang-go)"
		fi
	done
	# go tool pprof keeps tcmalloc's frames (it has no names for them): our
	# flat of a leak function is its cum there.
	if [ $HAVE_GO = 1 ]; then
		gs=$(go tool pprof -top -cum -nodefraction=0 -unit=B -sample_index=space ./tc_heapsample s.heap 2> /dev/null)
		for fn in leak_mid leak_small; do
			expect_eq "heap_v2: $fn flat bytes = go tool pprof's cum" "$(row_of $fn < s.in | cut -d' ' -f1)" \
				"$(printf '%s\n' "$gs" | awk -v f=$fn '$NF == f { sub(/B$/, "", $4); print $4 }')"
		done
	fi
	# Sampling off: tcmalloc says so in "%warn" lines and writes heap_v2/0.
	./tc_heapsample s0.heap g0.heap
	expect_match "sampling off: tcmalloc's '%warn' lines, then heap_v2/0" "$(grep '^heap' s0.heap)" \
		"^heap profile: +0: +0 \\[ +0: +0\\] @ heap_v2/0$"
	expect_eq "sampling off: the file starts with '%warn'" "$(head -c 5 s0.heap)" "%warn"
	run_status "$MPROF" --top=flat --format=tsv s0.heap
	expect_eq "sampling off: loads (exit 0)" "$STATUS" 0
	google-pprof --text ./tc_heapsample s0.heap > /dev/null 2>&1
	expect_eq "sampling off: google-pprof reads it too" "$?" 0
	expect_eq "sampling off: no rows" "$OUT" "flat_bytes	flat_objects	cum_bytes	cum_objects	name"
fi
cd "$TOP" || exit 2

# ---- every kind, one line: un-sampled per line as pprof does ---------------
# 1 object of 1024 B in use, 2 allocated; at period 4096 both scale by
# 1 / (1 - exp(-1024/4096)) = 4.52081: 4 objects / 4629 B, 9 / 9258 B.
for x in heapprofile:1024:1:2048:2 heap_v2/4096:4629:4:9258:9 heapz_v2/4096:4629:4:9258:9 \
	 heap/8192:4629:4:9258:9 growthz:1024:1:2048:2 growth:1024:1:2048:2 fragmentationz:1024:1:2048:2 \
	 heap_v2:1024:1:2048:2 heap_v2/0:1024:1:2048:2 heap_v2/1:1024:1:2048:2 heap/3:1024:1:2048:2; do
	k=${x%%:*}
	want=$(echo "${x#*:}" | tr ':' ' ')
	printf 'heap profile: 1: 1024 [2: 2048] @ %s\n1: 1024 [2: 2048] @ 0x1\n' "$k" > "$TMP/k.heap"
	got="$(tsv_row 0x1 --no-symbols "$TMP/k.heap") $(tsv_row 0x1 --no-symbols --alloc "$TMP/k.heap")"
	expect_eq "kind $k: in use and allocated, un-sampled" "$got" "$want"
	if [ $HAVE_GO = 1 ]; then
		expect_eq "kind $k: the hand-checked in-use bytes are go tool pprof's" "$(echo "$want" | cut -d' ' -f1)" \
			"$(go_total inuse_space "$TMP/k.heap")"
	fi
done

# tcmalloc's output kept from one run of tc_heapsample (test/data/legacy):
# the same totals as go tool pprof, whatever this machine's tcmalloc does.
# (go tool pprof refuses tcmalloc.sampling_off.heap: it starts with %warn.)
for f in tcmalloc.heap_v2 tcmalloc.growth; do
	if [ $HAVE_GO = 1 ]; then
		expect_eq "$f (kept): inuse bytes, objects = go tool pprof's" \
			"$(tsv_total 1 --no-symbols "$L/$f.heap") $(tsv_total 2 --no-symbols "$L/$f.heap")" \
			"$(go_total space "$L/$f.heap") $(go_total objects "$L/$f.heap")"
	fi
done
expect_eq "tcmalloc.sampling_off (kept): loads, nothing in it" "$(tsv_total 1 --no-symbols "$L/tcmalloc.sampling_off.heap")" 0

# ---- empty stacks: every total, one <no stack> row ---------------------------
# go_nostack.heap.txt: Go's rate524288 profile with "2: 4096 [5: 10240] @"
# added (line 7). At 524288 that line scales by 256.500326: in use 513
# objects / 1050625 B, allocated 1282 / 2626563 B, beside go tool pprof's
# totals of the unchanged file (test/data/go/golden).
f=$L/go_nostack.heap.txt
g=$DATA/go/golden/rate524288.heap.debug1.top
gt() { sed -n 's/^Showing nodes accounting for \([0-9]*\)B*, .*/\1/p' "$1"; }
expect_eq "go empty stack: inuse bytes total" "$(tsv_total 1 --no-symbols "$f")" \
	$(($(gt $g.inuse_space.bytes.txt) + 1050625))
expect_eq "go empty stack: inuse objects total" "$(tsv_total 2 --no-symbols "$f")" \
	$(($(gt $g.inuse_objects.txt) + 513))
expect_eq "go empty stack: alloc bytes total" "$(tsv_total 1 --no-symbols --alloc "$f")" \
	$(($(gt $g.alloc_space.bytes.txt) + 2626563))
expect_eq "go empty stack: alloc objects total" "$(tsv_total 2 --no-symbols --alloc "$f")" \
	$(($(gt $g.alloc_objects.txt) + 1282))
if [ $HAVE_GO = 1 ]; then
	for x in inuse_space:1: inuse_objects:2: alloc_space:1:--alloc alloc_objects:2:--alloc; do
		i=${x%%:*}; r=${x#*:}; c=${r%%:*}; o=${r#*:}
		# shellcheck disable=SC2086
		expect_eq "go empty stack: $i total = go tool pprof's" "$(tsv_total $c --no-symbols $o "$f")" \
			"$(go_total $i "$f")"
	done
fi
expect_eq "go empty stack: one <no stack> row (in use)" "$(tsv_row '<no stack>' "$f")" "1050625 513"
expect_eq "go empty stack: one <no stack> row (allocated)" "$(tsv_row '<no stack>' --alloc "$f")" "2626563 1282"
expect_eq "go empty stack: its own row by module too" "$(tsv_row '<no stack>' --granularity=module "$f")" "1050625 513"
run_status "$MPROF" --top=flat "$f"
expect_match "go empty stack: --top text row" "$OUT" "^[0-9]+th +1026\\.00 +14\\.36% +513 +1026\\.00 +14\\.36% +513 +<no stack>$"
run_status "$MPROF" --top=cum --granularity=line "$f"
expect_match "go empty stack: a row at line granularity too" "$OUT" " 513 +<no stack>"
"$MPROF" --export=folded -o "$TMP/ns.folded" "$f"
expect_eq "go empty stack: folded export" "$(grep '^<no stack> ' "$TMP/ns.folded")" "<no stack> 1050625"
"$MPROF" --export=native -o "$TMP/ns.pro" "$f"
expect_eq "go empty stack: native export keeps the row" "$(tsv_row '<no stack>' "$TMP/ns.pro")" "1050625 513"
"$MPROF" --export=pprof -o "$TMP/ns.pb.gz" "$f"
expect_eq "go empty stack: pprof export keeps the row" "$(tsv_row '<no stack>' "$TMP/ns.pb.gz")" "1050625 513"
if [ $HAVE_GO = 1 ]; then
	expect_eq "go empty stack: pprof export's total = go tool pprof's" "$(go_total inuse_space "$TMP/ns.pb.gz")" \
		"$(go_total inuse_space "$f")"
fi
"$MPROF" --flamegraph="$TMP/ns.svg" "$f"
expect_match "go empty stack: in the flame graph" "$(cat "$TMP/ns.svg")" "&lt;no stack&gt;"
# pprof's own empty stack: no_locations.pb (written by hand: one sample
# type inuse_space/bytes, one sample of value 42 without locations).
expect_eq "pprof sample without locations: a <no stack> row" "$(tsv_row '<no stack>' "$L/no_locations.pb")" "42 0"
[ $HAVE_GO = 1 ] && expect_eq "pprof sample without locations: go tool pprof's total" \
	"$(go_total inuse_space "$L/no_locations.pb")" 42

# ---- the two memory-map trailers (hand-checked) ----------------------------
# 2 objects / 300 B leaf in server, 1 / 50 B leaf in libfoo; both stacks
# start in server. --- Memory map: --- spells server's path with $build.
for x in trailer_mapped:heapprofile trailer_memmap:growthz; do
	f=$L/${x%%:*}.heap
	expect_match "${x%%:*}: kind ${x#*:}" "$(head -1 "$f")" "@ ${x#*:}$"
	got=$("$MPROF" --top=flat --format=tsv --granularity=module "$f" 2> /dev/null | tail -n +2 | tr '\t\n' ' |')
	expect_eq "${x%%:*}: in use by module" "$got" \
		"300 2 350 3 /opt/app/bin/server|50 1 350 3 /usr/lib/libfoo.so.1|"
done
got=$("$MPROF" --top=flat --format=tsv --alloc --granularity=module "$L/trailer_mapped.heap" 2> /dev/null |
	tail -n +2 | tr '\t\n' ' |')
expect_eq "trailer_mapped: allocated by module" "$got" "600 4 700 6 /opt/app/bin/server|100 2 700 6 /usr/lib/libfoo.so.1|"
# A map line behind a glog prefix, as pprof reads it.
printf 'heap profile: 1: 10 [1: 10] @ heapprofile\n1: 10 [1: 10] @ 0x401010\n--- Memory map: ---\n%s\n' \
	'I1124 10:00:00.000000 4242 maps.cc:77] 00400000-00402000: /opt/app/bin/server' > "$TMP/glog.heap"
expect_eq "memory map behind a glog prefix" "$(tsv_row /opt/app/bin/server --granularity=module "$TMP/glog.heap")" "10 1"
if [ $HAVE_GO = 1 ]; then
	# pprof's reading of the same trailer: the same mappings.
	expect_eq "trailer_memmap: go tool pprof's mappings" \
		"$(go tool pprof -raw "$L/trailer_memmap.heap" 2> /dev/null | sed -n '/^Mappings/,$p' | sed 's/ *$//' | tr '\n' '|')" \
		"Mappings|1: 0x400000/0x402000/0x0 /opt/app/bin/server|2: 0x7f0000000000/0x7f0000003000/0x1000 /usr/lib/libfoo.so.1 3a7f0c11|"
fi

# ---- bad input ----------------------------------------------------------------
good() {  # name, file: loads, exit 0
	run_status "$MPROF" --no-symbols --top=flat --format=tsv "$2"
	expect_eq "$1: loads (exit 0)" "$STATUS" 0
}
b=$TMP/bad
gp=$DATA/gperftools/leakgen.0002.heap
head -c $(($(head -2 "$gp" | wc -c) + 12)) "$gp" > $b
expect_refused "truncated in a sample line" $b "^mprof-tui: $b: line 3: expected 'N: N \\[N: N\\] @ addresses'$"
head -c $(($(sed -n '1,/^MAPPED_LIBRARIES:/p' "$gp" | wc -c) + 20)) "$gp" > $b
expect_refused "truncated in the maps" $b "^mprof-tui: $b: line [0-9]+: not a maps line"
printf 'heap profile: 12 34\n' > $b
expect_refused "garbage header" $b "^mprof-tui: $b: line 1: expected 'heap profile: N: N \\[N: N\\] @ KIND\\[/PERIOD\\]'$"
printf '%%warn sampling is off\nheap profile: 1: 2 [3: 4] @ heap_v9/5\n1: 2 [3: 4] @ 0x1\n' > $b
expect_refused "unknown kind after %warn" $b "^mprof-tui: $b: line 2: unknown heap profile kind 'heap_v9'"
printf 'heap profile: 1: 2 [3: 4] @ heap_v2/524288 x\n' > $b
expect_refused "text after the kind" $b "^mprof-tui: $b: line 1: unexpected 'x' after the kind$"
printf 'heap profile: 1: 2 [3: 4] @ heap_v2/524288\n99999999999999999999: 1 [1: 1] @ 0x1\n' > $b
expect_refused "count over 64 bits" $b "^mprof-tui: $b: line 2: count out of range"
printf 'heap profile: 1: 2 [3: 4] @ heap_v2/524288\n1: 1 [9223372036854775808: 1] @ 0x1\n' > $b
expect_refused "count of 2^63" $b "^mprof-tui: $b: line 2: count out of range"
printf 'heap profile: 1: 2 [3: 4] @ heap_v2/524288\n1: 1 [-1: 1] @ 0x1\n' > $b
expect_refused "negative allocation count" $b "^mprof-tui: $b: line 2: expected 'N: N \\[N: N\\] @ addresses'$"
for per in -1 99999999999999999999 9223372036854775808 12x; do
	printf 'heap profile: 1: 2 [3: 4] @ heap_v2/%s\n1: 1 [1: 1] @ 0x1\n' $per > $b
	expect_refused "sampling period $per" $b "^mprof-tui: $b: line 1: sampling period '$per' is not a number from 0 to 2\\^63 - 1$"
done
printf 'heap profile: 1: 2 [3: 4] @ heapprofile\n1: 1 [1: 1] @ 0x1\nMAPPED_LIBRARIES:\nnonsense here\n' > $b
expect_refused "garbage in the maps" $b "^mprof-tui: $b: line 4: not a maps line"
# Hostile but pprof's grammar: the largest period scales by +Inf, the
# largest counts past 2^63 (both saturate); negative in use (pprof takes it).
printf 'heap profile: 1: 2 [3: 4] @ heap_v2/9223372036854775807\n1: 1 [1: 1] @ 0x1\n' > $b
good "period 2^63 - 1" $b
expect_match "period 2^63 - 1: saturates" "$OUT" "^9223372036854775807	9223372036854775807	"
printf 'heap profile: 1: 2 [3: 4] @ heap_v2/524288\n9223372036854775807: 9223372036854775807 [1: 1] @ 0x1\n' > $b
good "counts of 2^63 - 1" $b
printf 'heap profile: 1: 2 [3: 4] @ heapprofile\n-2: -100 [3: 300] @ 0x1\n1: 50 [1: 50] @ 0x2\n' > $b
good "negative in use" $b
expect_eq "negative in use: summed as pprof does" "$(tsv_total 1 --no-symbols $b) $(tsv_total 2 --no-symbols $b)" "-50 -1"
printf 'heap profile: 1: 2 [3: 4] @ heap_v2/4096\n-1: -1024 [2: 2048] @ 0x1\n' > $b
expect_eq "negative in use: un-sampled by its magnitude" "$(tsv_row 0x1 --no-symbols $b)" "-4629 -4"
# (pprof's "total" is of magnitudes; the nodes account for the sum.)
[ $HAVE_GO = 1 ] && expect_eq "negative in use: go tool pprof's sum" -4629 \
	"$(go tool pprof -top -nodefraction=0 -unit=B -sample_index=inuse_space $b 2> /dev/null |
		sed -n 's/^Showing nodes accounting for \(-*[0-9]*\)B*, .*/\1/p')"
printf 'heap profile: 1: 2 [3: 4] @ heap_v2/4096\n-1: 1024 [2: 2048] @ 0x1\n' > $b
expect_refused "in use of two signs" $b "^mprof-tui: $b: line 2: in-use objects and bytes of different signs$"

# ---- the TUI shows the row ------------------------------------------------------
. "$TOP/test/tmux.sh"
tmux_start 100 30 "$TMP"
keys "'$MPROF' --no-symbols '$L/go_nostack.heap.txt'" Enter
check "TUI: the <no stack> row" "<no stack>"
keys q
tmux_down
