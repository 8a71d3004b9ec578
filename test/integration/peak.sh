#!/bin/sh
# peak.sh - the heap's peak in every dump (issue 34): peak_known holds f
# 3 MiB, g 5 MiB (the peak, 8 MiB), frees g's, allocates h 1 MiB and exits
# with f and h held.  Checked exactly in the dump (--top --peak, folded,
# flame graph, call graph), a file without a peak refused in one line
# (exit 2), the UI's s cycle (in use -> alloc -> at peak) and its title,
# and the live screen (tmux) while the program waits with the peak behind it.
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

# A peak of 32 KiB (blocks of 4 KiB): the hook copies the counters every
# 4 KiB of growth, so a small program's peak is kept too (with a 64 KiB
# margin it was never copied and --peak showed the heap at exit).
(cd "$TMP" && MPROF_OUT=$TMP/small.pro LD_PRELOAD=$HOOK ./pk - 4096 > /dev/null 2>&1)
expect_eq "small peak: f held 12 KiB" "$(cum f_hold "$TMP/small.pro" --peak)" 12288
expect_eq "small peak: g held 20 KiB" "$(cum g_hold "$TMP/small.pro" --peak)" 20480

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

# The UI: s cycles in use -> alloc -> at peak -> in use; the title says the peak.
. "$TOP/test/tmux.sh"
tmux_start 160 30 "$TMP"
keys "'$MPROF' --granularity=function '$TMP/pk.pro'; echo EXIT=\$?" Enter
check "UI: in use first" "in use bytes  total 4.00 MiB (4 objects)"
expect_match "UI: the title says when the peak was and how high" "$(screen | sed -n 2p)" \
	"^ Main table  sort flat.  peak 8\.00 MiB \(8 objects\) at [0-9:]{8}, [0-9.]+ s in$"
keys s
check "UI: s: alloc" "alloc bytes  total 9.00 MiB (9 objects)"
keys s
check "UI: s again: at peak" "at peak bytes  total 8.00 MiB (8 objects)"
expect_match "UI at peak: g held 5 MiB" "$(screen | grep ' g_hold ')" "^ +[0-9]+ +0 B .* 5\.00 MiB +62\.5% +5 g_hold "
expect_match "UI at peak: f held 3 MiB" "$(screen | grep ' f_hold ')" "^ +[0-9]+ +0 B .* 3\.00 MiB +37\.5% +3 f_hold "
expect_eq "UI at peak: no h row" "$(screen | grep -c ' h_hold ')" 0
keys s
check "UI: s a third time: in use again" "in use bytes  total 4.00 MiB (4 objects)"
expect_match "UI in use: h holds 1 MiB" "$(screen | grep ' h_hold ')" " 1\.00 MiB .* h_hold "
keys q
check "UI: quits" "EXIT=0"
# A profile without a peak: s toggles between the two.
keys "'$MPROF' --no-symbols '$DATA/test_mem.pro'; echo EXIT=\$?" Enter
check "UI, no peak: in use" "in use bytes  total 5.17 KiB"
expect_eq "UI, no peak: no peak in the title" "$(screen | sed -n 1,2p | grep -c '  peak ')" 0
keys s
check "UI, no peak: s: alloc" "alloc bytes  total 11.6 KiB"
keys s
check "UI, no peak: s again: in use" "in use bytes  total 5.17 KiB"
keys q

# Live (-- CMD): the peak so far, while the program waits past it.
tmux_start 160 30 "$TMP"
keys "'$MPROF' --interval 200 --granularity=function -- '$TMP/pk' '$TMP/stop'; echo EXIT=\$?" Enter
check "live: in use" "in use bytes  total 4.00 MiB (4 objects)"
check "live: the title says the peak so far" "Main table  sort flat▼  peak 8.00 MiB (8 objects) at "
keys s s
check "live: s s: at peak" "at peak bytes  total 8.00 MiB (8 objects)"
expect_match "live at peak: g held 5 MiB" "$(screen | grep ' g_hold ')" " 5\.00 MiB +62\.5% +5 g_hold "
expect_eq "live at peak: no h row" "$(screen | grep -c ' h_hold ')" 0
keys s
check "live: s: in use again" "in use bytes  total 4.00 MiB"
touch "$TMP/stop"
