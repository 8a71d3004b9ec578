#!/bin/sh
# peak.sh - the heap's peak in every dump (issue 34): peak_known holds f
# 3 MiB, g 5 MiB (the peak, 8 MiB), frees g's, allocates h 1 MiB and exits
# with f and h held.  Checked exactly in the dump (--top --peak, folded,
# flame graph, call graph), a file without a peak refused in one line
# (exit 2).
. "$(dirname "$0")/../lib.sh"
hook_prog pk "$TOP/test/progs/peak_known.c"
MIB=1048576

# cum NAME FILE [--peak|--alloc]: NAME's cum bytes at function granularity ("" when no row).
cum() {
	"$MPROF" --top=cum --format=tsv --granularity=function $3 "$2" 2> /dev/null |
		awk -F '\t' -v n="$1" '$5 == n { print $3 }'
}

(cd "$TMP" && MPROF_OUT=$TMP/pk.pro LD_PRELOAD=$HOOK ./pk > "$TMP/pk.out" 2> "$TMP/pk.err")
expect_eq "dump: written" "$(cat "$TMP/pk.out")" ready
expect_eq "in use: f holds 3 MiB" "$(cum f_hold "$TMP/pk.pro")" $((3 * MIB))
expect_eq "in use: h holds 1 MiB" "$(cum h_hold "$TMP/pk.pro")" $((1 * MIB))
expect_eq "in use: g holds nothing" "$(cum g_hold "$TMP/pk.pro")" ""
expect_eq "--peak: f held 3 MiB" "$(cum f_hold "$TMP/pk.pro" --peak)" $((3 * MIB))
expect_eq "--peak: g held 5 MiB" "$(cum g_hold "$TMP/pk.pro" --peak)" $((5 * MIB))
expect_eq "--peak: h held nothing" "$(cum h_hold "$TMP/pk.pro" --peak)" ""
expect_eq "--alloc: g allocated 5 MiB" "$(cum g_hold "$TMP/pk.pro" --alloc)" $((5 * MIB))
expect_match "--peak: a note says when the peak was and how high" \
	"$("$MPROF" --top=flat --peak "$TMP/pk.pro" 2>&1 > /dev/null)" \
	"^mprof-tui: note: .*/pk\.pro: the heap at its peak 8\.00 MiB \(8 objects\) at [0-9:]{8}, [0-9.]+ s in$"

# Exports at the peak.
"$MPROF" --export=folded --peak --granularity=function -o "$TMP/pk.folded" "$TMP/pk.pro" 2> /dev/null
expect_eq "folded --peak: g's stack weighs 5 MiB" \
	"$(awk '/g_hold/ { s += $NF } END { print s }' "$TMP/pk.folded")" $((5 * MIB))
expect_eq "folded --peak: no h" "$(grep -c h_hold "$TMP/pk.folded")" 0
"$MPROF" --export=pprof --peak -o "$TMP/pk.pb.gz" "$TMP/pk.pro" 2> /dev/null
expect_eq "pprof --peak: read back, g held 5 MiB" "$(cum g_hold "$TMP/pk.pb.gz")" $((5 * MIB))
"$MPROF" --flamegraph="$TMP/pk.svg" --peak "$TMP/pk.pro" 2> /dev/null
expect_match "flame graph --peak: g's frame" "$(grep -o 'g_hold[^<]*' "$TMP/pk.svg" | head -1)" "g_hold"
"$MPROF" --callgraph="$TMP/pk.dot" --peak "$TMP/pk.pro" 2> /dev/null
expect_match "call graph --peak: g's node" "$(grep -c g_hold "$TMP/pk.dot")" "^[1-9]"

# A file without a peak: one clear line, exit 2.
run_status "$MPROF" --top=flat --peak "$DATA/test_mem.pro"
expect_eq "no peak: exit 2" "$STATUS" 2
expect_eq "no peak: one line that says so" "$ERR" \
	"mprof-tui: $DATA/test_mem.pro: no peak in this profile (--peak needs a dump of libmprof.so that kept one)"
