#!/bin/sh
# tui_marks.sh - NEW and GONE marks on every screen (table, callers/callees,
# tree, source) of every mode that diffs, in a real terminal (tmux), over
# real runs under the hook: diff_paths allocates in old_path only in its
# base run and in new_path only in its new run (in one live process: old
# path first, then freed and new_path). --diff BASE NEW and BASE NEW + d,
# live snapshots (m, d) and a recording's mark and cursor (record_tui.sh).
. "$(dirname "$0")/../lib.sh"
. "$TOP/test/tmux.sh"
HOOK=$TOP/libmprof.so
P=$TOP/test/progs
cp "$P/diff_paths.c" "$TMP/"
(cd "$TMP" && cc -g -O1 -fno-omit-frame-pointer -o dp diff_paths.c) || { not_ok "build diff_paths"; exit 0; }
(cd "$TMP" && MPROF_OUT=$TMP/base.pro LD_PRELOAD=$HOOK ./dp base && MPROF_OUT=$TMP/new.pro LD_PRELOAD=$HOOK ./dp new) ||
	{ not_ok "diff_paths runs under the hook"; exit 0; }
expect_eq "the runs differ as meant: old_path only in base, new_path only in new" \
	"$(sumf "$TMP/base.pro" old_path flat) $(sumf "$TMP/new.pro" old_path flat) $(sumf "$TMP/new.pro" new_path flat) $(sumf "$TMP/base.pro" new_path flat)" \
	"600 3 0 0 1200 4 0 0"

L() { grep -n "L:$1" "$P/diff_paths.c" | cut -d: -f1; }
# row TEXT: the screen's first line holding TEXT.
row() { screen | grep -F -- "$1" | head -1; }
tmux_start 100 30 "$TMP"
run() { keys clear Enter "'$MPROF' $*; echo EXIT=\$?" Enter; }

# ---- two files: --diff BASE NEW opens the diff, BASE NEW + d the same ------------
for how in "--diff base.pro new.pro" "base.pro new.pro"; do
	run "$how"
	[ "$how" = "base.pro new.pro" ] && { check "$how: opens NEW" "two files: d shows the diff NEW - BASE"; keys d; }
	check "$how: the diff is on" "diff NEW − BASE: total +600 B"
	expect_match "$how, table: new_path is NEW" "$(row new_path)" "^ +1 +\+1\.17 KiB .* \+4 NEW new_path  diff_paths\.c:$(L new_path)$"
	expect_match "$how, table: old_path is GONE" "$(row old_path)" "^ +2 +-600 B .* -3 GONE old_path"
	expect_match "$how, table: dispatch (in both runs) is not marked" "$(row dispatch)" " \+1 dispatch  "
	expect_eq "$how, table: no other row is marked" "$(screen | sed -n '4,27p' | grep -c -E ' (NEW|GONE) ')" 2
	keys Home Enter
	check "$how, Enter: callers/callees of new_path" "Callers/callees of new_path"
	expect_match "$how, Enter: the node NEW" "$(row '▶')" "▶ NEW new_path  diff_paths\.c:$(L new_path)  \(flat \+1\.17 KiB\)$"
	expect_match "$how, Enter: its caller dispatch unmarked" "$(row dispatch)" "\+4     dispatch  "
	keys Escape Down Enter
	check "$how, Enter on old_path" "Callers/callees of old_path"
	expect_match "$how, Enter: the node GONE" "$(row '▶')" "▶ GONE old_path"
	keys Up Enter
	check "$how, Enter on the caller: callers/callees of dispatch" "Callers/callees of dispatch"
	expect_match "$how, Enter: callee new_path NEW" "$(row 'new_path')" "^\+1\.17 KiB .*     NEW new_path  "
	expect_match "$how, Enter: callee old_path GONE" "$(row 'old_path')" "^ +-600 B .*     GONE old_path"
	keys Escape Escape Escape t '*'
	check "$how, t: the tree" "Call tree (top-down)"
	expect_match "$how, t: new_path NEW" "$(row 'new_path')" "^\+1\.17 KiB .* NEW new_path  "
	expect_match "$how, t: old_path GONE" "$(row 'old_path')" "^ +-600 B .* GONE old_path"
	keys Escape Home l
	check "$how, l: the source of new_path" "Source of new_path"
	expect_match "$how, l: new_path's malloc line NEW" "$(row 'L:new_path')" "^\+1\.17 KiB \+1\.17 KiB +$(L new_path)> NEW  "
	expect_match "$how, l: its call in dispatch NEW" "$(row 'L:call_new')" "^ +\. \+1\.17 KiB +$(L call_new)  NEW  "
	expect_match "$how, l: old_path's malloc line GONE" "$(row 'L:old_path')" "^ +-600 B +-600 B +$(L old_path)  GONE "
	expect_match "$how, l: its call in dispatch GONE" "$(row 'L:call_old')" "^ +\. +-600 B +$(L call_old)  GONE "
	expect_match "$how, l: dispatch's call of shared_fn (both runs) unmarked" "$(row 'shared_fn();')" "^ +\. +\. +[0-9]+ {15}shared_fn\(\);$"
	# The marks have a column of their own: the code keeps its indentation.
	col() { row "$1" | awk -v s="$1" '{ print index($0, s) }'; }
	expect_eq "$how, l: code in place under NEW, GONE and no mark" "$(col 'new_path();') $(col 'old_path();')" \
		"$(($(col 'else') + 8)) $(($(col 'else') + 8))"
	keys d
	check "$how, d: NEW alone again" "diff closed: NEW (new.pro) again"
	expect_match "$how, d: no marks out of the diff" "$(row 'L:new_path')" "^ +1\.17 KiB +1\.17 KiB +$(L new_path)> +keep"
	keys Q
	check "$how: quits" "EXIT=0"
done

# ---- live: two snapshots of one process ----------------------------------------
rm -f "$TMP/A" "$TMP/B"
run "-- ./dp phases '$TMP/A' '$TMP/B'"
check "live: opens on the base phase" "old_path"
keys m
check "live: snapshot #1" "snapshot #1 at"
touch "$TMP/A"
check "live: the program reaches its new phase" "new_path"
keys m
check "live: snapshot #2" "snapshot #2 at"
keys d Enter
check "live: d diffs #1 and #2" "DIFF #1 -> #2"
expect_match "live, table: new_path NEW" "$(row new_path)" "\+4 NEW new_path  "
expect_match "live, table: old_path (all freed) GONE" "$(row old_path)" "-3 GONE old_path  "
keys Home Enter
check "live, Enter: callers/callees of new_path" "Callers/callees of new_path"
expect_match "live, Enter: NEW" "$(row '▶')" "▶ NEW new_path"
keys Escape t '*'
check "live, t: the tree" "Call tree (top-down)"
expect_match "live, t: new_path NEW" "$(row new_path)" "NEW new_path  "
keys Escape Home l
check "live, l: the source of new_path" "Source of new_path"
expect_match "live, l: new_path's line NEW, its growth" "$(row 'L:new_path')" "^\+1\.17 KiB \+1\.17 KiB +$(L new_path)> NEW  "
expect_match "live, l: old_path's line GONE" "$(row 'L:old_path')" "^ +-600 B +-600 B +$(L old_path)  GONE "
touch "$TMP/B"
check "live: the program exits" "EXITED (status 0)" 100
keys Q
check "live: quits" "EXIT=0"
