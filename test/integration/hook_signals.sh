#!/bin/sh
# hook_signals.sh - a hooked program killed by a signal left at its
# default action (SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGUSR1, ...) writes
# its MPROF_OUT dump, removes its segment and still dies of that signal,
# preloaded or injected (mprof-tui --inject); the program sees SIG_DFL
# where it asks, and its own handlers run as without the hook (Python's
# KeyboardInterrupt).
. "$(dirname "$0")/../lib.sh"
HOOK=$TOP/libmprof.so
cc -g -O1 -fno-omit-frame-pointer -o "$TMP/sig" "$TOP/test/progs/sig_leak.c" || { not_ok "build sig_leak"; exit 0; }

# wait_ready FILE: until the program printed "ready" (10 s at most).
wait_ready() {
	i=0
	while ! grep -q ready "$1" 2> /dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}

# launch OUT CMD...: CMD in the background (pid), its stdout to OUT, until ready.
launch() {
	o=$1
	shift
	rm -f "$o" "$o.err"   # the job truncates it only once it runs: an old "ready" must not count
	"$@" > "$o" 2> "$o.err" &
	pid=$!
	wait_ready "$o"
}

# finish SIG: sends SIG to pid and waits for it (st: its exit status).
finish() {
	kill -s "$1" "$pid"
	wait "$pid"
	st=$?
}

# killed SIG STATUS: the program preloaded, killed by SIG once ready.
# A shell starts background jobs with SIGINT ignored: env puts it back.
killed() {
	rm -f "$TMP/k.pro"
	launch "$TMP/k.out" env MPROF_OUT="$TMP/k.pro" LD_PRELOAD="$HOOK" env --default-signal=INT,TERM "$TMP/sig"
	seg=no
	[ -e "/dev/shm/mprof-$pid" ] && seg=yes
	finish "$1"
	expect_eq "SIG$1: the segment existed while it ran" "$seg" yes
	expect_eq "SIG$1: dies of the signal (status $2)" "$st" "$2"
	expect_eq "SIG$1: the dump holds the leak" "$(sumf "$TMP/k.pro" leak_before_wait flat)" "2331 7"
	expect_eq "SIG$1: the segment is gone" "$(ls "/dev/shm/mprof-$pid" 2> /dev/null)" ""
	expect_eq "SIG$1: nothing on stderr" "$(cat "$TMP/k.out.err")" ""
}
killed TERM 143
killed INT 130
killed HUP 129
killed PIPE 141
killed USR1 138

# Without MPROF_OUT: no dump, the segment still goes.
launch "$TMP/n.out" env LD_PRELOAD="$HOOK" env --default-signal=TERM "$TMP/sig"
finish TERM
expect_eq "no MPROF_OUT: dies of SIGTERM, segment gone" "$st $(ls "/dev/shm/mprof-$pid" 2> /dev/null)" "143 "

# The program asks: it sees the defaults, as without the hook.
launch "$TMP/plain.out" env --default-signal=INT,TERM "$TMP/sig" ask
finish TERM
launch "$TMP/ask.out" env LD_PRELOAD="$HOOK" env --default-signal=INT,TERM "$TMP/sig" ask
finish TERM
expect_eq "the program sees SIG_DFL (sigaction and signal)" "$(head -1 "$TMP/ask.out")" "sigaction default default, signal default"
expect_file_eq "what it sees is what it sees without the hook" "$TMP/ask.out" "$TMP/plain.out"
expect_eq "signal(SIGTERM, SIG_DFL) keeps the dump on SIGTERM" "$st" 143

# A handler set by a path the hook does not wrap is reported as it is.
expect_eq "a handler set through sysv_signal is what sigaction reports" \
	"$(LD_PRELOAD="$HOOK" env --default-signal=TERM "$TMP/sig" sysv)" "sysv_signal, then sigaction: handler"

# Its own handler runs instead (exit 3), and the exit dumps as usual.
rm -f "$TMP/o.pro"
launch "$TMP/own.out" env MPROF_OUT="$TMP/o.pro" LD_PRELOAD="$HOOK" env --default-signal=INT,TERM "$TMP/sig" own
finish TERM
expect_eq "the program's own SIGTERM handler runs" "$st" 3
expect_eq "and its exit dumps" "$(sumf "$TMP/o.pro" leak_before_wait flat)" "2331 7"

# Ignored signals stay ignored.
launch "$TMP/ign.out" env LD_PRELOAD="$HOOK" env --ignore-signal=TERM "$TMP/sig"
kill -TERM "$pid"
sleep 0.3
alive=no
kill -0 "$pid" 2> /dev/null && alive=yes
kill -KILL "$pid"
wait "$pid" 2> /dev/null
rm -f "/dev/shm/mprof-$pid"
expect_eq "an ignored SIGTERM stays ignored" "$alive" yes

# Injected: the same, the dump as the program's environment asks; a
# handler the program had is left alone, and its _exit removes the segment.
if [ "$(uname -m)" = x86_64 ]; then
	rm -f "$TMP/inj.pro"
	launch "$TMP/inj.out" env MPROF_OUT="$TMP/inj.pro" env --default-signal=TERM "$TMP/sig"
	run_status "$MPROF" --inject "$pid"
	seg=no
	[ -e "/dev/shm/mprof-$pid" ] && seg=yes
	finish TERM
	expect_eq "injected, SIGTERM: injected, the segment existed" "$STATUS $seg" "0 yes"
	expect_eq "injected, SIGTERM: dies of it (143), segment gone" "$st $(ls "/dev/shm/mprof-$pid" 2> /dev/null)" "143 "
	run_status "$MPROF" --top=flat "$TMP/inj.pro"
	expect_eq "injected, SIGTERM: the dump was written" "$STATUS" 0
	launch "$TMP/injown.out" env --default-signal=TERM "$TMP/sig" own
	"$MPROF" --inject "$pid" > /dev/null 2>&1
	finish TERM
	expect_eq "injected: the program's own SIGTERM handler runs" "$st $(ls "/dev/shm/mprof-$pid" 2> /dev/null)" "3 "
else
	ok "injected, SIGTERM # SKIP injection is x86_64 only"
fi

# Python installs its KeyboardInterrupt handler only over SIG_DFL.
PY=/usr/bin/python3
if [ -x "$PY" ]; then
	cat > "$TMP/ki.py" << 'PYEOF'
import signal, sys, time
print(signal.getsignal(signal.SIGINT) is signal.default_int_handler, flush=True)
print("ready", flush=True)
try:
    time.sleep(20)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
    sys.exit(0)
PYEOF
	launch "$TMP/py.out" env LD_PRELOAD="$HOOK" env --default-signal=INT "$PY" "$TMP/ki.py"
	finish INT
	expect_eq "python3: KeyboardInterrupt as without the hook" "$st $(tr '\n' ' ' < "$TMP/py.out")" "0 True ready KeyboardInterrupt "
else
	ok "python3 KeyboardInterrupt # SKIP /usr/bin/python3 is not installed (make deps installs it)"
fi
