#!/bin/sh
# pid_errors.sh - one message per kind of error for every option that
# takes a process id: a pid no process has says "no process PID"; a
# process without the hook says it has no segment and how to give it one.
. "$(dirname "$0")/../lib.sh"

GONE=2147483000
sleep 60 &
SPID=$!
NOSEG="mprof-tui: /dev/shm/mprof-$SPID: no segment: process $SPID \(sleep\) does not run under the hook; start it as LD_PRELOAD=/.*libmprof\.so sleep, or load the hook into it: mprof-tui --inject $SPID"
# each WHAT ARGS... (PID stands for the pid)
each() {
	what=$1
	shift
	args=$(echo "$@" | sed "s/PID/$GONE/g")
	run_status timeout 30 "$MPROF" $args
	expect_eq "$what on no process: exit 2, one line" "$STATUS $ERR" "2 mprof-tui: no process $GONE"
}
each "--attach" --attach PID
each "--snapshot" --snapshot PID -o "$TMP/x.pro"
each "--info --attach" --info --attach PID
each "--sample-rate" --sample-rate=512K PID
each "--window" --window 1 PID
each "--inject" --inject PID
each "--detach" --detach PID
each "--faults" --faults PID --duration 1 -o "$TMP/f.pro"
for a in "--snapshot $SPID -o $TMP/x.pro" "--info --attach $SPID" "--sample-rate=512K $SPID" "--attach $SPID"; do
	run_status timeout 30 "$MPROF" $a
	expect_match "$a on a process without the hook: exit 2, the one message" "$STATUS $ERR" "^2 $NOSEG$"
done
expect_eq "nothing written" "$(ls "$TMP"/x.pro "$TMP"/f.pro 2> /dev/null)" ""
kill $SPID
wait $SPID 2> /dev/null
exit 0
