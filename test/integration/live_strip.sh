#!/bin/sh
# live_strip.sh - the live timeline strip in a real terminal (tmux) over a
# real leaker under the hook (-- CMD): it fits the whole run since the
# attach (its ms/col grows once the run outgrows the width), z Z zoom and
# = fits again, a snapshot taken at the start stays marked (reverse video)
# or is said to be off the strip, and the title's total, the strip's heap
# and the diff's growth on the status line come from the same moment, also
# after mprof-tui was stopped long enough for the hook to stop writing events.
. "$(dirname "$0")/../lib.sh"
HOOK=$TOP/libmprof.so
if [ ! -f "$HOOK" ]; then
	echo "ok - # SKIP libmprof.so is not built"
	exit 0
fi
. "$TOP/test/tmux.sh"
cc -g -O1 -fno-omit-frame-pointer -o "$TMP/leaker" "$TOP/test/progs/live_leaker.c" || { not_ok "build live_leaker"; exit 0; }

# 120 columns: the strip has 114, 11.4 s at 100 ms a column.
tmux_start 120 30 "$TMP"
# set +m: no job control, so stopping mprof-tui (below) leaves it the terminal's.
# The leaker runs until the test touches $TMP/stop (600 s at most): its run must outlast the steps on a busy machine.
keys "set +m; '$MPROF' --interval 200 -- '$TMP/leaker' '$TMP/stop' 600; echo EXIT=\$?" Enter
check "strip: the live table opens" "leak_here"
keys m
check "strip: snapshot #1 at the start" "snapshot #1 at"
check "strip: the run fits at 100 ms a column at first" "fit 100 ms/col"
expect_match "strip: the key bar has z (zoom)" "$(screen | sed -n 30p)" " zZoom "

# title_total, strip_heap, status_growth: the figures of one capture.
title_total() { printf '%s\n' "$1" | sed -n '1s/.*  total \([^(]*[^ (]\) (.*/\1/p'; }
strip_heap() { printf '%s\n' "$1" | sed -n '3s/^ heap \([^(]*[^ (]\) (peak .*/\1/p'; }
status_growth() { printf '%s\n' "$1" | sed -n '29s/^growth #1 -> now: \(.*\) in use; .*/\1/p'; }
# same_moment NAME: in five captures a moment apart, the title's total is the strip's heap.
same_moment() {
	bad=""
	for i in 1 2 3 4 5; do
		s=$(screen)
		t=$(title_total "$s")
		h=$(strip_heap "$s")
		[ -n "$t" ] && [ "$t" = "$h" ] || bad="$bad [title '$t', strip '$h']"
		sleep 0.3
	done
	if [ -z "$bad" ]; then ok "$1"; else not_ok "$1" "$bad" "$(screen | head -4)"; fi
}
same_moment "strip: running, the title's total is the strip's heap in every capture"
keys p
check "strip: p pauses" "paused: the screen holds still"
same_moment "strip: paused, the title's total is the strip's heap"
keys p
check "strip: p resumes" "resumed"

# Past 11.4 s the fit widens the columns: the whole run stays on the strip.
check "strip: the run outgrows 100 ms a column and the fit widens them" "fit 200 ms/col" 400
marks=$(rev_cols 4)
expect_match "strip: the start's snapshot is still marked on the fitted strip ($marks)" "$marks" "^[0-9]+$"
if screen | grep -F -q "off-strip"; then not_ok "strip: nothing is off the fitted strip" "$(screen | sed -n 4p)"; else ok "strip: nothing is off the fitted strip"; fi
same_moment "strip: at 200 ms a column, the title's total is the strip's heap"

keys z
check "strip: z zooms in to 100 ms a column" "strip: 100 ms a column, the last 11.4 s"
expect_match "strip: the strip line says 100 ms/col, not fit" "$(screen | sed -n 3p)" "\)  100 ms/col"
check "strip: the start's snapshot scrolled off the left edge is said so" "‹ #1 off-strip"
keys z
check "strip: z at the finest says so" "strip: 100 ms a column is the finest"
keys Z Z
check "strip: Z Z zoom out to 500 ms a column" "strip: 500 ms a column, the last 57 s"
expect_match "strip: the strip line says 500 ms/col" "$(screen | sed -n 3p)" "\)  500 ms/col"
n=0
while marks=$(rev_cols 4) && ! printf '%s\n' "$marks" | grep -Eq '^[0-9]+$' && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
expect_match "strip: at 500 ms the snapshot is marked again ($marks)" "$marks" "^[0-9]+$"
keys =
check "strip: = fits the whole run again" "strip: the whole run since the attach"
check "strip: the fit is back on the strip line" " ms/col  snaps"
expect_match "strip: the strip line says fit" "$(screen | sed -n 3p)" "\)  fit [0-9]+ ms/col"

# The diff from #1 to now: its growth on the status line follows the title.
keys d
check "strip: d asks which two" "diff FROM TO"
keys "1 now" Enter
check "strip: the diff #1 -> now opens" "growth #1 -> now: +"
s=$(screen_settled)
g0=$(status_growth "$s")
expect_eq "strip: the status's growth is the title's total" "$g0" "$(title_total "$s")"
# The leak goes on: wait until the title moves, then both must say the same.
n=0
while s=$(screen_settled) && [ "$(title_total "$s")" = "$g0" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
t=$(title_total "$s")
if [ "$t" != "$g0" ]; then ok "strip: the title's growth moved on ($g0 -> $t)"; else not_ok "strip: the title's growth moved on" "$g0"; fi
expect_eq "strip: the status's growth moved with the title" "$(status_growth "$s")" "$t"
keys d
check "strip: d closes the diff" "diff closed"

# The screen stopped for 3 s (a debugger, SIGSTOP): once its beat is 2 s
# old the hook writes no events; back, the screen goes on and its figures
# still agree (hook_live.sh checks the timeline's value itself, through
# test/tools/follow_gap.c).
tpid=$(pgrep -n -f -- "interval 200 -- $TMP/leaker")
if [ -n "$tpid" ]; then
	kill -STOP "$tpid"
	sleep 3
	kill -CONT "$tpid"
	sleep 1
	same_moment "strip: after 3 s stopped, the title's total is the strip's heap"
else
	not_ok "strip: find mprof-tui's pid to stop it"
fi
touch "$TMP/stop"
check "strip: the leaker ends" "EXITED (status 0)" 100
keys q
check "strip: q quits" "EXIT=0"
