#!/bin/sh
# window: mprof-tui --window SECONDS PID on test/progs/window_app.c, whose
# every allocation before, in and after the window is known to the byte.
#  a. started under LD_PRELOAD: the window (closed by SIGINT) holds exactly
#     the window's allocations as alloc and the unfreed ones as in use,
#     nothing from before (though the window frees and resizes older
#     blocks of the same stacks); --export=folded line by line, a flame
#     graph; a second window on the same process (marks of the first do
#     not count) that the process's exit ends: written, said, exit 2.
#  b. started without the hook: loaded for the window and detached at its
#     end (twice: the second switches it on again); the same exact
#     numbers; no -o: mprof-window-PID.pro and a report; --export=folded
#     --alloc straight from the window; the process runs on and exits 0.
#  a'. the same under MPROF_SAMPLE=1 (sampled paths, every block kept).
#  c. errors: one line, exit 2.
# Real programs: test/integration/redis.sh (c) and python3 below.
. "$(dirname "$0")/../lib.sh"

W=$TMP/window_app
cc -O1 -g -pthread -o "$W" "$TOP/test/progs/window_app.c" || { not_ok "build window_app"; exit 0; }

# Every process started here is stopped on the way out, also on failure.
stop_all() {
	for f in "$TMP"/*.pid; do
		[ -s "$f" ] && kill -KILL "$(cat "$f")" 2> /dev/null
	done
}
trap 'stop_all; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP

# app NAME [ENV=VALUE...]: window_app in the background with its control
# files in $TMP/NAME.d; sets PID. Output in NAME.out, exit status in NAME.st.
app() {
	name=$1; shift
	mkdir -p "$TMP/$name.d"
	( env "$@" "$W" "$TMP/$name.d" > "$TMP/$name.out" 2>&1 & echo $! > "$TMP/$name.pid"; wait $!; echo $? > "$TMP/$name.st" ) &
	n=0
	while [ ! -s "$TMP/$name.out" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	PID=$(head -1 "$TMP/$name.out")
}
# wait_file PATH: up to 30 s; 1 if it never came.
wait_file() {
	n=0
	while [ ! -e "$1" ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
	[ -e "$1" ]
}
# win NAME ARGS...: mprof-tui --window ARGS in the background, in $TMP;
# returns once the window is open (stderr says so), 1 if it never opened.
# Sets WPID; stdout, stderr and status in NAME.wout, NAME.werr, NAME.wst.
win() {
	name=$1; shift
	( cd "$TMP" && "$MPROF" --window "$@" > "$TMP/$name.wout" 2> "$TMP/$name.werr" & echo $! > "$TMP/$name.w.pid"
	  wait $!; echo $? > "$TMP/$name.wst" ) &
	n=0
	while ! grep -q "window open" "$TMP/$name.werr" 2> /dev/null && [ ! -s "$TMP/$name.wst" ] && [ $n -lt 600 ]; do
		sleep 0.05; n=$((n + 1))
	done
	WPID=$(cat "$TMP/$name.w.pid" 2> /dev/null)
	grep -q "window open" "$TMP/$name.werr" 2> /dev/null
}
# win_end NAME: waits for the window's mprof-tui (60 s at most); sets WST.
win_end() {
	wait_file "$TMP/$1.wst"
	WST=$(cat "$TMP/$1.wst" 2> /dev/null)
	rm -f "$TMP/$1.w.pid"
}
# rows FILE [--alloc]: "function bytes objects" of every row with flat
# bytes, by name: what the window holds, and nothing else.
rows() { "$MPROF" --top=flat --format=tsv $2 "$1" 2>&1 | awk -F '\t' 'NR > 1 && $1 > 0 { print $5, $1, $2 }' | sort; }
# folded FILE: folded lines from main (or the thread's start) down, the
# libc frames above them cut, equal stacks summed, sorted.
folded() {
	sed 's/^.*;main;/main;/; s/^.*;thread_main;/thread_main;/' "$1" |
	awk '{ w = $NF; sub(/ [0-9]+$/, ""); s[$0] += w } END { for (k in s) print k, s[k] }' | sort
}
# app_done NAME WHAT: the program printed its last line and exited with 0.
app_done() {
	wait_file "$TMP/$1.st"
	expect_eq "$2: the program exits normally (status 0, its last line)" \
		"$(cat "$TMP/$1.st" 2> /dev/null) $(tail -1 "$TMP/$1.out")" "0 window_app: done"
	rm -f "$TMP/$1.pid"
}

cat > "$TMP/want_alloc" << 'EOF'
shared_alloc 4900 7
win_calloc 3072 3
win_grow 2000 10
win_half 16384 8
win_keep 10000 10
win_realloc_old 8000 2
win_temp 10000 20
win_thread 768 6
EOF
cat > "$TMP/want_inuse" << 'EOF'
shared_alloc 3500 5
win_calloc 3072 3
win_grow 1500 5
win_half 8192 4
win_keep 10000 10
win_realloc_old 8000 2
win_thread 768 6
EOF
cat > "$TMP/want_folded" << 'EOF'
main;shared_phase;shared_alloc 3500
main;win_calloc 3072
main;win_grow 1500
main;win_half 8192
main;win_keep 10000
main;win_realloc_old 8000
thread_main;win_thread 768
EOF
cat > "$TMP/want_folded_alloc" << 'EOF'
main;shared_phase;shared_alloc 4900
main;win_calloc 3072
main;win_grow 2000
main;win_half 16384
main;win_keep 10000
main;win_realloc_old 8000
main;win_temp 10000
thread_main;win_thread 768
EOF

# --- a. under LD_PRELOAD ------------------------------------------------------------
app pre LD_PRELOAD="$TOP/libmprof.so"
if ! win a1 60 "$PID" -o "$TMP/a1.pro"; then
	not_ok "preload: the window opens" "$(cat "$TMP/a1.werr")"
else
	ok "preload: the window opens"
	run_status "$MPROF" --window 1 "$PID" -o "$TMP/x.pro"
	expect_eq "error: a window already open on the process" "$STATUS:$ERR" \
		"2:mprof-tui: process $PID: a window is already open by mprof-tui (pid $WPID)"
	touch "$TMP/pre.d/go"
	wait_file "$TMP/pre.d/done" || not_ok "preload: the program did its window's work" "$(cat "$TMP/pre.out")"
	kill -INT "$WPID"
	win_end a1
	expect_eq "preload: Ctrl-C closes the window, exit status 0" "$WST" 0
	expect_eq "preload: what the window saw, in one line" "$(sed -n 2p "$TMP/a1.werr")" \
		"$(printf 'mprof-tui: window of %s s on process %s: 66 allocations (53.8 KiB) from 10 stacks, 35 of them (34.2 KiB) still in use at its end; written to %s' \
		"$(sed -n 's/.*window of \([0-9.]*\) s.*/\1/p' "$TMP/a1.werr")" "$PID" "$TMP/a1.pro")"
	expect_eq "preload: says it was closed early" "$(sed -n 3p "$TMP/a1.werr")" "mprof-tui: the window was closed early by Interrupt"
	expect_eq "preload: nothing to detach, nothing said" "$(wc -l < "$TMP/a1.werr")" 3
	rows "$TMP/a1.pro" --alloc > "$TMP/a1.alloc"
	expect_file_eq "preload: alloc = exactly the window's allocations, by function" "$TMP/a1.alloc" "$TMP/want_alloc"
	rows "$TMP/a1.pro" > "$TMP/a1.inuse"
	expect_file_eq "preload: in use = exactly the window's blocks still alive, none from before" "$TMP/a1.inuse" "$TMP/want_inuse"
	"$MPROF" --export=folded -o "$TMP/a1.folded" "$TMP/a1.pro"
	folded "$TMP/a1.folded" > "$TMP/a1.fold"
	expect_file_eq "preload: --export=folded, line by line (in-use bytes)" "$TMP/a1.fold" "$TMP/want_folded"
	expect_eq "preload: every folded line starts at the root" "$(grep -cv '^_start;\|^clone3\{0,1\};' "$TMP/a1.folded")" 0
	"$MPROF" --export=folded --alloc -o "$TMP/a1a.folded" "$TMP/a1.pro"
	folded "$TMP/a1a.folded" > "$TMP/a1a.fold"
	expect_file_eq "preload: --export=folded --alloc, line by line" "$TMP/a1a.fold" "$TMP/want_folded_alloc"
	"$MPROF" --flamegraph="$TMP/a1.svg" "$TMP/a1.pro"
	expect_eq "preload: --flamegraph draws the window's functions" \
		"$(grep -o 'win_keep\|win_half\|pre_alloc' "$TMP/a1.svg" | sort -u | tr '\n' ' ')" "win_half win_keep "

	# A second window: the first one's blocks are freed in it (they count
	# nowhere), then the process exits during it.
	if ! win a2 60 "$PID" -o "$TMP/a2.pro"; then
		not_ok "preload: a second window opens" "$(cat "$TMP/a2.werr")"
	else
		touch "$TMP/pre.d/go2" "$TMP/pre.d/end"
		win_end a2
		expect_eq "preload: the process exits during the window: exit status 2" "$WST" 2
		expect_match "preload: says the process ended and what was written" "$(cat "$TMP/a2.werr")" \
			"written to $TMP/a2.pro
mprof-tui: process $PID ended [0-9.]+ s into the 60 s window: the profile holds what it allocated until then$"
		expect_eq "preload: second window: only its own allocations" "$(rows "$TMP/a2.pro" --alloc)" "win_second 256 4"
		expect_eq "preload: second window: all freed before the exit" "$(rows "$TMP/a2.pro")" ""
	fi
fi
app_done pre preload

# --- a'. under LD_PRELOAD with sampling: MPROF_SAMPLE=1 keeps every block
# (p = 1 - exp(-size) is 1 in a double) through the sampled paths: the
# countdown, each block's rate index with the window's mark, the filter of
# sampled blocks on every free, weighed counts into the window's counters.
app sam LD_PRELOAD="$TOP/libmprof.so" MPROF_SAMPLE=1
if ! win s1 60 "$PID" -o "$TMP/s1.pro"; then
	not_ok "sampled: the window opens" "$(cat "$TMP/s1.werr")"
else
	touch "$TMP/sam.d/go"
	wait_file "$TMP/sam.d/done" || not_ok "sampled: the program did its window's work" "$(cat "$TMP/sam.out")"
	kill -INT "$WPID"
	win_end s1
	expect_eq "sampled: Ctrl-C closes the window, exit status 0" "$WST" 0
	rows "$TMP/s1.pro" --alloc > "$TMP/s1.alloc"
	expect_file_eq "sampled (every block kept): alloc = exactly the window's allocations" "$TMP/s1.alloc" "$TMP/want_alloc"
	rows "$TMP/s1.pro" > "$TMP/s1.inuse"
	expect_file_eq "sampled (every block kept): in use = exactly the window's live blocks" "$TMP/s1.inuse" "$TMP/want_inuse"
	touch "$TMP/sam.d/go2" "$TMP/sam.d/end"
fi
app_done sam sampled

# --- b. started without the hook: loaded for the window, detached after --------------
if [ "$(uname -m)" != x86_64 ]; then
	ok "injected # SKIP loading the hook into a running process is x86_64 only"
else
	app inj
	if ! win b1 3 "$PID"; then
		not_ok "injected: the window opens" "$(cat "$TMP/b1.werr")"
	else
		expect_eq "injected: says the hook was loaded for it" "$(head -1 "$TMP/b1.werr")" \
			"mprof-tui: window open on process $PID for 3 s, libmprof.so loaded for it (Ctrl-C closes it early)"
		touch "$TMP/inj.d/go"
		win_end b1
		expect_eq "injected: the window ends after 3 s, exit status 0" "$WST" 0
		if [ -e "$TMP/inj.d/done" ]; then ok "injected: the program did its window's work in time"
		else not_ok "injected: the program did its window's work in time (a machine this loaded cannot show it)"; fi
		expect_match "injected: detached at the end" "$(tail -1 "$TMP/b1.werr")" \
			"mprof-tui: detached from process $PID \([0-9]+ call slots restored\); it runs on without the hook$"
		expect_match "injected: --info --attach says detached" "$("$MPROF" --info --attach "$PID" 2>&1)" "^hook: injected, detached$"
		f=$TMP/mprof-window-$PID.pro
		expect_match "injected: no -o: written to mprof-window-PID.pro" "$(cat "$TMP/b1.werr")" "written to mprof-window-$PID\.pro$"
		rows "$f" --alloc > "$TMP/b1.alloc"
		expect_file_eq "injected: alloc = exactly the window's allocations" "$TMP/b1.alloc" "$TMP/want_alloc"
		rows "$f" > "$TMP/b1.inuse"
		expect_file_eq "injected: in use = exactly the window's blocks still alive" "$TMP/b1.inuse" "$TMP/want_inuse"
		expect_match "injected: no -o and no terminal: the --top=flat report" "$(cat "$TMP/b1.wout")" \
			"win_keep"
		# The second window switches the idle hook on again.
		if ! win b2 2 "$PID" --export=folded --alloc -o "$TMP/b2.folded"; then
			not_ok "injected: a second window opens" "$(cat "$TMP/b2.werr")"
		else
			expect_match "injected: the second window loads (switches on) the hook again" "$(head -1 "$TMP/b2.werr")" "libmprof.so loaded for it"
			touch "$TMP/inj.d/go2"
			win_end b2
			expect_eq "injected: second window, exit status 0" "$WST" 0
			expect_eq "injected: second window, --export=folded --alloc: only its allocation" \
				"$(folded "$TMP/b2.folded")" "main;win_second 256"
			expect_match "injected: detached again" "$(tail -1 "$TMP/b2.werr")" "^mprof-tui: detached from process $PID"
		fi
	fi
	touch "$TMP/inj.d/go2" "$TMP/inj.d/end"
	app_done inj "injected, then detached"
fi

# The first window's blocks freed in the second (window_app's go2) count
# nowhere: no stack shows more freed than allocated (mprof-tui says so).
expect_eq "no window saw a stack free more than it allocated" "$(cat "$TMP"/*.werr | grep -c 'miscounted')" 0

# --- python3, a program we did not write: injected, --keep, folded ----------------------
if [ "$(uname -m)" != x86_64 ] || ! command -v python3 > /dev/null 2>&1; then
	ok "python3 # SKIP needs x86_64 and python3"
else
	# Keeps 1000-B bytes objects (over pymalloc's 512 B: they come from
	# malloc) in a ring of 200 until told to stop, then prints a total.
	cat > "$TMP/loop.py" << 'EOF'
import os, sys, time
print(os.getpid(), flush=True)
ring, n = [None] * 200, 0
while not os.path.exists(sys.argv[1]):
    ring[n % 200] = bytes(1000) + str(n).encode()
    n += 1
    if n % 100 == 0:
        time.sleep(0.001)
print("loop: made", n, "objects", flush=True)
EOF
	( python3 "$TMP/loop.py" "$TMP/py.stop" > "$TMP/py.out" 2>&1 & echo $! > "$TMP/py.pid"; wait $!; echo $? > "$TMP/py.st" ) &
	n=0
	while [ ! -s "$TMP/py.out" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	PY=$(head -1 "$TMP/py.out")
	run_status timeout 60 "$MPROF" --window 1 --keep "$PY" --export=folded --alloc -o "$TMP/py.folded"
	expect_eq "python3: --window 1 --keep, exit status 0" "$STATUS" 0
	expect_match "python3: --keep: says the hook keeps recording" "$ERR" \
		"libmprof.so keeps recording in process $PY \(--keep\); mprof-tui --detach $PY stops it$"
	# Every object of the loop goes through PyBytes_FromStringAndSize or
	# the concatenation; each is 1000 B and more.
	big=$(awk '/PyBytes|bytes_concat/ { s += $NF } END { printf "%.0f\n", s }' "$TMP/py.folded")
	if [ "${big:-0}" -ge 100000 ]; then ok "python3: the loop's bytes objects are in the window ($big B)"
	else not_ok "python3: the loop's bytes objects are in the window" "$(sort -k2 -n -t' ' "$TMP/py.folded" | tail -3)"; fi
	expect_match "python3: still recording after the window" "$("$MPROF" --info --attach "$PY" 2>&1)" "^hook: injected$"
	run_status "$MPROF" --detach "$PY"
	expect_eq "python3: --detach afterwards, exit 0" "$STATUS" 0
	touch "$TMP/py.stop"
	wait_file "$TMP/py.st"
	expect_match "python3: runs on and exits normally" "$(cat "$TMP/py.st") $(tail -1 "$TMP/py.out")" "^0 loop: made [0-9]+ objects$"
	rm -f "$TMP/py.pid"
fi

# --- c. errors ---------------------------------------------------------------------------
for s in abc 0 -3 nan 1e9 ""; do
	run_status "$MPROF" --window "$s" $$
	expect_eq "error: --window '$s'" "$STATUS:$ERR" "2:mprof-tui: --window takes seconds (above 0, at most 604800), not '$s'"
done
run_status "$MPROF" --window 1
expect_eq "error: no process id" "$STATUS:$ERR" "2:mprof-tui: --window SECONDS takes one process id"
run_status "$MPROF" --window 1 xyz
expect_eq "error: not a process id" "$STATUS:$ERR" "2:mprof-tui: --window SECONDS takes a process id, not 'xyz'"
run_status "$MPROF" --window 1 999999999
expect_eq "error: no such process" "$STATUS:$ERR" "2:mprof-tui: no process 999999999"
run_status "$MPROF" --window 1 $$ --export=folded
expect_eq "error: --export without -o, before any window" "$STATUS:$ERR" "2:mprof-tui: --export needs -o FILE"
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null 2>&1 && setpriv --reuid 65534 --regid 65534 --clear-groups "$MPROF" --help > /dev/null 2>&1; then
	sleep 30 &
	SP=$!
	run_status setpriv --reuid 65534 --regid 65534 --clear-groups "$MPROF" --window 1 "$SP"
	expect_eq "error: another user's process" "$STATUS:$ERR" "2:mprof-tui: process $SP (sleep) belongs to root (uid 0), not to you: refused"
	kill $SP
else
	ok "error: another user's process # SKIP needs root, setpriv and a tree uid 65534 can read"
fi
