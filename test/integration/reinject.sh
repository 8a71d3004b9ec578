#!/bin/sh
# reinject: counts across --inject, --detach and a second --inject (x86_64),
# under glibc, jemalloc and tcmalloc.  A block freed while detached is not
# listed after the next injection, nor is one made while detached; blocks
# of the first attachment are forgotten (the hook cannot know which are
# still alive): the counts start afresh at each injection, exact from there.
# A recording from outside ends at the detach; a live screen open across
# it follows.  The target does one step per line it reads, so every step
# is where the test puts it.
. "$(dirname "$0")/../lib.sh"

if [ "$(uname -m)" != x86_64 ]; then
	ok "reinject # SKIP injection is x86_64 only"
	exit 0
fi

# step WHAT: the target does WHAT and says it did.
step() { step_do "$TMP/$LIB.out" "$1"; }
# begin BIN: starts BIN as $LIB (MPROF_OUT=$TMP/$LIB.pro, no hook), its
# steps written to fd 3; sets PID.
begin() {
	mkfifo "$TMP/$LIB.in"
	( MPROF_OUT=$TMP/$LIB.pro timeout 120 "$1" < "$TMP/$LIB.in" > "$TMP/$LIB.out" 2>&1; echo $? > "$TMP/$LIB.st" ) &
	exec 3> "$TMP/$LIB.in"
	n=0; while [ ! -s "$TMP/$LIB.out" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	PID=$(head -1 "$TMP/$LIB.out")
}

# The header's unknown_frees, read where segment.h puts it.
printf '#include <stdio.h>\n#include "attach/shared/segment.h"\nint main(void) { printf("%%zu\\n", offsetof(seg_header, unknown_frees)); return 0; }\n' > "$TMP/uf.c"
cc -I"$TOP" -o "$TMP/uf" "$TMP/uf.c" || not_ok "build the header offset reader"
UF=$("$TMP/uf")
unknown_frees() { od -An -tu8 -j"$UF" -N8 "/dev/shm/mprof-$1" | tr -d ' '; }

for LIB in c jemalloc tcmalloc_minimal; do
	T=$TMP/reinject_$LIB
	if ! cc -O1 -g -fno-omit-frame-pointer -o "$T" "$TOP/test/progs/reinject_target.c" -l$LIB; then
		not_ok "$LIB: cannot link -l$LIB (make deps installs it)"
		continue
	fi
	begin "$T"

	# First attachment: the blocks made in it are seen.
	"$MPROF" --inject "$PID" > /dev/null
	step a1; step gone; step big
	"$MPROF" --snapshot "$PID" -o "$TMP/$LIB.1.pro"
	expect_eq "$LIB: first injection: the blocks made, exact" "$(flat_rows "$TMP/$LIB.1.pro")" \
		"keep_a1:3000:3 make_big:8388608:1"

	# Detached: the 8 MiB block is freed, two blocks are made.
	"$MPROF" --detach "$PID" > /dev/null
	step freebig; step d

	# Second injection: nothing from before is counted.
	run_status "$MPROF" --inject "$PID"
	expect_eq "$LIB: second injection: says the counts start afresh" "$STATUS:$(printf '%s\n' "$OUT" | head -1)" \
		"0:process $PID: recording again into /dev/shm/mprof-$PID; the counts start afresh (blocks seen before the detach are forgotten)"
	"$MPROF" --snapshot "$PID" -o "$TMP/$LIB.2.pro"
	expect_eq "$LIB: after re-injection: the block freed while detached is not listed, nor any other from before" \
		"$(flat_rows "$TMP/$LIB.2.pro") / $(flat_rows "$TMP/$LIB.2.pro" --alloc)" " / "
	step a2; step fa1; step fd
	"$MPROF" --snapshot "$PID" -o "$TMP/$LIB.3.pro"
	expect_eq "$LIB: after re-injection: in use exactly the blocks made since; frees of older blocks subtract nothing" \
		"$(flat_rows "$TMP/$LIB.3.pro")" "keep_a2:2800:4"
	expect_eq "$LIB: after re-injection: allocated, exactly the blocks made since" \
		"$(flat_rows "$TMP/$LIB.3.pro" --alloc)" "keep_a2:2800:4"
	expect_eq "$LIB: after re-injection: the frees of a block of the first attachment and of one made while detached are unknown frees" \
		"$(unknown_frees "$PID")" 2
	expect_match "$LIB: --info says what the counts cover" "$("$MPROF" --info --attach "$PID")" \
		"counts: since the injection at [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} \(re-injected 1 time; blocks seen before the detach are forgotten\)"

	# A dump (SIGUSR2) after the re-injection says the same.
	kill -USR2 "$PID"
	n=0; while [ ! -s "$TMP/$LIB.pro.1" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	sleep 0.1
	expect_eq "$LIB: a dump after re-injection: the same blocks" "$(flat_rows "$TMP/$LIB.pro.1") / $(flat_rows "$TMP/$LIB.pro.1" --alloc)" \
		"keep_a2:2800:4 / keep_a2:2800:4"

	# Detach again, twice; the counts stay as they were.
	run_status "$MPROF" --detach "$PID"
	expect_match "$LIB: second detach" "$STATUS:$OUT" "^0:detached from process $PID \([0-9]+ call slots restored\); its segment stays readable$"
	run_status "$MPROF" --detach "$PID"
	expect_eq "$LIB: detach twice: said so" "$STATUS:$ERR" "2:mprof-tui: process $PID is already detached (mprof-tui --inject $PID records again)"
	step a1
	"$MPROF" --snapshot "$PID" -o "$TMP/$LIB.4.pro"
	expect_eq "$LIB: detached again: the counts are those of the detach" "$(flat_rows "$TMP/$LIB.4.pro") / $(flat_rows "$TMP/$LIB.4.pro" --alloc)" \
		"keep_a2:2800:4 / keep_a2:2800:4"

	echo quit >&3
	exec 3>&-
	n=0; while [ ! -s "$TMP/$LIB.st" ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
	expect_eq "$LIB: the target ends normally" "$(cat "$TMP/$LIB.st") $(tail -1 "$TMP/$LIB.out")" "0 reinject_target: end"
done

# A recording from outside ends at the detach, with the heap as it was
# then; a detached hook is not recorded (it sees no call).
LIB=rec
begin "$TMP/reinject_c"
"$MPROF" --inject "$PID" > /dev/null
"$MPROF" --record "$TMP/rec" --attach "$PID" > "$TMP/rec.err" 2>&1 &
RP=$!
n=0; while ! grep -q "recording pid" "$TMP/rec.err" && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
step a1; step big; step gone
"$MPROF" --detach "$PID" > /dev/null
n=0; while kill -0 $RP 2> /dev/null && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
if kill -0 $RP 2> /dev/null; then
	not_ok "record: the recorder ends at the detach" "$(cat "$TMP/rec.err")"
	kill $RP
else
	wait $RP
	expect_eq "record: the recorder ends at the detach, exit 0" "$?:$(sed -n 2p "$TMP/rec.err")" \
		"0:mprof-tui: the hook in process $PID was detached: the recording ends there"
fi
wait $RP 2> /dev/null
expect_eq "record: its end is the heap at the detach" "$(flat_rows "$TMP/rec" --at end)" "keep_a1:3000:3 make_big:8388608:1"
step freebig
run_status "$MPROF" --record "$TMP/rec2" --attach "$PID"
expect_eq "record: a detached hook is refused" "$STATUS:$ERR" \
	"2:mprof-tui: process $PID: its hook is detached and sees no call (mprof-tui --inject $PID records again)"
echo quit >&3
exec 3>&-

# The live screen, open across the detach and the re-injection: its total,
# table and heap curve follow the counts started afresh, and it says so.
. "$TOP/test/tmux.sh"
LIB=live
begin "$TMP/reinject_c"
"$MPROF" --inject "$PID" > /dev/null
step a1; step big
tmux_start 150 30 "$TMP"
keys "$MPROF --attach $PID" Enter
check "live: the 8 MiB block before the detach" "total 8.00 MiB (4 objects)"
"$MPROF" --detach "$PID" > /dev/null
step freebig
"$MPROF" --inject "$PID" > /dev/null
step a2
check "live: after re-injection, only the blocks made since" "total 2.73 KiB (4 objects)"
keys j   # the status line's message gives way to the note
check "live: the note says since when the counts run" "counts since the re-injection at"
# The curve ends low: the newest column of the heap strip is the lowest bar.
n=0; while [ $n -lt 100 ] && ! screen | grep -q '^ heap .*▁$'; do sleep 0.1; n=$((n + 1)); done
expect_match "live: the heap curve drops with the counts" "$(screen | grep '^ heap [^0-9]')" '▁$'
expect_eq "live: make_big and keep_a1 are gone from the table" "$(screen | grep -c 'make_big\|keep_a1')" 0
keys q
check "live: quitting offers the detach" "d detach it (its calls go to libc again), k keep it recording"
keys d
echo quit >&3
exec 3>&-
n=0; while [ ! -s "$TMP/$LIB.st" ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
expect_eq "live: the target ends normally" "$(cat "$TMP/$LIB.st")" 0
