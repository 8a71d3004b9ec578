# test/lib.sh - the shell side of the tests: TAP lines and assertions.
# Source it from test/integration/*.sh; run from the top of the tree.
cd "$(dirname "$0")/../.." || exit 2
TOP=$(pwd)
MPROF=${MPROF_BIN:-$TOP/mprof-tui}
DATA=$TOP/test/data
TMP=$(mktemp -d /tmp/mprof-test.XXXXXX)
# No test reaches a debuginfod server unless it starts one itself.
unset DEBUGINFOD_URLS
trap 'rm -rf "$TMP"' EXIT

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $1"; shift; [ $# -gt 0 ] && printf '#   %s\n' "$@"; return 0; }

# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got:  $2" "want: $3"; fi
}

# expect_file_eq NAME GOT_FILE WANT_FILE
expect_file_eq() {
	if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1" "$(diff "$2" "$3" | head -8)"; fi
}

# expect_match NAME TEXT REGEX
expect_match() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then ok "$1"; else not_ok "$1" "text: $(printf '%s' "$2" | head -5)" "does not match: $3"; fi
}

# run_status CMD...: runs CMD, sets OUT, ERR and STATUS.
run_status() {
	"$@" > "$TMP/out" 2> "$TMP/err"
	STATUS=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

# sumf FILE FUNC flat|cum [OPTION]: "bytes objects" summed over address
# rows whose recorded name is in FUNC ("path(FUNC+0x..) [..]"), of the
# report with OPTION (--alloc: allocated). %.0f, not %d: mawk's %d stops
# at 2^31 - 1.
sumf() {
	"$MPROF" --top=flat --format=tsv --no-symbols --granularity=address ${4:+"$4"} "$1" |
	awk -F '\t' -v f="($2+" -v c="$3" 'NR > 1 && index($5, f) {
		if (c == "flat") { b += $1; o += $2 } else { b += $3; o += $4 } }
		END { printf "%.0f %.0f\n", b, o }'
}

# expect_refused NAME FILE REGEX: a batch report of FILE (names as
# recorded) exits 2 with one line on stderr matching REGEX and no output.
expect_refused() {
	run_status "$MPROF" --no-symbols --top=flat "$2"
	expect_eq "$1: exit status 2" "$STATUS" 2
	expect_match "$1: message" "$ERR" "$3"
	expect_eq "$1: one line on stderr" "$(printf '%s\n' "$ERR" | wc -l)" 1
	expect_eq "$1: no partial report" "$OUT" ""
}

# pid_from FILE: the pid a started program wrote to FILE (10 s at most), or "".
pid_from() {
	_pid=""
	for _i in $(seq 1 500); do
		_pid=$(cat "$1" 2> /dev/null)
		[ -n "$_pid" ] && break
		sleep 0.02
	done
	echo "$_pid"
}

# hook_prog NAME SRC: HOOK is the hook; NAME built from SRC into $TMP/NAME
# as a user builds a program to profile (debug info, frame pointers).
# Without the hook, or when the build fails, says so and ends the test.
hook_prog() {
	HOOK=$TOP/libmprof.so
	if [ ! -f "$HOOK" ]; then
		echo "ok - # SKIP libmprof.so is not built"
		exit 0
	fi
	cc -g -O1 -fno-omit-frame-pointer -o "$TMP/$1" "$2" || {
		not_ok "build $1 from $2"
		exit 0
	}
}

# faults_or_skip: a SKIP line and exit where the kernel forbids page-fault
# events (perf_event_paranoid, seccomp, none); any other failure is the
# test's.  STATUS and ERR are the probe's.
faults_or_skip() {
	run_status "$MPROF" --faults -o "$TMP/probe.pro" -- true
	case "$ERR" in
	*"page-fault events refused"*|*"no software page-fault events"*)
		echo "ok - # SKIP the kernel forbids perf events here: $ERR"
		exit 0 ;;
	esac
}

# faults_go PROG OUT SECONDS PRO: PROG started with "wait" on the fifo
# $TMP/go (its output in OUT, its pid first), mprof-tui --faults on it for
# SECONDS into PRO (messages in PRO.err), PROG let go once it is sampled.
# Sets PID and FSTATUS, the sampler's exit status.
faults_go() {
	rm -f "$TMP/go" && mkfifo "$TMP/go"
	( exec 3<> "$TMP/go"; timeout 90 "$1" wait <&3 > "$2" 2>&1 ) &
	PID=$(pid_from "$2")
	"$MPROF" --faults "$PID" --duration "$3" -o "$4" 2> "$4.err" &
	_m=$!
	_n=0
	while ! grep -q sampling "$4.err" && [ $_n -lt 200 ]; do sleep 0.05; _n=$((_n + 1)); done
	echo go > "$TMP/go"
	wait $_m
	FSTATUS=$?
}

# flat_rows FILE [ARGS]: "function:bytes:objects" of each row with flat bytes, sorted.
flat_rows() {
	_f=$1
	shift
	"$MPROF" --top=flat --format=tsv "$@" "$_f" 2> /dev/null | awk -F '\t' 'NR > 1 && $1 > 0 { print $5 ":" $1 ":" $2 }' |
		sort | tr '\n' ' ' | sed 's/ $//'
}

# step_do OUT WHAT: a program reading a step a line on fd 3 does WHAT and
# writes "done WHAT" to OUT (30 s at most).
step_do() {
	echo "$2" >&3
	_n=0
	while ! grep -qx "done $2" "$1" && [ $_n -lt 600 ]; do sleep 0.05; _n=$((_n + 1)); done
	grep -qx "done $2" "$1" || not_ok "the target did not do step $2"
}
