#!/bin/sh
# Our batch reports against skynet-mprof's own output on real dumps:
# the same rows and numbers, and rows in the reference's order up to ties.
# --no-symbols: the reference prints recorded names, one row per address.
. "$(dirname "$0")/../lib.sh"
G=$DATA/golden/skynet
strip_rank() { sed 's/^[0-9]*th *//' | LC_ALL=C sort; }
for d in test_mem test_mem_fixed test_mem_abspath; do
	for mode in inuse alloc; do
		for t in flat cum; do
			if [ $mode = alloc ]; then flag=--alloc; gm=alloc.; else flag=--inuse; gm=; fi
			"$MPROF" --no-symbols --top=$t $flag "$DATA/$d.pro" > "$TMP/out"
			expect_eq "$d $mode top=$t exits 0" $? 0
			strip_rank < "$TMP/out" > "$TMP/got"
			strip_rank < "$G/$d.${gm}top-$t.rows-sorted.txt" > "$TMP/want"
			expect_file_eq "$d $mode top=$t rows equal the reference's" "$TMP/got" "$TMP/want"
			# Order: the reference's row order, compared by sort keys (ties
			# in any order): the sequence of (flat, cum) columns must match.
			# In flat mode rows go by (flat, cum); in cum mode by cum alone.
			if [ $t = flat ]; then
				keys() { sed 's/^[0-9]*th *//' | awk '{print $1, $3, $4, $6}'; }
			else
				keys() { sed 's/^[0-9]*th *//' | awk '{print $1, $3}'; }
			fi
			keys < "$TMP/out" > "$TMP/gk"
			keys < "$G/$d.${gm}top-$t.nocolor.txt" > "$TMP/wk"
			expect_file_eq "$d $mode top=$t row order" "$TMP/gk" "$TMP/wk"
		done
	done
	"$MPROF" --info "$DATA/$d.pro" > "$TMP/info"
	sed -n '1,/^------------------------------------/p' "$TMP/info" > "$TMP/gn"
	sed -n '1,/^------------------------------------/p' "$G/$d.info.txt" > "$TMP/wn"
	expect_file_eq "$d --info names, by id" "$TMP/gn" "$TMP/wn"
	sort "$TMP/info" > "$TMP/gs"
	sort "$G/$d.info.txt" > "$TMP/ws"
	expect_file_eq "$d --info samples" "$TMP/gs" "$TMP/ws"
	# Samples come by in-use bytes, largest first.
	sed -n '/^AllocBytes/,$p' "$TMP/info" | tail -n +2 | awk '{print $1 - $2}' > "$TMP/iu"
	sort -n -r -s "$TMP/iu" > "$TMP/iu.sorted"
	expect_file_eq "$d --info samples by in-use bytes" "$TMP/iu" "$TMP/iu.sorted"
done

# The known leak (fixtures README): 60 messages, 5,264 bytes in the two
# netpack sites, 1 object of 32 bytes in _filter_args.
"$MPROF" --no-symbols --top=flat --format=tsv "$DATA/test_mem.pro" > "$TMP/tsv"
expect_eq "tsv header" "$(head -1 "$TMP/tsv")" "$(printf 'flat_bytes\tflat_objects\tcum_bytes\tcum_objects\tname')"
leak=$(awk -F'\t' '$5 ~ /skynet.so\(\+0xb5(5d|19)\)/ {b += $1; o += $2} END {print o, b}' "$TMP/tsv")
expect_eq "test_mem leak: 60 objects, 5264 bytes" "$leak" "60 5264"
expect_eq "tsv total flat in use" "$(awk -F'\t' 'NR > 1 {b += $1} END {print b}' "$TMP/tsv")" 5296
"$MPROF" --no-symbols --top=flat --format=tsv --alloc "$DATA/test_mem.pro" > "$TMP/tsv"
expect_eq "tsv total flat alloc" "$(awk -F'\t' 'NR > 1 {b += $1; o += $2} END {print o, b}' "$TMP/tsv")" "221 11848"
"$MPROF" --no-symbols --top=flat -n 2 "$DATA/test_mem.pro" > "$TMP/out"
expect_eq "-n 2 prints two rows" "$(grep -c 'th ' "$TMP/out")" 2
"$MPROF" --no-symbols --top=flat --objects --format=tsv "$DATA/test_mem_abspath.pro" | sed -n 2p > "$TMP/out"
expect_match "--objects ranks by objects" "$(cat "$TMP/out")" "^4832	51	"

# Edge cases the reference handles: nothing in use, and no samples at all.
python3 - "$TMP/freed.pro" "$TMP/empty.pro" <<'PY'
import struct, sys
name = b"./app(f+0x1) [0x1000]"
funcs = struct.pack('>I', 1) + bytes([len(name)]) + name + struct.pack('>Q', 0x1000)
body = funcs + struct.pack('>5IQ', 3, 96, 3, 96, 1, 0x1000)
open(sys.argv[1], 'wb').write(struct.pack('>I', len(body)) + body)
open(sys.argv[2], 'wb').write(struct.pack('>II', 4, 0))
PY
run_status "$MPROF" --no-symbols --top=flat "$TMP/freed.pro"
expect_eq "all freed: exit 0" "$STATUS" 0
expect_eq "all freed: in use says total is 0" "$OUT" "$(printf -- '-----------inuse space ranking----------\ntotal bytes is 0')"
run_status "$MPROF" --no-symbols --top=flat --alloc "$TMP/freed.pro"
expect_match "all freed: alloc shows the 96 bytes" "$OUT" "^1th +0\\.09 +100\\.00% +3 +0\\.09 +100\\.00% +3 +\\./app\\(f\\+0x1\\) \\[0x1000\\]$"
run_status "$MPROF" --no-symbols --top=cum "$TMP/empty.pro"
expect_eq "no samples: exit 0" "$STATUS" 0
expect_match "no samples: total is 0" "$OUT" "total bytes is 0"
run_status "$MPROF" --info "$TMP/empty.pro"
expect_eq "no samples: --info has the headers only" "$(printf '%s\n' "$OUT" | wc -l)" 3
