#!/bin/sh
# faults_repeats: a sample whose stack copy is its thread's last one is
# queued without it (faults_repeat.c) and made whole again before the
# unwind, so the profile is the one every copy queued gives: faults_heavy
# (64 MiB, 12 frames deep, one thread) and faults_touch attached to (two
# threads faulting at once, so the copies of two tids are kept apart) give
# the same stacks and bytes with MPROF_FAULTS_REPEATS=0 (every copy queued)
# and by default, where the summary says how many samples were queued
# without their copy.
. "$(dirname "$0")/../lib.sh"

cc -O2 -g -o "$TMP/heavy" "$TOP/test/progs/faults_heavy.c" || { not_ok "build faults_heavy"; exit 0; }
cc -O0 -g -fno-omit-frame-pointer -pthread -o "$TMP/ft" "$TOP/test/progs/faults_touch.c" || { not_ok "build faults_touch"; exit 0; }

faults_or_skip

# chains FILE PATTERN: the folded stacks (root first, allocated bytes) holding PATTERN, sorted.
chains() {
	"$MPROF" --export=folded --alloc -o "$TMP/c.folded" "$1" > /dev/null && grep -- "$2" "$TMP/c.folded" | sort
}
# shared ERR: how many samples the summary says were queued without their copy (0: not said).
shared() { printf '%s\n' "$1" | sed -n 's/.*, \([0-9]*\) queued without their stack copy.*/\1/p' | grep . || echo 0; }

DEEP=';main;deep;deep;deep;deep;deep;deep;deep;deep;deep;deep;deep;fill '
for mode in every once; do
	if [ $mode = every ]; then
		run_status env MPROF_FAULTS_REPEATS=0 "$MPROF" --faults -o "$TMP/h_$mode.pro" -- "$TMP/heavy" 64
	else
		run_status "$MPROF" --faults -o "$TMP/h_$mode.pro" -- "$TMP/heavy" 64
	fi
	expect_match "heavy, copies $mode: 0 samples lost" "$ERR" " 0 samples lost"
	eval "shared_$mode=\$(shared \"\$ERR\")"
	eval "chain_$mode=\$(chains \"\$TMP/h_\$mode.pro\" ';fill ')"
done
expect_eq "heavy: every copy queued with MPROF_FAULTS_REPEATS=0" "$shared_every" 0
if [ "$shared_once" -ge 16000 ]; then
	ok "heavy: $shared_once samples queued without their stack copy (fill alone faults 16384 times)"
else
	not_ok "heavy: samples queued without their stack copy (fill alone faults 16384 times)" "summary says $shared_once"
fi
expect_match "heavy: the one stack of fill, whole, with exactly 64 MiB" "$chain_once" "^\\[minor page faults\\];_start[^;]*;__libc_start_main[^;]*;__libc_start_call_main$DEEP$((64 * 1048576))\$"
expect_eq "heavy: the same stacks and bytes with every copy queued" "$chain_once" "$chain_every"

for mode in every once; do
	if [ $mode = every ]; then
		MPROF_FAULTS_REPEATS=0 && export MPROF_FAULTS_REPEATS
	else
		unset MPROF_FAULTS_REPEATS
	fi
	faults_go "$TMP/ft" "$TMP/ft_$mode.out" 20 "$TMP/ft_$mode.pro"
	expect_eq "two threads, copies $mode: the sampler's status" "$FSTATUS" 0
	e=$(cat "$TMP/ft_$mode.pro.err")
	expect_match "two threads, copies $mode: 0 samples lost" "$e" " 0 samples lost"
	eval "shared_$mode=\$(shared \"\$e\")"
	eval "touch_$mode=\$(chains \"\$TMP/ft_\$mode.pro\" ';touch ')"
done
unset MPROF_FAULTS_REPEATS
expect_eq "two threads: every copy queued with MPROF_FAULTS_REPEATS=0" "$shared_every" 0
if [ "$shared_once" -ge 6000 ]; then
	ok "two threads: $shared_once samples queued without their stack copy"
else
	not_ok "two threads: samples queued without their stack copy" "summary says $shared_once"
fi
expect_eq "two threads: the same stacks and bytes with every copy queued" "$touch_once" "$touch_every"
# sum CHAIN: the bytes of the stacks holding CHAIN in touch_once.
sum() { printf '%s\n' "$touch_once" | awk -v c="$1" 'index($0, c) { b += $NF } END { printf "%.0f\n", b }'; }
expect_eq "two threads: touch_eight's 8 MiB on its thread's stack" "$(sum ';thread_eight;touch_eight;touch ')" 8388608
expect_eq "two threads: touch_sixteen's 16 MiB (4097 pages: malloc's header moves it off a page's start)" \
	"$(sum ';thread_sixteen;touch_sixteen;touch ')" 16781312
