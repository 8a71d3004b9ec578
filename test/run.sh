#!/bin/sh
# Runs every test: the cmocka unit binaries in build/test and the scripts in
# test/integration. Each speaks TAP ("ok ..."/"not ok ..."; "ok ... # SKIP
# reason" is a skip, never a pass); a program that dies without saying so
# counts as one failure, and so does a script's call of a command that does
# not exist. Last line: N passed, N failed, N skipped.
cd "$(dirname "$0")/.." || exit 2
pass=0
fail=0
skip=0
log=build/test-log
start=$(date +%s)
mkdir -p "$log"
count() {  # name, output file, exit status, script; $t0: when it started
	secs=$(($(date +%s) - t0))
	k=$(grep -c '^ok .*# SKIP' "$2")
	p=$(($(grep -c '^ok ' "$2") - k))
	f=$(grep -c '^not ok ' "$2")
	# A script's own call of a command or function that does not exist (a
	# misspelt expect_...) checks nothing: a failure, not a silent pass.
	if [ -n "${4:-}" ]; then
		grep -E "^$4: [0-9]+: [^ ]+: not found\$" "$2" | while IFS= read -r l; do
			echo "not ok - $l (the script calls what does not exist)"
		done >> "$2.nf"
		if [ -s "$2.nf" ]; then
			cat "$2.nf" >> "$2"
			f=$((f + $(wc -l < "$2.nf")))
		fi
		rm -f "$2.nf"
	fi
	if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $1 exited with status $3" >> "$2"
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + k))
	grep '^ok .*# SKIP' "$2" | sed "s/^ok - */SKIP $1: /"
	if [ "$f" -ne 0 ]; then
		echo "FAIL $1 ($p passed, $f failed) in $secs s:"
		grep -A3 '^not ok ' "$2" | sed 's/^/    /' | head -40
	else
		echo "PASS $1 ($p) in $secs s"
	fi
}
# TESTS="word ...": only the tests whose names contain one of the words
# (TESTS=live runs live_attach, live_strip, test_live ...).
only=${TESTS:-}
selected() {
	[ -z "$only" ] && return 0
	for w in $only; do
		case "$1" in *"$w"*) return 0 ;; esac
	done
	return 1
}
for t in "${B:-build}"/test/*; do
	[ -x "$t" ] && [ -f "$t" ] || continue
	n=$(basename "$t")
	selected "$n" || continue
	t0=$(date +%s)
	CMOCKA_MESSAGE_OUTPUT=TAP timeout 300 "$t" > "$log/$n.out" 2>&1
	count "$n" "$log/$n.out" $?
done
for t in test/integration/*.sh; do
	[ -f "$t" ] || continue
	n=$(basename "$t" .sh)
	selected "$n" || continue
	t0=$(date +%s)
	timeout 600 sh "$t" > "$log/$n.out" 2>&1
	count "$n" "$log/$n.out" $? "$t"
done
if [ -n "$only" ] && [ $((pass + fail + skip)) -eq 0 ]; then
	echo "not ok - no test name contains a word of TESTS=$only"
	fail=1
fi
echo "the tests took $(($(date +%s) - start)) s"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
