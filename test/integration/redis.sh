#!/bin/sh
# redis.sh - a real server nobody here wrote: Debian's redis-server (linked
# with libjemalloc2, jemalloc's background thread on, the default) on
# 127.0.0.1 and a free port, busy under redis-benchmark.
#  a. started without the hook: --inject while the benchmark runs, a
#     snapshot shows processCommand allocating, --detach; redis keeps
#     answering, 1000 keys written before read back unchanged, SHUTDOWN
#     exits 0 with no crash report in its log.
#  b. under LD_PRELOAD from the start: the same keys and load, a live
#     snapshot and the dump written at exit both show processCommand.
#  c. started without the hook: --window 3 under load (the hook loaded for
#     it, detached after); 200 values of 4000 B written in the window are
#     in its in-use bytes though the 1000 older keys are deleted in it;
#     redis keeps serving, SHUTDOWN exits 0.
# Every process started here is killed on the way out, also on failure.
. "$(dirname "$0")/../lib.sh"

for c in redis-server redis-cli redis-benchmark; do
	if ! command -v $c > /dev/null 2>&1; then
		ok "redis # SKIP $c is not installed (apt-get install redis-server redis-tools)"
		exit 0
	fi
done

# --- cleanup: every *.pid under $TMP whose process has not been seen to exit ----
stop_all() {
	for f in "$TMP"/*.pid; do
		[ -s "$f" ] || continue
		p=$(cat "$f")
		kill -TERM "$p" 2> /dev/null
	done
	n=0
	for f in "$TMP"/*.pid; do
		[ -s "$f" ] || continue
		p=$(cat "$f")
		while kill -0 "$p" 2> /dev/null && [ $n -lt 60 ]; do sleep 0.05; n=$((n + 1)); done
		kill -KILL "$p" 2> /dev/null
	done
	# A redis that crashed or was killed leaves the hook's segment behind.
	for p in $(cat "$TMP/started" 2> /dev/null); do
		n=0
		while kill -0 "$p" 2> /dev/null && [ $n -lt 20 ]; do sleep 0.05; n=$((n + 1)); done
		kill -0 "$p" 2> /dev/null || rm -f "/dev/shm/mprof-$p"
	done
}
trap 'stop_all; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP

# free_port: a TCP port nobody has open (no line for it in /proc/net/tcp*);
# start_redis retries another if the bind still loses a race.
free_port() {
	i=0
	while [ $i -lt 50 ]; do
		p=$(( 20000 + ($$ * 131 + i * 7919 + $(date +%N | sed 's/^0*//;s/^$/0/') % 1000) % 40000 ))
		h=$(printf ':%04X ' "$p")
		if ! cat /proc/net/tcp /proc/net/tcp6 2> /dev/null | grep -q "$h"; then echo "$p"; return; fi
		i=$((i + 1))
	done
	echo 0
}

# start_redis NAME [ENV=VALUE...]: redis-server in the background with those
# variables; sets PORT and RPID once it answers PING, RPID="" if it never
# did. Its exit status goes to $TMP/NAME.st, its log to $TMP/NAME.log.
start_redis() {
	name=$1; shift
	RPID="" tries=0
	while [ $tries -lt 5 ]; do
		tries=$((tries + 1))
		PORT=$(free_port)
		rm -f "$TMP/$name.st" "$TMP/$name.log"
		( env "$@" redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no \
			--dir "$TMP" --logfile "$TMP/$name.log" > "$TMP/$name.err" 2>&1 &
		  echo $! > "$TMP/$name.pid"; wait $!; echo $? > "$TMP/$name.st" ) &
		n=0
		while [ $n -lt 300 ]; do   # 15 s
			if [ -s "$TMP/$name.st" ]; then break; fi
			if [ "$(redis-cli -p "$PORT" PING 2> /dev/null)" = PONG ]; then
				RPID=$(cat "$TMP/$name.pid"); echo "$RPID" >> "$TMP/started"; return
			fi
			sleep 0.05; n=$((n + 1))
		done
		if [ -s "$TMP/$name.st" ] && grep -q "Address already in use" "$TMP/$name.log" 2> /dev/null; then
			rm -f "$TMP/$name.pid"; continue
		fi
		break
	done
}

# stop_redis NAME: SHUTDOWN NOSAVE, then waits (15 s at most) for the exit
# status; sets RST ("" if it did not exit).
stop_redis() {
	redis-cli -p "$PORT" SHUTDOWN NOSAVE > /dev/null 2>&1
	n=0
	while [ ! -s "$TMP/$1.st" ] && [ $n -lt 300 ]; do sleep 0.05; n=$((n + 1)); done
	RST=$(cat "$TMP/$1.st" 2> /dev/null)
	[ -n "$RST" ] && rm -f "$TMP/$1.pid"
}

# 1000 keys with known values (1 to 300 bytes: embedded and raw strings,
# several jemalloc size classes), sent as RESP through redis-cli --pipe.
awk 'BEGIN {
	for (i = 1; i <= 1000; i++) {
		v = "v" i ":"
		while (length(v) < 1 + (i * 37) % 300) v = v substr("abcdefghijklmnopqrstuvwxyz0123456789", 1 + (i + length(v)) % 36, 1)
		print v > "/dev/stderr"
		k = "mprof:key:" i
		printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(v), v
	} }' > "$TMP/keys.resp" 2> "$TMP/values"
WANT_DIGEST=$(cksum < "$TMP/values")
KEYS=$(awk 'BEGIN { for (i = 1; i <= 1000; i++) print "mprof:key:" i }')
# digest: the 1000 values read back in one MGET, one per line, cksum'd.
# shellcheck disable=SC2086
digest() { redis-cli -p "$PORT" --raw MGET $KEYS 2> /dev/null | cksum; }

write_keys() {
	out=$(redis-cli -p "$PORT" --pipe < "$TMP/keys.resp" 2>&1)
	expect_match "$1: 1000 keys written" "$out" "errors: 0, replies: 1000"
	expect_eq "$1: the keys read back as written" "$(digest)" "$WANT_DIGEST"
}

# load NAME: redis-benchmark in the background (bounded), returns once the
# server has served 2000 of its commands (10 s at most).  Called again, it
# starts another run only if the last one is over (a fast machine may get
# through 800,000 requests before the test is done with the load).
load() {
	f=$TMP/$1.bpid.pid
	if [ ! -s "$f" ] || ! kill -0 "$(cat "$f")" 2> /dev/null; then
		timeout 90 redis-benchmark -p "$PORT" -q -n 200000 -c 20 -t set,get,lpush,incr -d 64 > "$TMP/$1.bench" 2>&1 &
		echo $! > "$f"
	fi
	c0=$(commands)
	n=0
	while [ $(( $(commands) - c0 )) -lt 2000 ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
}
commands() { redis-cli -p "$PORT" INFO stats 2> /dev/null | tr -d '\r' | sed -n 's/^total_commands_processed://p' | grep . || echo 0; }
stop_load() {
	f=$TMP/$1.bpid.pid
	[ -s "$f" ] && kill -TERM "$(cat "$f")" 2> /dev/null
	n=0
	while kill -0 "$(cat "$f")" 2> /dev/null && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	rm -f "$f"
}

# alloc_cum FILE FUNC: FUNC's cum bytes allocated (--alloc), "" if no row.
alloc_cum() { "$MPROF" --top=cum --alloc --format=tsv "$1" 2> /dev/null | awk -F '\t' -v f="$2" 'NR > 1 && $5 == f { print $3; exit }'; }
# processCommand: every command goes processCommand -> call -> the command
# -> addReply, which allocates (the reply list node, the reply buffer, the
# objects of SET/LPUSH/INCR): it allocates as long as any command runs.
has_pc() {
	b=$(alloc_cum "$2" processCommand)
	if [ -n "$b" ] && [ "$b" -gt 0 ] 2> /dev/null; then ok "$1: processCommand allocated $b B"
	else not_ok "$1: processCommand allocates" "processCommand's cum alloc bytes: '$b'" \
		"$("$MPROF" --top=cum --alloc --format=tsv "$2" 2>&1 | head -12)"; fi
}

# after NAME WHAT: redis answers, the keys are unchanged, INFO works, then
# SHUTDOWN NOSAVE: exit status 0, no crash report in the log.
after() {
	expect_eq "$2: redis answers PING" "$(redis-cli -p "$PORT" PING 2>&1)" PONG
	expect_eq "$2: the 1000 keys read back unchanged" "$(digest)" "$WANT_DIGEST"
	expect_match "$2: INFO works" "$(redis-cli -p "$PORT" INFO server 2>&1 | tr -d '\r')" "^process_id:$RPID$"
	stop_load "$1"
	stop_redis "$1"
	expect_eq "$2: SHUTDOWN NOSAVE, exit status 0" "$RST" 0
	crash=$(grep -E "crashed by signal|Segmentation fault|Attempt to|BUG REPORT" "$TMP/$1.log" 2> /dev/null | head -3)
	expect_eq "$2: no crash report in redis's log" "$crash" ""
}

# --- a. inject into a running redis under load, snapshot, detach --------------------
if [ "$(uname -m)" != x86_64 ]; then
	ok "redis injected # SKIP --inject is x86_64 only"
else
	start_redis inj
	if [ -z "$RPID" ]; then
		not_ok "injected: redis-server starts" "$(tail -5 "$TMP/inj.log" 2> /dev/null)" "$(cat "$TMP/inj.err")"
	else
		ok "injected: redis-server $RPID answers on 127.0.0.1:$PORT"
		bg=$(cat /proc/$RPID/task/*/comm 2> /dev/null | grep -c "^jemalloc_bg_thd")
		expect_eq "injected: jemalloc's background thread is running" "$bg" 1
		write_keys injected
		load inj
		run_status timeout 60 "$MPROF" --inject "$RPID"
		expect_eq "injected: --inject under load, exit status 0" "$STATUS" 0
		expect_eq "injected: says where the segment is" "$(printf '%s\n' "$OUT" | head -1)$ERR" \
			"loaded libmprof.so into process $RPID: /dev/shm/mprof-$RPID"
		expect_match "injected: names redis's allocator: jemalloc" "$(printf '%s\n' "$OUT" | sed -n 2p)" \
			"^its allocator: /.*/libjemalloc\.so\.2$"
		c1=$(commands)
		sleep 3
		load inj
		c2=$(commands)
		if [ $((c2 - c1)) -gt 2000 ]; then ok "injected: redis served $((c2 - c1)) commands while hooked"
		else not_ok "injected: redis serves the benchmark while hooked" "commands processed: $c1 then $c2" "$(tail -c 300 "$TMP/inj.bench")"; fi
		run_status timeout 60 "$MPROF" --snapshot "$RPID" -o "$TMP/r.pro"
		expect_eq "injected: --snapshot, exit status 0" "$STATUS $ERR" "0 "
		has_pc injected "$TMP/r.pro"
		run_status timeout 60 "$MPROF" --detach "$RPID"
		expect_match "injected: --detach under load, exit status 0" "$STATUS:$OUT" "^0:detached from process $RPID"
		# Detached: what the process allocates now goes uncounted.
		load inj
		c1=$(commands)
		"$MPROF" --snapshot "$RPID" -o "$TMP/d1.pro" 2> /dev/null
		sleep 1
		"$MPROF" --snapshot "$RPID" -o "$TMP/d2.pro" 2> /dev/null
		c2=$(commands)
		if [ $((c2 - c1)) -gt 0 ]; then ok "injected: still serving the benchmark after --detach ($((c2 - c1)) commands between two snapshots 1 s apart)"
		else not_ok "injected: still serving the benchmark after --detach" "commands processed: $c1 then $c2"; fi
		if [ "$(alloc_cum "$TMP/d1.pro" processCommand)" -gt 0 ] 2> /dev/null; then
			"$MPROF" --top=flat --alloc --format=tsv "$TMP/d1.pro" > "$TMP/d1.tsv" 2>&1
			"$MPROF" --top=flat --alloc --format=tsv "$TMP/d2.pro" > "$TMP/d2.tsv" 2>&1
			expect_file_eq "injected: detached, the counters stop growing under load" "$TMP/d2.tsv" "$TMP/d1.tsv"
		else
			not_ok "injected: detached, the counters stop growing under load" "no snapshot with processCommand after --detach"
		fi
		after inj injected
		expect_eq "injected: the segment is removed at exit" "$(ls /dev/shm/mprof-$RPID 2> /dev/null)" ""
	fi
fi

# --- b. under the preload hook from the start ------------------------------------------
start_redis pre MPROF_OUT="$TMP/rp.pro" LD_PRELOAD="$TOP/libmprof.so"
if [ -z "$RPID" ]; then
	not_ok "preload: redis-server starts" "$(tail -5 "$TMP/pre.log" 2> /dev/null)" "$(cat "$TMP/pre.err")"
else
	ok "preload: redis-server $RPID answers on 127.0.0.1:$PORT"
	expect_eq "preload: the hook's segment exists" "$(ls /dev/shm/mprof-$RPID 2> /dev/null)" "/dev/shm/mprof-$RPID"
	write_keys preload
	load pre
	sleep 3
	run_status timeout 60 "$MPROF" --snapshot "$RPID" -o "$TMP/p.pro"
	expect_eq "preload: --snapshot under load, exit status 0" "$STATUS $ERR" "0 "
	has_pc preload "$TMP/p.pro"
	after pre preload
	if [ -s "$TMP/rp.pro" ]; then
		ok "preload: the dump was written at exit"
		has_pc "preload, dump at exit" "$TMP/rp.pro"
	else
		not_ok "preload: the dump was written at exit" "$(ls -l "$TMP")" "$(cat "$TMP/pre.err")"
	fi
	expect_eq "preload: the segment is removed at exit" "$(ls /dev/shm/mprof-$RPID 2> /dev/null)" ""
fi

# --- c. a window of a running redis started without the hook ------------------------
if [ "$(uname -m)" != x86_64 ]; then
	ok "redis window # SKIP loading the hook into a running process is x86_64 only"
	exit 0
fi
start_redis win
if [ -z "$RPID" ]; then
	not_ok "window: redis-server starts" "$(tail -5 "$TMP/win.log" 2> /dev/null)" "$(cat "$TMP/win.err")"
	exit 0
fi
write_keys window
load win
awk 'BEGIN { v = sprintf("%4000s", ""); gsub(/ /, "w", v)
	for (i = 1; i <= 200; i++) { k = "mprof:win:" i; printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$4000\r\n%s\r\n", length(k), k, v } }' > "$TMP/win.resp"
# shellcheck disable=SC2086
{ printf '*1001\r\n$3\r\nDEL\r\n'; for k in $KEYS; do printf '$%d\r\n%s\r\n' ${#k} "$k"; done; } > "$TMP/del.resp"
( timeout 60 "$MPROF" --window 3 "$RPID" -o "$TMP/w.pro" > /dev/null 2> "$TMP/w.err"; echo $? > "$TMP/w.st" ) &
n=0
while ! grep -q "window open" "$TMP/w.err" 2> /dev/null && [ ! -s "$TMP/w.st" ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
c1=$(commands)
in_window=$(redis-cli -p "$PORT" --pipe < "$TMP/win.resp" 2>&1; redis-cli -p "$PORT" --pipe < "$TMP/del.resp" 2>&1)
n=0
while [ ! -s "$TMP/w.st" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
c2=$(commands)
expect_eq "window: 200 values set, the 1000 older keys deleted in it" \
	"$(printf '%s\n' "$in_window" | grep -c '^errors: 0, replies: \(200\|1\)$')" 2
expect_eq "window: --window 3 under load, exit status 0" "$(cat "$TMP/w.st" 2> /dev/null)" 0
expect_match "window: the hook was loaded for it" "$(head -1 "$TMP/w.err")" "^mprof-tui: window open on process $RPID for 3 s, libmprof.so loaded for it"
expect_match "window: and detached after it" "$(tail -1 "$TMP/w.err")" "^mprof-tui: detached from process $RPID \\([0-9]+ call slots restored\\); it runs on without the hook$"
if [ $((c2 - c1)) -gt 2000 ]; then ok "window: redis served $((c2 - c1)) commands during the window"
else not_ok "window: redis serves the benchmark during the window" "commands processed: $c1 then $c2"; fi
has_pc window "$TMP/w.pro"
# The window's in-use bytes: at least the 200 x 4000 B values still set at
# its end; the older keys' frees subtract nothing.
inuse=$("$MPROF" --top=flat --format=tsv "$TMP/w.pro" 2> /dev/null | awk -F '\t' 'NR > 1 { s += $1 } END { printf "%.0f\n", s }')
if [ "${inuse:-0}" -ge 800000 ]; then ok "window: its in-use bytes hold the 200 values ($inuse B)"
else not_ok "window: its in-use bytes hold the 200 values" "in use: '$inuse' B" "$(cat "$TMP/w.err")"; fi
expect_match "window: --info --attach says detached" "$("$MPROF" --info --attach "$RPID" 2>&1)" "^hook: injected, detached$"
load win
write_keys "window, after"
after win "window, after"
