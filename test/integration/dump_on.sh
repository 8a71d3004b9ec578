#!/bin/sh
# dump_on.sh - triggered dumps (issue 36): MPROF_DUMP_ON=heap:SIZE,
# rss:SIZE, growth:SIZE/TIME, memhigh and mprof-tui --dump-on TRIGGERS PID.
# grow_steps holds 1 MiB blocks (8 MiB for rss) in known steps; the hook's
# thread writes OUT.trigger-N.pro once per crossing, with exactly the
# blocks held at the step that crossed; the program's output is the same
# as without the hook.  Bad triggers: one line, the program runs (the
# hook), exit 2 (mprof-tui).
. "$(dirname "$0")/../lib.sh"
hook_prog gs "$TOP/test/progs/grow_steps.c"
MIB=1048576
GS=$TMP/gs

# held FILE: grow_step's bytes in use in the dump FILE ("" none).
held() {
	"$MPROF" --top=cum --format=tsv --granularity=function "$1" 2> /dev/null |
		awk -F '\t' '$5 == "grow_step" { print $3 }'
}
# total FILE: every stack's bytes in use.
total() {
	"$MPROF" --top=flat --format=tsv --granularity=function "$1" 2> /dev/null |
		awk -F '\t' 'NR > 1 { b += $1 } END { printf "%.0f\n", b }'
}
# triggers PREFIX: the triggered dumps named PREFIX.trigger-N.pro, in order.
triggers() { (cd "$TMP" && ls "$1".trigger-*.pro 2> /dev/null | sort -t- -k2 -n | tr '\n' ' '); }
# plain NAME ARGS...: grow_steps without the hook, its output in $TMP/NAME.plain.
plain() { _n=$1; shift; "$GS" "$@" > "$TMP/$_n.plain" 2>&1; }

# --- heap: two crossings of 4500 KiB, one wobble that stays above 90 % ---------
# Held: 1..6, 5, 4 (4096 KiB, above 90 % of 4500: not re-armed), 5, 6, 5..2
# (re-armed), 3, 4, 5 (the second crossing), 6.
H="1024 250 $TMP/nogo +6 -2 +2 -4 +4 s300"
plain heap $H
MPROF_DUMP_ON=heap:4500K MPROF_OUT=$TMP/h.pro LD_PRELOAD=$HOOK "$GS" $H > "$TMP/heap.out" 2> "$TMP/heap.err"
expect_eq "heap: exit status 0" "$?" 0
expect_file_eq "heap: output unchanged by the hook" "$TMP/heap.out" "$TMP/heap.plain"
expect_eq "heap: nothing on stderr" "$(cat "$TMP/heap.err")" ""
expect_eq "heap: one dump per crossing (2), none for the wobble above 90 %" "$(triggers h)" \
	"h.trigger-1.pro h.trigger-2.pro "
expect_eq "heap: the first holds the 5 blocks of the crossing step" "$(held "$TMP/h.trigger-1.pro")" $((5 * MIB))
expect_eq "heap: the second too" "$(held "$TMP/h.trigger-2.pro")" $((5 * MIB))
t=$(total "$TMP/h.trigger-1.pro")
expect_eq "heap: its whole in-use total is at the threshold, less than a fold (16 KiB) above 5 MiB" \
	"$([ "$t" -ge $((5 * MIB)) ] && [ "$t" -lt $((5 * MIB + 16384)) ] && echo yes)" yes
expect_eq "heap: the exit dump is still written, 6 blocks" "$(held "$TMP/h.pro")" $((6 * MIB))

# --- growth: 3 MiB within 1 s, then slower ------------------------------------
# 3 steps 100 ms apart fire it; then a step every 800 ms is 2 MiB a second at most.
G="1024 100 $TMP/nogo s1200 +3 s700 +1 s700 +1 s700 +1 s300"
plain growth $G
MPROF_DUMP_ON=growth:3M/1s MPROF_OUT=$TMP/g.pro LD_PRELOAD=$HOOK "$GS" $G > "$TMP/growth.out" 2> "$TMP/growth.err"
expect_file_eq "growth: output unchanged by the hook" "$TMP/growth.out" "$TMP/growth.plain"
expect_eq "growth: one dump, for the fast growth only" "$(triggers g)" "g.trigger-1.pro "
expect_eq "growth: it holds the 3 blocks of the fast growth" "$(held "$TMP/g.trigger-1.pro")" $((3 * MIB))

# --- rss: 8 MiB steps past 40 MiB --------------------------------------------
# The resident set is the blocks (written through) and the program's few MiB
# (under 8 here): the crossing step holds 32 or 40 MiB.
R="8192 250 $TMP/nogo +8 s300"
plain rss $R
MPROF_DUMP_ON=rss:40M MPROF_OUT=$TMP/r.pro LD_PRELOAD=$HOOK "$GS" $R > "$TMP/rss.out" 2> "$TMP/rss.err"
expect_file_eq "rss: output unchanged by the hook" "$TMP/rss.out" "$TMP/rss.plain"
expect_eq "rss: one dump" "$(triggers r)" "r.trigger-1.pro "
expect_match "rss: taken at the crossing step (32 or 40 MiB held)" "$(held "$TMP/r.trigger-1.pro")" \
	"^($((32 * MIB))|$((40 * MIB)))$"

# --- two triggers at once, comma-separated: each fires once ------------------
MPROF_DUMP_ON=heap:2M,heap:4M MPROF_OUT=$TMP/c.pro LD_PRELOAD=$HOOK "$GS" 1024 150 "$TMP/nogo" +5 s300 > /dev/null 2>&1
expect_eq "two triggers: two dumps" "$(triggers c)" "c.trigger-1.pro c.trigger-2.pro "
expect_eq "two triggers: at 2 and 4 MiB" "$(held "$TMP/c.trigger-1.pro") $(held "$TMP/c.trigger-2.pro")" \
	"$((2 * MIB)) $((4 * MIB))"

# --- bad MPROF_DUMP_ON: one line, ignored, the program runs ------------------
MPROF_DUMP_ON=heap:lots MPROF_OUT=$TMP/b.pro LD_PRELOAD=$HOOK "$GS" $H > "$TMP/bad.out" 2> "$TMP/bad.err"
expect_eq "bad MPROF_DUMP_ON: exit status 0" "$?" 0
expect_file_eq "bad MPROF_DUMP_ON: output unchanged" "$TMP/bad.out" "$TMP/heap.plain"
expect_match "bad MPROF_DUMP_ON: one line that names the value" "$(cat "$TMP/bad.err")" \
	"^mprof: MPROF_DUMP_ON=heap:lots: 'heap:lots' is none of heap:SIZE, rss:SIZE, growth:SIZE/TIME, memhigh .*; ignored$"
expect_eq "bad MPROF_DUMP_ON: one line only" "$(wc -l < "$TMP/bad.err")" 1
expect_eq "bad MPROF_DUMP_ON: no triggered dump, the exit dump written" "$(triggers b)|$(held "$TMP/b.pro")" "|$((6 * MIB))"
MPROF_DUMP_ON=heap:1M LD_PRELOAD=$HOOK "$GS" 1024 10 "$TMP/nogo" +2 > /dev/null 2> "$TMP/noout.err"
expect_eq "MPROF_DUMP_ON without MPROF_OUT: one line, ignored" "$(cat "$TMP/noout.err")" \
	"mprof: MPROF_DUMP_ON=heap:1M: the process has no MPROF_OUT and no place for dumps was given; ignored"

# --- bad --dump-on: exit 2, one line ------------------------------------------
run_status "$MPROF" --dump-on heap:12X $$
expect_eq "bad --dump-on: exit 2, one line" "$STATUS:$(printf '%s\n' "$ERR" | wc -l)" "2:1"
expect_match "bad --dump-on: says what is wrong" "$ERR" "^mprof-tui: --dump-on 'heap:12X' is none of heap:SIZE"
run_status "$MPROF" --dump-on growth:1M $$
expect_eq "--dump-on growth without a time: exit 2" "$STATUS" 2
run_status "$MPROF" --dump-on heap:1M notapid
expect_eq "--dump-on on a non-pid: exit 2, one line" "$STATUS:$ERR" \
	"2:mprof-tui: --dump-on takes one process id, not 'notapid'"
run_status "$MPROF" --dump-on heap:1M 999999999
expect_eq "--dump-on on no process: exit 2" "$STATUS:$ERR" "2:mprof-tui: no process 999999999"
run_status "$MPROF" --dump-on heap:1M -o "$TMP/nodir/x.pro" $$
expect_eq "--dump-on -o into no directory: exit 2, one line" "$STATUS:$ERR" \
	"2:mprof-tui: -o $TMP/nodir/x.pro: no directory $TMP/nodir"

# --- --dump-on PID: a process started without the hook ----------------------
if [ "$(uname -m)" != x86_64 ]; then
	ok "--dump-on PID # SKIP injection is x86_64 only"
else
	I="1024 250 $TMP/go1 w +6 s300"
	plain inj 1024 250 "$TMP/nogo" +6 s300
	(cd "$TMP" && exec "$GS" $I > "$TMP/inj.out" 2> "$TMP/inj.err") &
	PID=$!
	sleep 0.2
	run_status "$MPROF" --dump-on heap:4500K -o "$TMP/i.pro" $PID
	expect_eq "--dump-on PID: exit 0" "$STATUS" 0
	expect_eq "--dump-on PID: injects, says the trigger and where its dumps go" "$OUT" \
		"loaded libmprof.so into process $PID: /dev/shm/mprof-$PID
process $PID: a dump when heap in use reaches 4500 KiB
process $PID: the next triggered dump goes to $TMP/i.trigger-1.pro (later ones numbered on)"
	touch "$TMP/go1"
	wait $PID
	expect_eq "--dump-on PID: the program's exit status" "$?" 0
	expect_file_eq "--dump-on PID: output unchanged" "$TMP/inj.out" "$TMP/inj.plain"
	expect_eq "--dump-on PID: one dump" "$(triggers i)" "i.trigger-1.pro "
	expect_eq "--dump-on PID: holding the 5 blocks of the crossing step" "$(held "$TMP/i.trigger-1.pro")" $((5 * MIB))

	# A process with the hook preloaded and no trigger yet: its thread is
	# started through ptrace; the dumps go beside its MPROF_OUT.
	(cd "$TMP" && MPROF_OUT=$TMP/p.pro LD_PRELOAD=$HOOK exec "$GS" 1024 150 "$TMP/go2" w +3 s300 > /dev/null 2>&1) &
	PID=$!
	sleep 0.2
	run_status "$MPROF" --dump-on heap:2M $PID
	expect_eq "--dump-on on a preloaded hook: exit 0, beside its MPROF_OUT" "$STATUS:$(printf '%s\n' "$OUT" | tail -1)" \
		"0:process $PID: the next triggered dump goes to $TMP/p.trigger-1.pro (later ones numbered on)"
	# and again, now that its thread runs: the triggers are replaced
	run_status "$MPROF" --dump-on rss:1G,heap:3M $PID
	expect_eq "--dump-on again: replaces the triggers" "$STATUS:$(printf '%s\n' "$OUT" | sed -n 2p)" \
		"0:process $PID: a dump when heap in use reaches 3 MiB"
	expect_eq "--info --attach: the triggers in effect and the next dump" \
		"$("$MPROF" --info --attach $PID | grep '^triggered dumps:')" \
		"triggered dumps: rss:1G,heap:3M, 0 written, next $TMP/p.trigger-1.pro"
	touch "$TMP/go2"
	wait $PID
	expect_eq "--dump-on again: one dump, at 3 MiB" "$(triggers p)|$(held "$TMP/p.trigger-1.pro")" "p.trigger-1.pro |$((3 * MIB))"
fi

# --- memhigh: a cgroup v2 of our own with memory.high -------------------------
cg=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
why=""
if [ -z "$cg" ]; then
	why="no cgroup v2 is mounted"
elif ! grep -qw memory "$cg/cgroup.controllers" 2> /dev/null; then
	why="the cgroup v2 at $cg has no memory controller (a v1 hierarchy has it)"
elif ! mkdir "$cg/mprof-dumpon-$$" 2> /dev/null; then
	why="cannot make a cgroup under $cg"
fi
if [ -n "$why" ]; then
	ok "memhigh # SKIP $why"
else
	C=$cg/mprof-dumpon-$$
	if echo 16M > "$C/memory.high" 2> /dev/null; then
		MPROF_DUMP_ON=memhigh MPROF_OUT=$TMP/m.pro LD_PRELOAD=$HOOK sh -c "echo \$\$ > $C/cgroup.procs && exec $GS 8192 150 $TMP/nogo +6 s1500" > "$TMP/mh.out" 2> "$TMP/mh.err"
		expect_eq "memhigh: one dump as memory.high is passed" "$(triggers m)" "m.trigger-1.pro "
	else
		ok "memhigh # SKIP memory.high cannot be set in $C"
	fi
	rmdir "$C" 2> /dev/null
fi

# --- memhigh's counting, simulated: memory.events of our own ------------------
# In a private mount namespace (root) a directory is bound over the cgroup2
# mount, so the hook reads a memory.events this test writes: a rise gives a
# dump, a rise within the quiet second none, a rise after it another.
cg=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
if [ "$(id -u)" != 0 ] || [ -z "$cg" ] || ! command -v unshare > /dev/null ||
	! unshare --mount --propagation private true 2> /dev/null; then
	ok "memhigh simulated # SKIP needs root, unshare and a cgroup2 mount"
else
	mkdir "$TMP/cg"
	ev() { printf 'low 0\nhigh %s\nmax 0\noom 0\noom_kill 0\n' "$1" > "$TMP/cg/memory.events"; }
	ev 0
	unshare --mount --propagation private sh -c "mount --bind '$TMP/cg' '$cg' &&
		MPROF_DUMP_ON=memhigh MPROF_OUT='$TMP/s.pro' LD_PRELOAD='$HOOK' exec '$GS' 1024 10 '$TMP/nogo' +2 s3500" \
		> "$TMP/sim.out" 2> "$TMP/sim.err" &
	SIM=$!
	sleep 0.5; ev 3
	sleep 0.3; ev 4
	sleep 1.5; ev 9
	sleep 0.2; ev 10
	wait $SIM
	expect_eq "memhigh simulated: nothing on stderr" "$(cat "$TMP/sim.err")" ""
	expect_eq "memhigh simulated: a dump per rise after a quiet second (2)" "$(triggers s)" \
		"s.trigger-1.pro s.trigger-2.pro "
	expect_eq "memhigh simulated: each holds the program's 2 blocks" \
		"$(held "$TMP/s.trigger-1.pro") $(held "$TMP/s.trigger-2.pro")" "$((2 * MIB)) $((2 * MIB))"
fi
