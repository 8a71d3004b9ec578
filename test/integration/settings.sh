#!/bin/sh
# settings.sh - the numeric MPROF_* settings have one rule, in the hook and
# in mprof-tui (attach/shared/settings.c): a bad value (not a decimal
# number, out of its bounds) is said in one line naming the variable and
# its value, and the default is used; the program runs on.
. "$(dirname "$0")/../lib.sh"
HOOK=$TOP/libmprof.so
SIZE_MAX=18446744073709551615
for p in work peak; do   # rec_work: a known workload; rec_peak: runs about 2 s
	cc -g -O1 -fno-omit-frame-pointer -o "$TMP/$p" "$TOP/test/progs/rec_$p.c" || { not_ok "build rec_$p"; exit 0; }
done

# The recorder's settings, read inside the program: not a number, and 0
# (which is below the bound), are said and the default (one file of 100
# MiB: a single file for this workload) is used.
for v in abc 0 12k -5; do
	MPROF_RECORD=$TMP/s$v MPROF_RECORD_SIZE=$v LD_PRELOAD=$HOOK "$TMP/work" 20000 > /dev/null 2> "$TMP/s$v.err"
	expect_eq "MPROF_RECORD_SIZE=$v: the program's exit status unchanged" "$?" 0
	expect_eq "MPROF_RECORD_SIZE=$v: one line naming the variable and its value" "$(cat "$TMP/s$v.err")" \
		"mprof: MPROF_RECORD_SIZE=$v: not a number from 1 to $SIZE_MAX; using the default 104857600"
	expect_eq "MPROF_RECORD_SIZE=$v: the default size (one file)" "$(ls "$TMP/s$v" | wc -l)" 1
done
# Out of bounds is the default too, not the bound: 10 files kept where a
# clamp to 1000000 would keep every one (small files: more than 10 made).
MPROF_RECORD=$TMP/f1 MPROF_RECORD_SIZE=16384 MPROF_RECORD_FILES=99999999 LD_PRELOAD=$HOOK "$TMP/work" 200000 \
	> /dev/null 2> "$TMP/f1.err"
expect_eq "MPROF_RECORD_FILES=99999999: said" "$(cat "$TMP/f1.err")" \
	"mprof: MPROF_RECORD_FILES=99999999: not a number from 1 to 1000000; using the default 10"
expect_eq "MPROF_RECORD_FILES=99999999: the default, 10 files kept" "$(ls "$TMP/f1" | wc -l)" 10
# A good value is taken as it is, silently.
MPROF_RECORD=$TMP/f2 MPROF_RECORD_SIZE=16384 MPROF_RECORD_FILES=12 LD_PRELOAD=$HOOK "$TMP/work" 200000 \
	> /dev/null 2> "$TMP/f2.err"
expect_eq "MPROF_RECORD_FILES=12: nothing said" "$(cat "$TMP/f2.err")" ""
expect_eq "MPROF_RECORD_FILES=12: 12 files kept" "$(ls "$TMP/f2" | wc -l)" 12

# The hook's own settings, by the same rule, each said once.
MPROF_DEPTH=abc MPROF_SAMPLE=-1 MPROF_FOLLOW=yes MPROF_CACHE=2 LD_PRELOAD=$HOOK "$TMP/work" 100 > /dev/null 2> "$TMP/h.err"
expect_eq "hook settings: the program's exit status unchanged" "$?" 0
expect_eq "hook settings: one line for each bad value, naming it" "$(sort "$TMP/h.err")" "$(printf '%s\n' \
	"mprof: MPROF_CACHE=2: not a number from 0 to 1; using the default 1" \
	"mprof: MPROF_DEPTH=abc: not a number from 1 to 256; using the default 256" \
	"mprof: MPROF_FOLLOW=yes: not a number from 0 to 1; using the default 1" \
	"mprof: MPROF_SAMPLE=-1: not a number from 0 to 1099511627776; using the default 0")"
# Unset and empty are the default, silently.
MPROF_DEPTH= MPROF_RECORD_SIZE= LD_PRELOAD=$HOOK "$TMP/work" 100 > /dev/null 2> "$TMP/e.err"
expect_eq "empty settings: nothing said" "$(cat "$TMP/e.err")" ""

# mprof-tui's own: --record --attach reads MPROF_RECORD_FILES in mprof-tui
# and says a bad value on its stderr, then records with the default.
LD_PRELOAD=$HOOK "$TMP/peak" &
pid=$!
for i in $(seq 1 100); do [ -e /dev/shm/mprof-$pid ] && break; sleep 0.02; done
MPROF_RECORD_FILES=ten run_status "$MPROF" --record "$TMP/t1" --attach "$pid"
wait "$pid"
expect_eq "mprof-tui --record --attach, MPROF_RECORD_FILES=ten: exit status 0" "$STATUS" 0
expect_eq "mprof-tui --record --attach, MPROF_RECORD_FILES=ten: one line naming it" \
	"$(printf '%s\n' "$ERR" | grep MPROF_)" \
	"mprof-tui: MPROF_RECORD_FILES=ten: not a number from 1 to 1000000; using the default 10"
expect_eq "mprof-tui --record --attach: recorded with the default" "$(ls "$TMP/t1" | wc -l)" 1

# mprof-tui's MPROF_INJECT_TIMEOUT (ptrace, x86_64): "5s" was atol's 5 ms,
# silently; now it is said and the default used, and the injection works.
if [ "$(uname -m)" = x86_64 ]; then
	cc -O1 -g -pthread -o "$TMP/target" "$TOP/test/progs/inject_target.c" || not_ok "build inject_target"
	( timeout 60 "$TMP/target" 2 > "$TMP/target.out" 2>&1 ) &
	n=0
	while [ ! -s "$TMP/target.out" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	tpid=$(head -1 "$TMP/target.out")
	MPROF_INJECT_TIMEOUT=5s run_status "$MPROF" --inject "$tpid"
	wait
	expect_eq "mprof-tui --inject, MPROF_INJECT_TIMEOUT=5s: exit status 0" "$STATUS" 0
	expect_eq "mprof-tui --inject, MPROF_INJECT_TIMEOUT=5s: one line naming it" "$ERR" \
		"mprof-tui: MPROF_INJECT_TIMEOUT=5s: not a number from 1 to 86400000; using the default 10000"
else
	ok "MPROF_INJECT_TIMEOUT # SKIP injection is x86_64 only"
fi
