#!/bin/sh
# inject: mprof-tui --inject / --detach / --attach on processes started
# WITHOUT the hook (ptrace + dlopen; x86_64): the leak seen growing,
# the target's output and exit status unchanged, 20 injections into
# targets busy in malloc/free on every thread, each error case, detach.
. "$(dirname "$0")/../lib.sh"

if [ "$(uname -m)" != x86_64 ]; then
	run_status "$MPROF" --inject $$
	expect_match "inject: other architectures are refused" "$ERR" "x86_64 only"
	exit 0
fi
T=$TMP/inject_target
cc -O1 -g -pthread -o "$T" "$TOP/test/progs/inject_target.c" || { not_ok "build inject_target"; exit 0; }

# target NAME SECONDS [MODE]: starts it in the background (no hook); sets
# PID, its output in $TMP/NAME.out, its exit status in $TMP/NAME.st.
target() {
	( timeout 60 "$T" "$2" $3 > "$TMP/$1.out" 2>&1; echo $? > "$TMP/$1.st" ) &
	n=0
	while [ ! -s "$TMP/$1.out" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	PID=$(head -1 "$TMP/$1.out")
}
# finished NAME WHAT: the target printed its last line and exited with 7.
finished() {
	n=0
	while [ ! -s "$TMP/$1.st" ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
	expect_eq "$2: exit status unchanged" "$(cat "$TMP/$1.st" 2> /dev/null)" 7
	expect_match "$2: output unchanged" "$(tail -1 "$TMP/$1.out")" "^inject_target: leaked [0-9]+ blocks$"
}
# inuse NAME FILE: leak_fn's in-use bytes in a profile.
inuse() { "$MPROF" --top=flat --format=tsv "$1" | awk -F '\t' '$5 == "leak_fn" { print $1 }'; }
now_ms() { date +%s%3N; }

# --- inject while it runs; the leak grows ------------------------------------------
target main 5
run_status "$MPROF" --inject "$PID"
expect_eq "inject: exit status 0" "$STATUS" 0
expect_eq "inject: says where the segment is" "$(printf '%s\n' "$OUT" | head -1)" "loaded libmprof.so into process $PID: /dev/shm/mprof-$PID"
expect_match "inject: names the program's allocator (glibc's)" "$(printf '%s\n' "$OUT" | sed -n 2p)" "^its allocator: /.*/libc\.so\.6$"
expect_eq "inject: the segment exists" "$(ls /dev/shm/mprof-$PID 2> /dev/null)" "/dev/shm/mprof-$PID"
# Exact, whatever the machine's load: leak_fn's in-use bytes grow between two
# snapshots, by whole 1000-B blocks, and none of them is freed (objects x 1000
# = bytes). The rate itself is a figure of test/bench/inject_rate.sh.
objs() { "$MPROF" --top=flat --format=tsv "$1" | awk -F '\t' '$5 == "leak_fn" { print $2 }'; }
"$MPROF" --snapshot "$PID" -o "$TMP/s1.pro"
a=$(inuse "$TMP/s1.pro")
a=${a:-0}   # no row yet: nothing leaked since the injection
n=0 b=0
while [ "$b" -le "$a" ] && [ $n -lt 50 ]; do
	sleep 0.2
	"$MPROF" --snapshot "$PID" -o "$TMP/s2.pro"
	b=$(inuse "$TMP/s2.pro")
	b=${b:-0}
	n=$((n + 1))
done
o=$(objs "$TMP/s2.pro")
expect_eq "inject: leak_fn grows between two snapshots, by whole blocks, none freed" \
	"$([ "$b" -gt "$a" ] && echo grows) $((a % 1000)) $((b % 1000)) $((${o:-0} * 1000 - b))" "grows 0 0 0"
run_status "$MPROF" --inject "$PID"
expect_eq "inject again: already there, exit 0" "$STATUS:$OUT" "0:process $PID already has a segment: /dev/shm/mprof-$PID"
finished main "inject"
expect_eq "inject: the segment is removed at exit" "$(ls /dev/shm/mprof-$PID 2> /dev/null)" ""

# --- 20 injections into targets busy in malloc/free on all threads ---------------
good=0 bad=""
i=0
while [ $i -lt 20 ]; do
	i=$((i + 1))
	# Runs until told to stop (at most 30 s): the injection has all the time
	# it needs even on a loaded machine.
	target busy$i 30 "busy $TMP/stop$i"
	if timeout 30 "$MPROF" --inject "$PID" > /dev/null 2> "$TMP/busy.err"; then :; else bad="$bad #$i:$(cat "$TMP/busy.err")"; fi
	touch "$TMP/stop$i"
	n=0
	while [ ! -s "$TMP/busy$i.st" ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
	if [ "$(cat "$TMP/busy$i.st" 2> /dev/null)" = 7 ] && tail -1 "$TMP/busy$i.out" | grep -q '^inject_target: leaked'; then
		good=$((good + 1))
	else
		bad="$bad #$i:status $(cat "$TMP/busy$i.st" 2> /dev/null) $(tail -1 "$TMP/busy$i.out")"
	fi
done
expect_eq "busy: 20 injections, every target exits normally, no deadlock or crash${bad:+ ($bad)}" "$good" 20
expect_eq "busy: every injection succeeded" "$bad" ""

# --- errors: one line, exit status 2 --------------------------------------------------
run_status "$MPROF" --inject 999999999
expect_eq "error: no such process" "$STATUS:$ERR" "2:mprof-tui: no process 999999999"
run_status "$MPROF" --inject abc
expect_eq "error: not a pid" "$STATUS:$ERR" "2:mprof-tui: --inject takes a process id, not 'abc'"

if cc -static -O1 -pthread -o "$TMP/static_target" "$TOP/test/progs/inject_target.c" 2> /dev/null; then
	( "$TMP/static_target" 1 > "$TMP/static.out"; echo $? > "$TMP/static.st" ) &
	n=0; while [ ! -s "$TMP/static.out" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	SP=$(head -1 "$TMP/static.out")
	run_status "$MPROF" --inject "$SP"
	expect_eq "error: statically linked" "$STATUS:$ERR" "2:mprof-tui: process $SP is statically linked: a library cannot be loaded into it (build it dynamically, or start it with LD_PRELOAD)"
	wait
else
	ok "error: statically linked # SKIP no static libc"
fi

if command -v strace > /dev/null 2>&1; then
	target traced 3
	strace -q -p "$PID" -o /dev/null &
	SPID=$!
	n=0; while ! grep -q "^TracerPid:[[:space:]]*[1-9]" /proc/$PID/status 2> /dev/null && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	run_status "$MPROF" --inject "$PID"
	expect_match "error: already traced" "$STATUS:$ERR" "^2:mprof-tui: process $PID is already being traced \(by process [0-9]+\): detach the debugger or tracer first$"
	kill $SPID 2> /dev/null
	finished traced "traced"
else
	ok "error: already traced # SKIP strace is not installed"
fi

if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null 2>&1 && setpriv --reuid 65534 --regid 65534 --clear-groups "$MPROF" --help > /dev/null 2>&1; then
	target other 2
	run_status setpriv --reuid 65534 --regid 65534 --clear-groups env MPROF_LIB="$TOP/libmprof.so" "$MPROF" --inject "$PID"
	expect_eq "error: another user's process" "$STATUS:$ERR" "2:mprof-tui: not permitted to trace process $PID: it belongs to another user (uid 0); ptrace needs the same user or CAP_SYS_PTRACE"
	finished other "another user"
else
	ok "error: another user's process # SKIP needs root, setpriv and a tree uid 65534 can read"
fi

# A thread sits in dl_iterate_phdr (the loader's lock) for the whole run:
# never a safe moment.  Waiting past the end: the target exits meanwhile.
target stuck 1 stuck
run_status "$MPROF" --inject "$PID"
expect_eq "error: the target exits during the injection" "$STATUS:$ERR" "2:mprof-tui: process $PID exited during the injection"
finished stuck "exits during the injection"
target stuck2 1.5 stuck
run_status env MPROF_INJECT_TIMEOUT=300 "$MPROF" --inject "$PID"
expect_eq "error: no safe moment, gives up" "$STATUS:$ERR" "2:mprof-tui: process $PID: gave up after 0.3 s: some thread was always inside the allocator or the dynamic loader (MPROF_INJECT_TIMEOUT=MS waits longer)"
finished stuck2 "gave up"

# Targets linked with jemalloc and tcmalloc, every thread always in malloc or
# free: each busy thread is run to the point where it leaves the allocator.
# (The program's own name contains "jemalloc": only the library is the allocator.)
for lib in jemalloc tcmalloc_minimal; do
	if ! cc -O1 -g -pthread -o "$TMP/inject_target_$lib" "$TOP/test/progs/inject_target.c" -l$lib 2> /dev/null; then
		not_ok "busy $lib: cannot link -l$lib (make deps installs it)"
		continue
	fi
	good=0 bad=""
	for i in 1 2 3 4 5; do
		( timeout 60 "$TMP/inject_target_$lib" 30 busy "$TMP/stop$lib$i" > "$TMP/$lib$i.out" 2>&1; echo $? > "$TMP/$lib$i.st" ) &
		n=0; while [ ! -s "$TMP/$lib$i.out" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
		PID=$(head -1 "$TMP/$lib$i.out")
		if timeout 30 "$MPROF" --inject "$PID" > "$TMP/$lib.inj" 2>&1 && grep -q "^its allocator: .*/lib$lib\.so" "$TMP/$lib.inj" &&
		   timeout 30 "$MPROF" --detach "$PID" > /dev/null 2>&1; then :; else bad="$bad #$i:$(cat "$TMP/$lib.inj")"; fi
		touch "$TMP/stop$lib$i"
		n=0; while [ ! -s "$TMP/$lib$i.st" ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
		if [ "$(cat "$TMP/$lib$i.st" 2> /dev/null)" = 7 ] && tail -1 "$TMP/$lib$i.out" | grep -q '^inject_target: leaked'; then
			good=$((good + 1))
		else
			bad="$bad #$i:status $(cat "$TMP/$lib$i.st" 2> /dev/null) $(tail -1 "$TMP/$lib$i.out")"
		fi
	done
	expect_eq "busy $lib: 5 injections and detaches, each names lib$lib, every target exits normally${bad:+ ($bad)}" "$good" 5
done

# injected_run NAME BIN READY: runs BIN GO END (a program that prints its
# pid, waits for GO before its work and prints a line matching READY after
# it, then waits for END), injects it before the work, snapshots it after
# into $TMP/NAME.pro, detaches and lets it end; its exit status in
# $TMP/NAME.st.
injected_run() {
	( timeout 60 "$2" "$TMP/$1.go" "$TMP/$1.end" > "$TMP/$1.out" 2>&1; echo $? > "$TMP/$1.st" ) &
	n=0; while [ ! -s "$TMP/$1.out" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	PID=$(head -1 "$TMP/$1.out")
	run_status "$MPROF" --inject "$PID"
	expect_eq "inject $1: loaded" "$STATUS" 0
	touch "$TMP/$1.go"
	n=0; while ! grep -q "$3" "$TMP/$1.out" && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
	"$MPROF" --snapshot "$PID" -o "$TMP/$1.pro"
	"$MPROF" --detach "$PID" > /dev/null
	touch "$TMP/$1.end"
	n=0; while [ ! -s "$TMP/$1.st" ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
}

# jemalloc's *allocx and tcmalloc's tc_* called directly, after an
# injection: exact in the snapshot; detached, the program frees its blocks
# and exits normally.
for v in JE:jemalloc TC:tcmalloc_minimal; do
	d=${v%%:*} lib=${v#*:}
	if ! cc -O1 -g -fno-omit-frame-pointer -D$d -o "$TMP/ext_$d" "$TOP/test/progs/hook_extapi.c" -l$lib; then
		not_ok "inject $lib API: build"
		continue
	fi
	injected_run "api_$lib" "$TMP/ext_$d" '^done$'
	f=$TMP/api_$lib.pro
	if [ $d = JE ]; then
		got="$(sumf "$f" leak_mallocx flat) $(sumf "$f" leak_rallocx flat) $(sumf "$f" leak_xallocx flat)"
		want="400 4 300 1 100 1"
	else
		got=$(sumf "$f" leak_tc flat)
		want="820 8"
	fi
	expect_eq "inject $lib API: the leaks, exact" "$got $(sumf "$f" no_leak flat)" "$want 0 0"
	expect_eq "inject $lib API: exit status after detach" "$(cat "$TMP/api_$lib.st")" 0
done

# C++ after an injection, under libstdc++, jemalloc and tcmalloc (the
# last two define operator new themselves): every new and delete exact.
for lib in stdc++ jemalloc tcmalloc_minimal; do
	if ! c++ -O1 -g -fno-omit-frame-pointer -o "$TMP/cxx_$lib" "$TOP/test/progs/hook_cxx.cpp" -l$lib; then
		not_ok "inject c++ $lib: build"
		continue
	fi
	injected_run "cxx_$lib" "$TMP/cxx_$lib" '^hook_cxx:'
	f=$TMP/cxx_$lib.pro
	expect_eq "inject c++ $lib: new, new[], new/delete, vector, exception, bad_alloc; exit status" \
		"$(sumf "$f" _Z8leak_newv flat) $(sumf "$f" _Z14leak_new_arrayv cum) $(sumf "$f" _Z10new_deletev cum) $(sumf "$f" _Z11grow_vectorv cum) $(sumf "$f" _Z8catch_itv cum) $(sumf "$f" _Z19bad_alloc_then_leakv flat) $(cat "$TMP/cxx_$lib.st")" \
		"320 8 400 4 0 0 4120 2 0 0 120 3 0"
done

# A program built without -fPIE that takes malloc's address (as Debian's
# python3 does): the hook forwards to libc's malloc, not to the PLT stub
# that leads back to the hook.
if cc -O1 -g -fno-omit-frame-pointer -no-pie -fno-pie -o "$TMP/fnptr" "$TOP/test/progs/hook_fnptr.c"; then
	injected_run fnptr "$TMP/fnptr" '^done$'
	expect_eq "inject non-PIE, malloc by address: leak exact, exits 0" \
		"$(sumf "$TMP/fnptr.pro" leak_ptr flat) $(sumf "$TMP/fnptr.pro" no_leak flat) $(cat "$TMP/fnptr.st" 2> /dev/null)" "300 6 0 0 0"
else
	not_ok "inject non-PIE: build"
fi

# Injected, then the program runs a new program (exec): the segment it left
# is stale.  --inject loads the hook into the new program, --snapshot says
# what it read, the listing removes a stale segment and says why.
for round in 1 2; do
	sh -c 'echo $$; sleep 0.6; exec sleep 2.5' > "$TMP/ex$round.out" &
	n=0; while [ ! -s "$TMP/ex$round.out" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	EP=$(head -1 "$TMP/ex$round.out")
	"$MPROF" --inject "$EP" > /dev/null 2>&1
	n=0; while [ "$(readlink /proc/$EP/exe)" = "$(readlink /proc/$$/exe)" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	sleep 0.2
	if [ $round = 1 ]; then
		run_status "$MPROF" --snapshot "$EP" -o "$TMP/ex.pro"
		expect_eq "exec after inject: --snapshot writes what the hook left, and says so" "$STATUS:$ERR" \
			"0:mprof-tui: note: process $EP no longer runs libmprof.so (it exited or ran a new program); $TMP/ex.pro holds what its hook left"
		run_status "$MPROF" --inject "$EP"
		expect_eq "exec after inject: --inject loads the hook into the new program" "$STATUS:$(printf '%s\n' "$OUT" | head -1)" "0:loaded libmprof.so into process $EP: /dev/shm/mprof-$EP"
	else
		expect_match "exec after inject: the listing removes the stale segment" "$("$MPROF" --attach < /dev/null 2>&1)" "removed /dev/shm/mprof-$EP: process $EP ran a new program without the hook"
		expect_eq "exec after inject: no segment left" "$(ls /dev/shm/mprof-$EP 2> /dev/null)" ""
	fi
	wait
done
rm -f "/dev/shm/mprof-$EP"

# An allocator that cannot be identified (malloc from one library, free
# from libc): refused, the process untouched.
cat > "$TMP/half.c" << 'EOF'
#include <stddef.h>
extern void *__libc_malloc(size_t);
void *malloc(size_t n) { return __libc_malloc(n); }
EOF
if cc -shared -fPIC -o "$TMP/libhalf.so" "$TMP/half.c" &&
   cc -O1 -g -pthread -o "$TMP/half_target" "$TOP/test/progs/inject_target.c" -L"$TMP" -Wl,-rpath,"$TMP" -Wl,--no-as-needed -lhalf; then
	( timeout 60 "$TMP/half_target" 1.5 > "$TMP/half.out" 2>&1; echo $? > "$TMP/half.st" ) &
	n=0; while [ ! -s "$TMP/half.out" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	PID=$(head -1 "$TMP/half.out")
	run_status "$MPROF" --inject "$PID"
	expect_match "error: allocator not identified, refused" "$STATUS:$ERR" "^2:mprof-tui: process $PID: its allocator cannot be identified \\(malloc comes from $TMP/libhalf\\.so, free from /.*/libc\\.so\\.6\\); it is left untouched$"
	expect_eq "error: allocator not identified, no segment" "$(ls /dev/shm/mprof-$PID 2> /dev/null)" ""
	finished half "allocator not identified"
else
	not_ok "build the half allocator"
fi

# A target that runs a new program (exec) while the injection waits for a
# safe moment (a thread holds the loader's lock until then): the libraries
# moved, nothing is called at the old addresses; the new program runs on.
cat > "$TMP/execer.c" << 'EOF'
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static int hold(struct dl_phdr_info *i, size_t n, void *a) { (void)i; (void)n; (void)a; pause(); return 0; }
static void *stuck(void *a) { (void)a; dl_iterate_phdr(hold, NULL); return NULL; }
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, stuck, NULL);
	printf("%d\n", (int)getpid());
	fflush(stdout);
	usleep(400000);
	execlp("sleep", "sleep", "1.5", (char *)NULL);
	return 9;
}
EOF
if cc -O1 -pthread -o "$TMP/execer" "$TMP/execer.c"; then
	( timeout 60 "$TMP/execer" > "$TMP/execer.out" 2>&1; echo $? > "$TMP/execer.st" ) &
	n=0; while [ ! -s "$TMP/execer.out" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	PID=$(head -1 "$TMP/execer.out")
	run_status "$MPROF" --inject "$PID"
	n=0; while [ ! -s "$TMP/execer.st" ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
	expect_eq "exec during the injection: refused, said so, the new program exits normally" "$STATUS:$ERR:$(cat "$TMP/execer.st")" \
		"2:mprof-tui: process $PID ran a new program (exec) during the injection; nothing was done: try again:0"
else
	not_ok "build the exec target"
fi

# --- detach: counters stop growing; the target ends normally ----------------------
target det 6   # long enough for inject, detach, two snapshots and a second detach on a loaded, sanitized run
"$MPROF" --inject "$PID" > /dev/null
sleep 0.3
run_status "$MPROF" --detach "$PID"
expect_match "detach: exit status 0" "$STATUS:$OUT" "^0:detached from process $PID \([0-9]+ call slots restored\); its segment stays readable$"
"$MPROF" --snapshot "$PID" -o "$TMP/d1.pro"
sleep 1
"$MPROF" --snapshot "$PID" -o "$TMP/d2.pro"
"$MPROF" --top=flat --alloc --format=tsv "$TMP/d1.pro" > "$TMP/d1.tsv"
"$MPROF" --top=flat --alloc --format=tsv "$TMP/d2.pro" > "$TMP/d2.tsv"
expect_match "detach: something was recorded before" "$(cat "$TMP/d1.tsv")" "leak_fn"
expect_file_eq "detach: the counters stop growing" "$TMP/d2.tsv" "$TMP/d1.tsv"
run_status "$MPROF" --detach "$PID"
expect_eq "detach twice: said so" "$STATUS:$ERR" "2:mprof-tui: process $PID is already detached (mprof-tui --inject $PID records again)"
finished det "detach"
run_status "$MPROF" --detach 999999999
expect_eq "detach: no such process" "$STATUS:$ERR" "2:mprof-tui: no process 999999999"

# --- --attach PID offers the injection; quitting offers the detach ---------------
. "$TOP/test/tmux.sh"
target tui 5
tmux_start 150 30 "$TMP"
keys "$MPROF --attach $PID" Enter
check "attach: offers to inject" "[y/n]"
keys y
check "attach: the live screen says history before the attach is unknown" "history before the attach is unknown"
keys q
check "quit: asks on the screen: d detach / k keep recording" "d detach it (its calls go to libc again), k keep it recording"
keys d
check "quit: d detaches" "detached from process $PID"
expect_eq "quit: the segment says detached" "$(od -An -tu4 -j60 -N4 /dev/shm/mprof-$PID 2> /dev/null | tr -d ' ')" 3
finished tui "attach in the terminal"
