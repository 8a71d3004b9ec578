#!/bin/sh
# window_tui: mprof-tui --window SECONDS PID on a terminal, without -o:
# the window's profile is written to mprof-window-PID.pro and opened in
# the UI (the window's functions on the first screen), q quits, the
# terminal is given back. The numbers themselves: window.sh.
. "$(dirname "$0")/../lib.sh"
. "$TOP/test/tmux.sh"

W=$TMP/window_app
cc -O1 -g -pthread -o "$W" "$TOP/test/progs/window_app.c" || { not_ok "build window_app"; exit 0; }
mkdir -p "$TMP/d"
( LD_PRELOAD="$TOP/libmprof.so" "$W" "$TMP/d" > "$TMP/app.out" 2>&1; echo $? > "$TMP/app.st" ) &
n=0
while [ ! -s "$TMP/app.out" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
PID=$(head -1 "$TMP/app.out")

tmux_start 100 30 "$TMP"
keys "'$MPROF' --window 3 $PID; echo status \$?" Enter
check "the window opens, said on the terminal" "window open on process $PID for 3 s"
touch "$TMP/d/go"
check "then the UI over the window's profile" "win_keep"
check "its title names the file written" "mprof-window-$PID.pro"
if screen | grep -q "pre_alloc"; then not_ok "nothing from before the window" "$(screen | head -14)"; else ok "nothing from before the window"; fi
keys q
check "q quits, the shell is back with exit status 0" "status 0"
expect_eq "mprof-window-PID.pro is written" "$(ls "$TMP/mprof-window-$PID.pro" 2> /dev/null)" "$TMP/mprof-window-$PID.pro"
touch "$TMP/d/go2" "$TMP/d/end"
n=0
while [ ! -s "$TMP/app.st" ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
expect_eq "the program exits normally" "$(cat "$TMP/app.st") $(tail -1 "$TMP/app.out")" "0 window_app: done"
