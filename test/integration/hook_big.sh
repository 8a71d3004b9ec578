#!/bin/sh
# hook_big.sh - blocks of 4 GiB and more under the hook: their sizes are
# kept apart from the live table's 32-bit field (live.c's big table), and
# must come back exact at their free and in the dump.
. "$(dirname "$0")/../lib.sh"
hook_prog big_blocks "$TOP/test/progs/big_blocks.c"
MPROF_OUT=$TMP/big.pro LD_PRELOAD=$HOOK "$TMP/big_blocks" > "$TMP/out" 2> "$TMP/err"; st=$?
if [ "$st" = 3 ]; then
	echo "ok - hook_big # SKIP the system refuses a block of 6 GiB"
	exit 0
fi
expect_eq "hook_big: runs as without the hook" "$st $(cat "$TMP/out") $(cat "$TMP/err")" "0 done "
expect_eq "hook_big: 6 GiB + 7 B kept in use" "$(sumf "$TMP/big.pro" big_keep flat)" "6442450951 1"
expect_eq "hook_big: 5 GiB + 3 B freed" "$(sumf "$TMP/big.pro" big_drop flat)" "0 0"
expect_eq "hook_big: 5 GiB + 3 B allocated" "$(sumf "$TMP/big.pro" big_drop flat --alloc)" "5368709123 1"
expect_eq "hook_big: a small block beside them" "$(sumf "$TMP/big.pro" small_keep flat)" "100 1"
