#!/bin/sh
# Conflicting options: mprof-tui runs the first mode that the command line
# asks for (the command table's order) and refuses an option that mode does
# not take, with one line naming both and exit status 2, before it does
# anything (no server, no window, no injection, no file written). Before
# the table, the order of the ifs settled them silently: --serve ran and
# ignored --attach, --window ignored --faults, --inject ignored --detach.
. "$(dirname "$0")/../lib.sh"
pro=$DATA/test_mem.pro
# A process id that no process has (above any pid_max).
nopid=999999999

# refused NAME OPTION MODE ARGS...: exit 2, one line naming OPTION and MODE,
# nothing on stdout. timeout: before the table some of these ran for good.
refused() {
	name=$1 opt=$2 mode=$3
	shift 3
	run_status timeout 10 "$MPROF" "$@"
	expect_eq "$name: exit status 2" "$STATUS" 2
	expect_match "$name: one line naming $opt and $mode" "$ERR" "^mprof-tui: $opt does not go with $mode\$"
	expect_eq "$name: one line on stderr" "$(printf '%s\n' "$ERR" | wc -l)" 1
	expect_eq "$name: nothing on stdout" "$OUT" ""
}

mkdir "$TMP/cwd" && cd "$TMP/cwd" || exit 2
refused "--serve with --attach" --attach --serve --serve 127.0.0.1:0 --attach $nopid
refused "--window with --faults" --faults --window --window 1 --faults $nopid
refused "--inject with --detach" --detach --inject --inject $nopid --detach $nopid
refused "--snapshot with --top" --top --snapshot --snapshot $nopid -o snap.pro --top=flat
refused "--record with --interval" --interval --record --record rec --interval 100 --attach $nopid
refused "--window with --sample-rate" --sample-rate --window --window 1 --sample-rate=1M $nopid
refused "--faults PID with --interval" --interval --faults --faults $nopid --interval 100 -o f.pro
refused "--faults --attach with --duration" --duration "--faults --attach" --faults --attach $nopid --duration 1
refused "--info with the list of --attach" --info "--attach without a process id" --info --attach
refused "a profile file with --keep" --keep "a profile file" --keep --top=flat "$pro"
refused "a profile file with --interval" --interval "a profile file" --interval 100 "$pro"
expect_eq "nothing written by the refused command lines" "$(ls)" ""

# What each mode takes still runs: the report with its batch options.
run_status "$MPROF" --top=cum --alloc -n 3 --format=tsv --no-symbols "$pro"
expect_eq "--top with its options: exit 0" "$STATUS" 0
expect_eq "--top with its options: a header and 3 rows" "$(printf '%s\n' "$OUT" | wc -l)" 4
# --attach PID with -- COMMAND keeps its own message.
run_status "$MPROF" --attach $nopid -- true
expect_eq "--attach with -- COMMAND: exit status 2" "$STATUS" 2
expect_eq "--attach with -- COMMAND: its line" "$ERR" "mprof-tui: --attach PID or -- COMMAND, not both"
