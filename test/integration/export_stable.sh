#!/bin/sh
# export_stable.sh - exports name an unresolved frame as the screen does,
# module+offset, so two runs of the same program (a stripped PIE, loaded
# at a new address each time) export the same frames and can be merged.
. "$(dirname "$0")/../lib.sh"

hook_prog app "$TOP/test/progs/loc_leak.c"
cc -O0 -fno-omit-frame-pointer -pie -fPIE -o "$TMP/app" "$TOP/test/progs/loc_leak.c" && strip "$TMP/app" ||
	{ not_ok "build a stripped PIE"; exit 0; }
for i in 1 2; do
	MPROF_OUT="$TMP/r$i.pro" LD_PRELOAD="$HOOK" "$TMP/app"
	"$MPROF" --export=folded -o "$TMP/r$i.folded" "$TMP/r$i.pro"
	"$MPROF" --export=pprof -o "$TMP/r$i.pb.gz" "$TMP/r$i.pro"
	"$MPROF" --top=flat --format=tsv "$TMP/r$i.pb.gz" | cut -f 1,2,5 | sort > "$TMP/r$i.pprof.top"
done
expect_match "folded: the program's frames are app+0xOFFSET" "$(cat "$TMP/r1.folded")" "^app\+0x[0-9a-f]+;.*;app\+0x[0-9a-f]+ [0-9]+$"
expect_eq "folded: no run's load address in a name" "$(grep -c '\[0x\|(+0x' "$TMP/r1.folded")" 0
expect_file_eq "folded: two runs export the same frames" "$TMP/r1.folded" "$TMP/r2.folded"
expect_match "pprof: the functions are named app+0xOFFSET" "$(cat "$TMP/r1.pprof.top")" "app\+0x[0-9a-f]+$"
expect_file_eq "pprof: two runs export the same functions" "$TMP/r1.pprof.top" "$TMP/r2.pprof.top"
exit 0
