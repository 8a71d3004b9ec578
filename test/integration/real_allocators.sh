#!/bin/sh
# real_allocators.sh - the hook never corrupts the program it watches, under
# each real allocator, preloaded or injected into a running process:
#  - alloc_check (C) and alloc_check_cxx (C++), each linked plainly (glibc),
#    with -ljemalloc and with -ltcmalloc_minimal (both of which define
#    operator new themselves): preloaded, the output and exit status are a
#    plain run's and each leak function's in-use bytes and objects exact;
#    injected while three threads churn and detached again, the program
#    finds every block intact and exits normally;
#  - python3 and perl injected while busy and detached: the same checksum
#    as a run without the hook;
#  - bad input: a second --inject, a process that exits or execs during the
#    injection, a statically linked process.
# The programs check every block's contents themselves (test/progs/
# alloc_check.c): a corrupted block makes them print "CORRUPT" and exit 3.
. "$(dirname "$0")/../lib.sh"
HOOK=$TOP/libmprof.so
P=$TOP/test/progs

# Every process started here is killed on the way out, also on failure.
# bg records each background job (a subshell; its program is its child),
# direct ones are recorded in $TMP/direct.pids.
ppid_of() { sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f2; }
kill_job() {   # NAME: the job's program and the job, if still there
	[ -f "$TMP/$1.bg" ] && [ ! -s "$TMP/$1.st" ] || return 0
	_b=$(cat "$TMP/$1.bg")
	pkill -KILL -P "$_b" 2> /dev/null
	kill -KILL "$_b" 2> /dev/null
	echo killed > "$TMP/$1.st"
}
cleanup() {
	for _f in "$TMP"/*.bg; do
		[ -f "$_f" ] || continue
		_f=${_f##*/}
		kill_job "${_f%.bg}"
	done
	for _p in $(cat "$TMP/direct.pids" 2> /dev/null); do
		[ "$(ppid_of "$_p")" = $$ ] && kill -KILL "$_p" 2> /dev/null
	done
	# Segments left by targets that died (or exec'd) with the hook in them.
	for _p in $(cat "$TMP/targets" 2> /dev/null); do
		[ -d "/proc/$_p" ] || rm -f "/dev/shm/mprof-$_p"
	done
}
trap 'cleanup; rm -rf "$TMP"' EXIT
trap 'exit 2' INT TERM HUP

# bg NAME CMD...: starts CMD in the background, without the hook: its
# stdout in $TMP/NAME.out, stderr in $TMP/NAME.err, exit status in
# $TMP/NAME.st.
# (Helpers' variables start with _: sh has no locals.)
bg() {
	_j=$1
	shift
	rm -f "$TMP/$_j.st" "$TMP/$_j.out" "$TMP/$_j.err"
	( "$@" > "$TMP/$_j.out" 2> "$TMP/$_j.err"; echo $? > "$TMP/$_j.st" ) &
	echo $! > "$TMP/$_j.bg"
}
# pid_of NAME: waits (20 s at most) for the pid line; sets PID, "" if none.
pid_of() {
	_n=0
	_s=$(cap 20)
	while [ ! -s "$TMP/$1.out" ] && [ ! -s "$TMP/$1.st" ] && [ $_n -lt $((_s * 20)) ]; do sleep 0.05; _n=$((_n + 1)); done
	PID=$(head -1 "$TMP/$1.out" 2> /dev/null)
	case $PID in '' | *[!0-9]*) PID= ;; *) echo "$PID" >> "$TMP/targets" ;; esac
}
# ended NAME [SECONDS]: waits (15 s by default) for the job's exit; sets ST
# to its status, or "still running" (and kills it).
ended() {
	_n=0
	_s=$(cap "${2:-15}")
	while [ ! -s "$TMP/$1.st" ] && [ $_n -lt $((_s * 20)) ]; do sleep 0.05; _n=$((_n + 1)); done
	ST=$(cat "$TMP/$1.st" 2> /dev/null)
	if [ -z "$ST" ]; then
		ST="still running after $_s s"
		kill_job "$1"
	fi
}
# tell NAME: the job's last line and stderr, for failure messages.
tell() {
	printf 'last line: %s; stderr: %s' "$(tail -1 "$TMP/$1.out" 2> /dev/null)" \
		"$(head -c 600 "$TMP/$1.err" 2> /dev/null | head -5 | tr '\n' ' ')"
}
# inuse FILE FUNC flat|cum: the in-use bytes of sumf.
inuse() { sumf "$1" "$2" "$3" | cut -d' ' -f1; }
# gt0 NAME VALUE WHAT: ok when VALUE is a number above 0.
gt0() {
	case $2 in
	'' | *[!0-9]*) not_ok "$1" "$3: '$2'" ;;
	*) if [ "$2" -gt 0 ]; then ok "$1"; else not_ok "$1" "$3: $2, want > 0"; fi ;;
	esac
}
# injected NAME PID LIB_RE: after run_status MP --inject PID: exit status 0,
# the segment named, and the allocator library (a regex on its base name).
injected() {
	expect_eq "$1: --inject exit status 0" "$STATUS:$(printf '%s\n' "$OUT" | head -1)$ERR" \
		"0:loaded libmprof.so into process $2: /dev/shm/mprof-$2"
	expect_match "$1: --inject names the program's allocator" "$(printf '%s\n' "$OUT" | sed -n 2p)" "^its allocator: /.*/$3\$"
}
lib_re() { case $1 in glibc) echo 'libc\.so\.6' ;; *) echo "lib$1\\.so[.0-9]*" ;; esac; }
# The whole script stays within 3 minutes even when targets hang: every
# wait is cut to what is left of BUDGET seconds, and once it is spent the
# cases not yet run say so instead of running.
T0=$(date +%s)
BUDGET=150
late() { [ $(($(date +%s) - T0)) -ge $BUDGET ]; }
cap() {   # min(N, seconds left), at least 1
	_l=$((BUDGET - ($(date +%s) - T0)))
	[ "$1" -lt "$_l" ] && _l=$1
	[ "$_l" -lt 1 ] && _l=1
	echo "$_l"
}
MP() { timeout "$(cap 60)" "$MPROF" "$@"; }

if [ "$(uname -m)" != x86_64 ]; then
	ok "real allocators # SKIP injection is implemented for x86_64 only"
	exit 0
fi

# ---- builds --------------------------------------------------------------------
# The binaries are named c_je, cxx_tc...: not after the allocator libraries
# (mprof-tui --inject once took a program named so for allocator code).
CFLAGS_T="-O1 -g -fno-omit-frame-pointer -pthread"
CXXFLAGS_T="-O1 -g -std=c++17 -fsized-deallocation -fno-omit-frame-pointer -pthread"
ALLOCS="glibc jemalloc tcmalloc_minimal"
short() { case $1 in glibc) echo glibc ;; jemalloc) echo je ;; *) echo tc ;; esac; }
lib_of() { case $1 in glibc) ;; *) echo "-l$1" ;; esac; }
# C++ is compiled once and linked three times (the flags of one build line).
c++ $CXXFLAGS_T -c -o "$TMP/alloc_check_cxx.o" "$P/alloc_check_cxx.cpp" 2> "$TMP/build.err" ||
	echo "# build of alloc_check_cxx.cpp failed: $(head -3 "$TMP/build.err" | tr '\n' ' ')"
for a in $ALLOCS; do
	s=$(short $a)
	LIB=$(lib_of $a)
	cc $CFLAGS_T -o "$TMP/c_$s" "$P/alloc_check.c" $LIB 2> "$TMP/build.err" ||
		{ rm -f "$TMP/c_$s"; echo "# build of alloc_check.c with $a failed: $(head -3 "$TMP/build.err" | tr '\n' ' ')"; }
	[ -f "$TMP/alloc_check_cxx.o" ] &&
		{ c++ $CXXFLAGS_T -o "$TMP/cxx_$s" "$TMP/alloc_check_cxx.o" $LIB 2> "$TMP/build.err" ||
		{ rm -f "$TMP/cxx_$s"; echo "# link of alloc_check_cxx with $a failed: $(head -3 "$TMP/build.err" | tr '\n' ' ')"; }; }
done

# The leaks of exact mode (see the programs' first comment): C per leaf
# function (flat), C++ per caller of operator new (cum of the mangled name).
C_LEAKS="leak_malloc:1000_10 leak_calloc:240_5 leak_realloc:4000_2 leak_memalign:400_2
leak_posix_memalign:288_3 leak_aligned_alloc:512_2"
CXX_LEAKS="_Z8leak_newv:320_8 _Z14leak_new_arrayv:400_4 _Z16leak_new_nothrowv:144_6 _Z16leak_new_alignedv:960_4"

# ---- preloaded: exact mode -------------------------------------------------------
for lang in c cxx; do
	for a in $ALLOCS; do
		bin=$TMP/${lang}_$(short $a)
		name="preload $lang+$a"
		if [ ! -x "$bin" ]; then
			not_ok "$name: cannot build or link (test/deps.sh installs libjemalloc-dev and libgoogle-perftools-dev)"
			continue
		fi
		prog=alloc_check
		[ $lang = cxx ] && prog=alloc_check_cxx
		timeout "$(cap 30)" "$bin" exact > "$TMP/plain.out" 2> "$TMP/plain.err"
		pst=$?
		expect_eq "$name: the plain run exits 0 and says ok" "$pst $(tail -1 "$TMP/plain.out")" "0 $prog: ok"
		rm -f "$TMP/x.pro"
		timeout "$(cap 30)" env MPROF_OUT="$TMP/x.pro" LD_PRELOAD="$HOOK" "$bin" exact > "$TMP/hook.out" 2> "$TMP/hook.err"
		st=$?
		expect_eq "$name: exit status unchanged" "$st" "$pst"
		tail -n +2 "$TMP/plain.out" > "$TMP/plain.rest"
		tail -n +2 "$TMP/hook.out" > "$TMP/hook.rest"
		expect_file_eq "$name: output unchanged (but the pid)" "$TMP/hook.rest" "$TMP/plain.rest"
		expect_eq "$name: nothing on stderr" "$(head -c 600 "$TMP/hook.err" | tr '\n' ' ')" ""
		if [ ! -s "$TMP/x.pro" ]; then
			not_ok "$name: no profile written to MPROF_OUT"
			continue
		fi
		if [ $lang = c ]; then
			for l in $C_LEAKS; do
				expect_eq "$name: ${l%%:*} in use (flat)" "$(sumf "$TMP/x.pro" "${l%%:*}" flat)" "$(echo "${l#*:}" | tr _ ' ')"
			done
			expect_eq "$name: exact_churn freed everything (cum)" "$(sumf "$TMP/x.pro" exact_churn cum)" "0 0"
		else
			for l in $CXX_LEAKS; do
				expect_eq "$name: ${l%%:*} in use (cum)" "$(sumf "$TMP/x.pro" "${l%%:*}" cum)" "$(echo "${l#*:}" | tr _ ' ')"
			done
			expect_eq "$name: exact_churn freed everything (cum)" "$(sumf "$TMP/x.pro" _Z11exact_churnv cum)" "0 0"
		fi
	done
done

# ---- injected while it churns, then detached -------------------------------------------
i=0
for lang in c cxx; do
	for a in $ALLOCS; do
		i=$((i + 1))
		bin=$TMP/${lang}_$(short $a)
		name="inject $lang+$a"
		if [ ! -x "$bin" ]; then
			not_ok "$name: cannot build or link"
			continue
		fi
		if late; then
			not_ok "$name: not run: the script's $BUDGET s are spent"
			continue
		fi
		prog=alloc_check
		[ $lang = cxx ] && prog=alloc_check_cxx
		bg run$i "$bin" run 30 "$TMP/stop$i"
		pid_of run$i
		if [ -z "$PID" ]; then
			not_ok "$name: the target printed no pid" "$(tell run$i)"
			touch "$TMP/stop$i"
			ended run$i 5
			continue
		fi
		run_status MP --inject "$PID"
		injected "$name" "$PID" "$(lib_re $a)"
		run_status MP --inject "$PID"
		expect_eq "$name: a second --inject says it is already there" "$STATUS:$OUT$ERR" "0:process $PID already has a segment: /dev/shm/mprof-$PID"
		sleep 1
		if [ -s "$TMP/run$i.st" ]; then
			not_ok "$name: the target survives the injection" "exit status $(cat "$TMP/run$i.st")" "$(tell run$i)"
		else
			ok "$name: the target survives the injection"
		fi
		rm -f "$TMP/s.pro"
		run_status MP --snapshot "$PID" -o "$TMP/s.pro"
		if [ $STATUS != 0 ] || [ ! -s "$TMP/s.pro" ]; then
			not_ok "$name: --snapshot" "status $STATUS: $ERR" "target: $(tell run$i)"
		elif [ $lang = c ]; then
			gt0 "$name: leak_fn is in use in the snapshot" "$(inuse "$TMP/s.pro" leak_fn flat)" "leak_fn's in-use bytes"
		else
			gt0 "$name: churn_step is in use in the snapshot" "$(inuse "$TMP/s.pro" _Z10churn_stepP6Worker cum)" "churn_step's in-use bytes (cum)"
			gt0 "$name: leak_fn is in use in the snapshot" "$(inuse "$TMP/s.pro" _Z7leak_fnv cum)" "leak_fn's in-use bytes (cum)"
		fi
		run_status MP --detach "$PID"
		expect_match "$name: --detach exit status 0" "$STATUS:$OUT$ERR" "^0:detached from process $PID \([0-9]+ call slots restored\); its segment stays readable$"
		sleep 1
		touch "$TMP/stop$i"
		ended run$i
		if [ "$ST" = 0 ]; then
			ok "$name: the target exits with status 0 after the detach"
		else
			not_ok "$name: the target exits with status 0 after the detach" "exit status $ST" "$(tell run$i)"
		fi
		expect_eq "$name: the target's last line" "$(tail -1 "$TMP/run$i.out")" "$prog: ok"
		if grep -q CORRUPT "$TMP/run$i.err"; then
			not_ok "$name: no block corrupted" "$(head -3 "$TMP/run$i.err" | tr '\n' ' ')"
		else
			ok "$name: no block corrupted"
		fi
		[ "$ST" = 0 ] && expect_eq "$name: the segment is removed at exit" "$(ls "/dev/shm/mprof-$PID" 2> /dev/null)" ""
	done
done

# ---- interpreters, injected while busy -----------------------------------------------------
# Each round does the same work from scratch and must give the same checksum
# (a dict of 500 long strings is rebuilt every round: blocks from before the
# injection are freed during it, blocks from during it after the detach).
# The loop ends at the stop file (after 2 rounds at least): the output does
# not depend on how many rounds ran.
PY_SCRIPT='
import hashlib, os, sys, time
print(os.getpid(), flush=True)
stop = sys.argv[1]
keep = {}
def one_round():
    h = hashlib.sha256()
    d = {}
    for i in range(30000):
        k = "key%d" % (i * 7919 % 30011)
        d[k] = [i, k * (1 + i % 40), str(i * i)]
    for k, v in sorted(d.items())[::97]:
        h.update(("%s %d %d %s" % (k, v[0], len(v[1]), v[2])).encode())
    big = [("%05d" % i) * (20 + i % 200) for i in range(2000)]
    h.update("".join(big[::50]).encode())
    lst = list(range(100000))
    lst.reverse()
    h.update(str(sum(lst[::3])).encode())
    for i in range(500):
        keep[i] = ("%d:" % i) * (100 + i)
    h.update(str(sum(len(v) for v in keep.values())).encode())
    return h.hexdigest()
first = one_round()
rounds = 1
t0 = time.monotonic()
while rounds < 2 or not os.path.exists(stop):
    c = one_round()
    rounds += 1
    if c != first:
        sys.exit("python: round %d checksum %s, first %s" % (rounds, c, first))
    if time.monotonic() - t0 > 60:
        sys.exit("python: no stop file after 60 s")
print("checksum", first)
print("python: ok")
'
PL_SCRIPT='
use strict;
use warnings;
use Digest::MD5 qw(md5_hex);
use Time::HiRes qw(time);
$| = 1;
print "$$\n";
my $stop = shift;
my %keep;
sub one_round {
	my %h;
	for my $i (0 .. 29999) {
		my $k = "key" . ($i * 7919 % 30011);
		$h{$k} = [$i, $k x (1 + $i % 40), $i * $i];
	}
	my @keys = sort keys %h;
	my $acc = "";
	for (my $j = 0; $j < @keys; $j += 97) {
		my $v = $h{$keys[$j]};
		$acc .= "$keys[$j] $v->[0] " . length($v->[1]) . " $v->[2];";
	}
	my @big = map { sprintf("%05d", $_) x (20 + $_ % 200) } 0 .. 1999;
	$acc .= join "", @big[grep { $_ % 50 == 0 } 0 .. $#big];
	my @l = reverse 0 .. 99999;
	my $s = 0;
	for (my $j = 0; $j < @l; $j += 3) { $s += $l[$j] }
	$acc .= $s;
	$keep{$_} = "$_:" x (100 + $_) for 0 .. 499;
	my $t = 0;
	$t += length $keep{$_} for keys %keep;
	return md5_hex($acc . $t);
}
my $first = one_round();
my $rounds = 1;
my $t0 = time;
while ($rounds < 2 || !-e $stop) {
	my $c = one_round();
	$rounds++;
	die "perl: round $rounds checksum $c, first $first\n" if $c ne $first;
	die "perl: no stop file after 60 s\n" if time - $t0 > 60;
}
print "checksum $first\n";
print "perl: ok\n";
'
PYTHON=
if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=$(command -v python3); fi
PERL=$(command -v perl)

# interp NAME INTERPRETER FLAG SCRIPT
interp() {
	name="inject $1"
	if [ -z "$2" ]; then
		ok "$name # SKIP $1 is not installed"
		return
	fi
	if late; then
		not_ok "$name: not run: the script's $BUDGET s are spent"
		return
	fi
	touch "$TMP/$1.stop0"
	bg "$1.plain" "$2" "$3" "$4" "$TMP/$1.stop0"
	ended "$1.plain" 30
	if [ "$ST" != 0 ] || [ "$(tail -1 "$TMP/$1.plain.out")" != "$1: ok" ]; then
		not_ok "$name: the plain run" "status $ST, $(tell "$1.plain")"
		return
	fi
	bg "$1" "$2" "$3" "$4" "$TMP/$1.stop"
	pid_of "$1"
	if [ -z "$PID" ]; then
		not_ok "$name: printed no pid" "$(tell "$1")"
		touch "$TMP/$1.stop"
		ended "$1" 5
		return
	fi
	exe=$(readlink "/proc/$PID/exe")
	run_status MP --inject "$PID"
	injected "$name" "$PID" "$(lib_re glibc)"
	sleep 1
	rm -f "$TMP/s.pro"
	run_status MP --snapshot "$PID" -o "$TMP/s.pro"
	if [ $STATUS != 0 ] || [ ! -s "$TMP/s.pro" ]; then
		not_ok "$name: --snapshot" "status $STATUS: $ERR" "$(tell "$1")"
	else
		# The largest cum among frames in the interpreter (its executable
		# or libpython3); names are "path(sym+0x..) [0x..]" or "path(+0x..) [0x..]".
		b=$("$MPROF" --top=flat --format=tsv --no-symbols --granularity=address "$TMP/s.pro" |
			awk -F '\t' -v e="$exe(" 'NR > 1 && (index($5, e) == 1 || index($5, "/libpython3")) && $3 > m { m = $3 }
				END { printf "%.0f\n", m }')
		gt0 "$name: in-use bytes under a frame of $exe" "$b" "the largest cum of its frames"
	fi
	run_status MP --detach "$PID"
	expect_match "$name: --detach exit status 0" "$STATUS:$OUT$ERR" "^0:detached from process $PID \([0-9]+ call slots restored\); its segment stays readable$"
	sleep 1
	touch "$TMP/$1.stop"
	ended "$1"
	if [ "$ST" = 0 ]; then
		ok "$name: exit status 0"
	else
		not_ok "$name: exit status 0" "exit status $ST" "$(tell "$1")"
	fi
	tail -n +2 "$TMP/$1.plain.out" > "$TMP/$1.plain.rest"
	tail -n +2 "$TMP/$1.out" > "$TMP/$1.rest"
	expect_file_eq "$name: the same checksum as without the hook" "$TMP/$1.rest" "$TMP/$1.plain.rest"
	expect_eq "$name: nothing on stderr" "$(head -c 600 "$TMP/$1.err" | tr '\n' ' ')" ""
}
interp python "$PYTHON" -c "$PY_SCRIPT"
interp perl "$PERL" -e "$PL_SCRIPT"

# ---- bad input ---------------------------------------------------------------------------
# A process that exits right away: either it is gone before the injection
# is done (exit status 2, one line), or the injection won the race (exit 0);
# never anything else.  Shorter lives until the first case is seen.
seen=""
for life in 0.05 0.02 0.01 0.005 0; do
	sleep "$life" &
	SP=$!
	echo "$SP" >> "$TMP/direct.pids"
	echo "$SP" >> "$TMP/targets"
	run_status MP --inject "$SP"
	lines=$(printf '%s' "$ERR" | grep -c '')
	case "$STATUS" in
	2)
		expect_match "exits during the injection (sleep $life): exit 2, one line on stderr" "$lines:$OUT$ERR" \
			"^1:mprof-tui: (process $SP exited during the injection|no process $SP)$"
		seen=1
		;;
	0)
		expect_eq "exits during the injection (sleep $life): the injection finished first" "$(printf '%s\n' "$OUT" | head -1)$ERR" \
			"loaded libmprof.so into process $SP: /dev/shm/mprof-$SP"
		;;
	*)
		not_ok "exits during the injection (sleep $life): exit status 0 or 2" "status $STATUS, stdout: $OUT" "stderr: $ERR"
		;;
	esac
	[ -n "$seen" ] && break
done
[ -n "$seen" ] || echo "# every injection finished before its process exited: the exit path was not reached"

# A shell that execs into sleep while it is being injected (the moment
# varies with the loop before the exec; 300000 loops: the injection is
# over before): success or one clear line, the target never crashes.
j=0
for loops in 0 300 1000 3000 10000 300000; do
	j=$((j + 1))
	bg exec$j sh -c 'echo $$ > "$0"; i=0; while [ $i -lt '"$loops"' ]; do i=$((i + 1)); done; exec sleep 0.5' "$TMP/exec$j.pid"
	# Spin a moment (to inject as early as can be), then poll (20 s at most).
	n=0
	while [ ! -s "$TMP/exec$j.pid" ] && [ $n -lt 20000 ]; do n=$((n + 1)); done
	n=0
	while [ ! -s "$TMP/exec$j.pid" ] && [ ! -s "$TMP/exec$j.st" ] && [ $n -lt $(($(cap 20) * 20)) ]; do sleep 0.05; n=$((n + 1)); done
	XP=$(cat "$TMP/exec$j.pid" 2> /dev/null)
	if [ -z "$XP" ]; then
		not_ok "exec during the injection ($loops loops): the shell did not start" "$(tell exec$j)"
		continue
	fi
	echo "$XP" >> "$TMP/targets"
	run_status MP --inject "$XP"
	lines=$(printf '%s' "$ERR" | grep -c '')
	case "$STATUS" in
	0) expect_match "exec during the injection ($loops loops): success" "$(printf '%s\n' "$OUT" | head -1)$ERR" \
		"^(loaded libmprof.so into process $XP: |process $XP already has a segment: )/dev/shm/mprof-$XP$" ;;
	2) expect_match "exec during the injection ($loops loops): exit 2, one line" "$lines:$ERR" "^1:mprof-tui: .*$XP" ;;
	*) not_ok "exec during the injection ($loops loops): mprof-tui exits 0 or 2" "status $STATUS, stdout: $OUT" "stderr: $ERR" ;;
	esac
	ended exec$j
	expect_eq "exec during the injection ($loops loops): the target exits normally" "$ST" 0
	if [ -e "/dev/shm/mprof-$XP" ] && [ ! -d "/proc/$XP" ]; then
		echo "# note: /dev/shm/mprof-$XP was left behind: the hook went into the shell, which exec'd"
		rm -f "/dev/shm/mprof-$XP"
	fi
done

# Statically linked: refused, and the program runs on undisturbed.
cat > "$TMP/static.c" << 'EOF'
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	printf("%d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0; i < 600 && argc > 1 && access(argv[1], F_OK); i++)
		usleep(50000);
	puts("static: ok");
	return 0;
}
EOF
if cc -static -O1 -o "$TMP/static_prog" "$TMP/static.c" 2> /dev/null; then
	bg static "$TMP/static_prog" "$TMP/static.stop"
	pid_of static
	if [ -z "$PID" ]; then
		not_ok "statically linked: the target printed no pid" "$(tell static)"
	else
		run_status MP --inject "$PID"
		expect_eq "statically linked: refused, exit 2, one line" "$STATUS:$OUT$ERR" \
			"2:mprof-tui: process $PID is statically linked: a library cannot be loaded into it (build it dynamically, or start it with LD_PRELOAD)"
		expect_eq "statically linked: the target keeps running" "$(cat "$TMP/static.st" 2> /dev/null)" ""
	fi
	touch "$TMP/static.stop"
	ended static
	expect_eq "statically linked: the target exits normally" "$ST $(tail -1 "$TMP/static.out")" "0 static: ok"
else
	ok "statically linked: refused # SKIP cc -static failed (no static libc)"
fi
