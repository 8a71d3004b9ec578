#!/bin/sh
# faults: mprof-tui --faults, page faults by call stack. A program that
# mallocs 80 MiB and touches 24 (8 MiB in touch_eight, 16 in touch_sixteen)
# shows those allocated under their stacks (within 10 %; it frees them
# before it exits, so in use is faults_resident.sh's) and nothing for the rest,
# with and without frame pointers; threads started after the attach are
# seen; the profile is an ordinary one (flame graph, pprof, diff); another
# user's process and bad targets are refused with one line.
. "$(dirname "$0")/../lib.sh"

cc -O0 -g -fno-omit-frame-pointer -pthread -o "$TMP/ft_fp" "$TOP/test/progs/faults_touch.c" || { not_ok "build faults_touch"; exit 0; }
cc -O2 -g -fomit-frame-pointer -pthread -o "$TMP/ft_nofp" "$TOP/test/progs/faults_touch.c" || { not_ok "build faults_touch -O2"; exit 0; }

# Only a kernel that forbids perf events (paranoid, seccomp, no such
# events) skips; any other failure is a failure.
faults_or_skip
expect_eq "faults: a command runs and its profile is written" "$STATUS" 0

MIB=1048576
# folded FILE: the profile as folded stacks (root first; weight = bytes allocated).
folded() { "$MPROF" --export=folded --alloc -o "$TMP/f.folded" "$1" > /dev/null && cat "$TMP/f.folded"; }
# bytes_under FILE CHAIN: bytes of the stacks holding CHAIN (";a;b;c ").
bytes_under() { folded "$1" | awk -v c="$2" 'index($0, c) { b += $NF } END { printf "%.0f\n", b }'; }
# within NAME GOT WANT: GOT within 10 % of WANT.
within() {
	if awk -v g="$2" -v w="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w / 10) }'; then
		ok "$1 ($2 B)"
	else
		not_ok "$1" "got $2 B, want $3 B within 10 %"
	fi
}

for b in fp nofp; do
	run_status "$MPROF" --faults -o "$TMP/$b.pro" -- "$TMP/ft_$b"
	expect_eq "$b: exit status 0" "$STATUS" 0
	expect_eq "$b: the command's output is its own" "$OUT" "touched 24 MiB of 80"
	expect_match "$b: one line of figures, no sample lost" "$ERR" \
		"^mprof-tui: $TMP/ft_$b exited with status 0; pid [0-9]+: [0-9]+ page faults \([0-9]+ minor, 0 major\): [0-9]+ KiB allocated, [0-9]+ KiB in use \(resident at the last of [0-9]+ readings\), [0-9]+ faults on pages held already, 0 samples lost.*; written to $TMP/$b.pro$"
	# The whole chain, root to leaf: main -> touch_eight -> touch.
	within "$b: 8 MiB under main -> touch_eight -> touch" "$(bytes_under "$TMP/$b.pro" ';main;touch_eight;touch ')" $((8 * MIB))
	within "$b: 16 MiB under main -> touch_sixteen -> touch" "$(bytes_under "$TMP/$b.pro" ';main;touch_sixteen;touch ')" $((16 * MIB))
	total=$("$MPROF" --top=cum --alloc --format=tsv "$TMP/$b.pro" | awk -F '\t' '$5 == "[minor page faults]" { print $3 }')
	if [ -n "$total" ] && [ "$total" -lt $((24 * MIB + 24 * MIB / 10)) ]; then
		ok "$b: nothing for the 56 untouched MiB ($total B in all)"
	else
		not_ok "$b: nothing for the 56 untouched MiB" "total '$total' B"
	fi
	rows=$(folded "$TMP/$b.pro" | grep -c '^\[minor page faults\];')
	expect_eq "$b: every stack is under its kind's root" "$rows" "$(folded "$TMP/$b.pro" | wc -l | tr -d ' ')"
done

# --- an ordinary profile: flame graph, pprof, diff ---------------------------------------
"$MPROF" --flamegraph="$TMP/fp.svg" --alloc "$TMP/fp.pro" > /dev/null 2>&1
expect_match "flame graph of a faults profile names touch_sixteen" "$(grep -c touch_sixteen "$TMP/fp.svg" 2> /dev/null)" "^[1-9]"
run_status "$MPROF" --export=pprof -o "$TMP/fp.pb.gz" "$TMP/fp.pro"
expect_eq "pprof export of a faults profile" "$STATUS" 0
if command -v go > /dev/null 2>&1; then
	g=$(go tool pprof -top -sample_index=alloc_space "$TMP/fp.pb.gz" 2> /dev/null | awk '$NF == "touch_sixteen" { print $4 }')
	expect_match "go tool pprof reads it: touch_sixteen's cum is 16 MiB" "$g" "^(16(\.0[0-9]*)?MB|1638[0-9]kB|1639[0-9]kB)$"
fi
run_status "$MPROF" --top=flat --format=tsv --diff "$TMP/fp.pro" "$TMP/nofp.pro"
expect_eq "diff of two faults profiles" "$STATUS" 0

# --- a running process; its threads start after the attach ------------------------------
faults_go "$TMP/ft_nofp" "$TMP/w.out" 30 "$TMP/w.pro"
expect_eq "attach: ends when the process does, exit status 0" "$FSTATUS" 0
expect_match "attach: says it samples, then the figures" "$(cat "$TMP/w.pro.err")" "sampling the page faults of pid $PID"
within "attach: 8 MiB under a thread started after it (thread_eight -> touch_eight -> touch)" \
	"$(bytes_under "$TMP/w.pro" ';start_thread;thread_eight;touch_eight;touch ')" $((8 * MIB))
within "attach: 16 MiB under thread_sixteen -> touch_sixteen -> touch" \
	"$(bytes_under "$TMP/w.pro" ';start_thread;thread_sixteen;touch_sixteen;touch ')" $((16 * MIB))

# --- refusals ------------------------------------------------------------------------------
sleep 30 &
ROOTPID=$!
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null 2>&1; then
	cp "$MPROF" "$TMP/mprof-nobody" && chmod 755 "$TMP" "$TMP/mprof-nobody"
	run_status setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/mprof-nobody" --faults "$ROOTPID" --duration 1 -o "$TMP/no.pro"
	expect_eq "another user's process: exit status 2" "$STATUS" 2
	expect_eq "another user's process: refused in one line" "$ERR" \
		"mprof-tui: process $ROOTPID (sleep) belongs to root (uid 0), not to you: refused"
else
	echo "ok - # SKIP another user's process: needs root and setpriv to become nobody"
	echo "ok - # SKIP another user's process: one line"
fi
kill $ROOTPID 2> /dev/null
run_status "$MPROF" --faults 999999999 -o "$TMP/x.pro"
expect_eq "no such process: one line, exit 2" "$STATUS $ERR" "2 mprof-tui: no process 999999999"
run_status "$MPROF" --faults -o "$TMP/x.pro" -- "$TMP/no-such-program"
expect_eq "a command that cannot run: one line, exit 2" "$STATUS $ERR" "2 mprof-tui: cannot run $TMP/no-such-program: No such file or directory"
run_status "$MPROF" --faults -- true
expect_eq "no -o FILE: one line, exit 2" "$STATUS $ERR" "2 mprof-tui: --faults needs -o FILE (or --attach PID for the screens)"
run_status "$MPROF" --faults 1 --duration abc -o "$TMP/x.pro"
expect_eq "a bad --duration: one line, exit 2" "$STATUS $ERR" "2 mprof-tui: --duration takes seconds (more than 0), not 'abc'"

# --- Ctrl-C (SIGINT to the terminal's group) ends the command, its profile is written ---
# (an & job of sh starts with SIGINT ignored: env gives it back, as a terminal has it)
setsid env --default-signal=INT "$MPROF" --faults -o "$TMP/int.pro" -- sleep 30 > /dev/null 2> "$TMP/int.err" &
S=$!
n=0
while ! pgrep -P $S sleep > /dev/null && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
kill -INT -$S
wait $S
expect_eq "Ctrl-C: mprof-tui ends with status 0" "$?" 0
expect_match "Ctrl-C: the command was ended by it, the profile written" "$(cat "$TMP/int.err")" \
	"^mprof-tui: sleep ended by signal 2; pid [0-9]+: .*; written to $TMP/int.pro$"
expect_eq "Ctrl-C: the profile reads back" "$("$MPROF" --top=flat -n 1 "$TMP/int.pro" > /dev/null; echo $?)" 0
