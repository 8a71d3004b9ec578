#!/bin/sh
# serve.sh - mprof-tui --serve: the pprof endpoint read by the real client
# (go tool pprof over HTTP on loopback) against serve_leak under the hook,
# whose leak is known (leak_small 12 x 1000 B, leak_big 3 x 40000 B; on
# request grow_here 25 x 800 B): the numbers equal --snapshot's of the same
# idle process; ?seconds=N shows exactly the growth made in the window.
# Bad requests (paths, pids, query strings, raw bytes), unknown pids,
# another user's process, a process that exits mid-request, 50 requests at
# once, a stop in the middle of a request: answered, and the server lives.
. "$(dirname "$0")/../lib.sh"
hook_prog leak "$TOP/test/progs/serve_leak.c"
PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2> /dev/null; done
	for p in $PIDS; do wait "$p" 2> /dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

# target NAME: serve_leak under the hook, controlled by files in $TMP/NAME;
# sets TPID once its segment is there.
target() {
	mkdir -p "$TMP/$1"
	LD_PRELOAD=$HOOK "$TMP/leak" "$TMP/$1" > "$TMP/$1.out" 2>&1 &
	TPID=$!
	PIDS="$PIDS $TPID"
	n=0
	while { [ ! -s "$TMP/$1.out" ] || [ ! -e /dev/shm/mprof-$TPID ]; } && [ $n -lt 250 ]; do
		n=$((n + 1))
		sleep 0.02
	done
}

# server NAME [PREFIX...]: mprof-tui --serve on a free loopback port; sets
# SPID and URL (http://127.0.0.1:PORT/debug/pprof/).
server() {
	name=$1
	shift
	"$@" "$MPROF" --serve 0 > "$TMP/$name.sout" 2> "$TMP/$name.serr" &
	SPID=$!
	PIDS="$PIDS $SPID"
	n=0
	while ! grep -q serving "$TMP/$name.sout" 2> /dev/null && [ $n -lt 250 ]; do
		n=$((n + 1))
		sleep 0.02
	done
	URL=$(sed -n 's|^mprof-tui: serving \(http://[^ ]*/debug/pprof/\) .*|\1|p' "$TMP/$name.sout")
}

# get PATH: fetches URL/PATH; sets CODE and BODY.
get() {
	CODE=$(curl -s -o "$TMP/body" -w '%{http_code}' --max-time 30 "$URL$1")
	BODY=$(cat "$TMP/body")
}

target a
A=$TPID
server main
MAIN=$SPID
expect_match "serve: prints the URL it listens on (loopback)" "$URL" '^http://127\.0\.0\.1:[0-9]+/debug/pprof/$'

# ---- the index ----------------------------------------------------------
get ""
expect_eq "index: 200" "$CODE" 200
expect_match "index: links the process's heap" "$BODY" "<a href='heap\?pid=$A'>heap</a>"
expect_match "index: names its command" "$BODY" "<td>$TMP/leak $TMP/a</td>"
CODE=$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "${URL%/}")
expect_eq "index: /debug/pprof redirects to /debug/pprof/ as Go's mux does" "$CODE" "301 $URL"

# ---- go tool pprof against it: equal to --snapshot -------------------------
GO=$(command -v go || ls /usr/lib/go-*/bin/go 2> /dev/null | head -1)
if [ -z "$GO" ] && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
	timeout 120 apt-get install -y -q golang-go > "$TMP/apt.log" 2>&1
	GO=$(command -v go || ls /usr/lib/go-*/bin/go 2> /dev/null | head -1)
fi
# pprof NAME ARGS...: go tool pprof with its files kept in $TMP.
pprof() {
	HOME=$TMP PPROF_TMPDIR=$TMP "$GO" tool pprof "$@" 2> "$TMP/pprof.err"
}
# pprof_rows INDEX SOURCE: "value<TAB>function" of -top, nonzero rows, sorted.
pprof_rows() {
	pprof -top -nodefraction=0 -unit=B -sample_index="$1" "$2" |
		awk '/^ *-?[0-9]/ { v = $1; sub(/B$/, "", v); n = $0;
			sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", n); sub(/ \(inline\)$/, "", n);
			if (v != 0) print v "\t" n }' | sort
}
# mprof_rows COLUMN FILE [--alloc]: the same from our --top=flat TSV.
mprof_rows() {
	"$MPROF" --top=flat --format=tsv $3 "$2" | awk -F'\t' -v c="$1" 'NR > 1 { s[$5] += $c }
		END { for (k in s) if (s[k]) print s[k] "\t" k }' | sort
}
"$MPROF" --snapshot "$A" -o "$TMP/snap.pro" 2> "$TMP/snap.err"
if [ -z "$GO" ]; then
	echo "ok - # SKIP go tool pprof: golang-go is not installed and could not be installed here"
else
	got=$(pprof_rows inuse_space "${URL}heap?pid=$A")
	expect_eq "go tool pprof -top over HTTP = --snapshot's flat rows" "$got" "$(mprof_rows 1 "$TMP/snap.pro")"
	expect_match "go tool pprof -top: leak_big holds exactly 3 x 40000 B" "$got" "^120000	leak_big$"
	expect_match "go tool pprof -top: leak_small holds exactly 12 x 1000 B" "$got" "^12000	leak_small$"
	curl -s -o "$TMP/heap.pb.gz" "${URL}heap?pid=$A"
	for idx in alloc_space:1:--alloc inuse_objects:2: alloc_objects:2:--alloc; do
		name=${idx%%:*}; rest=${idx#*:}; col=${rest%%:*}; opt=${rest#*:}
		expect_eq "go tool pprof -top -sample_index=$name = --snapshot's" "$(pprof_rows "$name" "$TMP/heap.pb.gz")" \
			"$(mprof_rows "$col" "$TMP/snap.pro" $opt)"
	done
	raw=$(pprof -raw "${URL}heap?pid=$A")
	expect_match "go tool pprof -raw: four sample types, inuse_space the default" "$raw" \
		'^alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes\[dflt\]$'
	expect_match "allocs: the same profile, alloc_space the default, as Go's" "$(pprof -raw "${URL}allocs?pid=$A")" \
		'^alloc_objects/count alloc_space/bytes\[dflt\] inuse_objects/count inuse_space/bytes$'
	expect_match "go tool pprof -raw: period_type space/bytes" "$raw" '^PeriodType: space bytes$'
	expect_match "go tool pprof -raw: period 1 (every allocation)" "$raw" '^Period: 1$'
	bid=$(readelf -n "$TMP/leak" | awk '/Build ID/ { print $3 }')
	expect_match "go tool pprof -raw: the program's mapping with its build ID" "$raw" \
		"^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $TMP/leak $bid \[FN\]$"
	line=$(grep -n 'keep\[used++\] = malloc(1000)' "$TOP/test/progs/serve_leak.c" | cut -d: -f1)
	expect_match "go tool pprof -raw: leak_small's location has its file and line" "$raw" \
		"M=[0-9]+ leak_small $TOP/test/progs/serve_leak.c:$line "
	expect_match "go tool pprof -raw: 12 objects, 12000 B in leak_small's sample" "$raw" \
		'^ +12 +12000 +12 +12000: '

	# ?seconds=N: the growth in the window, exactly grow_here's 25 x 800 B.
	(sleep 0.6; touch "$TMP/a/grow") &
	T=$!
	got=$(pprof -raw -seconds 2 "${URL}heap?pid=$A")
	expect_eq "seconds=2: one sample, the 25 x 800 B grown in the window" \
		"$(printf '%s\n' "$got" | awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && /:/ { sub(/:$/, "", $4); print $1, $2, $3, $4 }')" \
		"25 20000 25 20000"
	expect_match "seconds=2: its leaf is grow_here" "$got" '^ +1: 0x[0-9a-f]+ M=[0-9]+ grow_here '
	wait $T
fi

# ---- debug=1: Go's legacy text, read back by our reader -----------------------
get "heap?pid=$A&debug=1"
expect_match "debug=1: Go's legacy heap text" "$BODY" '^heap profile: [0-9]+: [0-9]+ \[[0-9]+: [0-9]+\] @ heap/2'
printf '%s\n' "$BODY" > "$TMP/heap.txt"
"$MPROF" --snapshot "$A" -o "$TMP/snap2.pro" 2> /dev/null
expect_eq "debug=1: read back, the same flat rows as --snapshot" "$(mprof_rows 1 "$TMP/heap.txt")" \
	"$(mprof_rows 1 "$TMP/snap2.pro")"
# Our own client on our own endpoint: the URL read as a file is (proto, gzipped).
if "$MPROF" --top=flat http://127.0.0.1:1/ 2>&1 | grep -q 'built without libcurl'; then
	echo "ok - # SKIP mprof-tui reads its --serve URL: built without libcurl"
else
	expect_eq "mprof-tui reads its own --serve URL: the same flat rows as --snapshot" \
		"$(mprof_rows 1 "${URL}heap?pid=$A")" "$(mprof_rows 1 "$TMP/snap2.pro")"
	expect_match "... leak_small's 12 x 1000 B among them" "$(mprof_rows 1 "${URL}heap?pid=$A")" "^12000	leak_small$"
fi

# ---- bad requests --------------------------------------------------------------
for q in abc -5 0 99999999999 "1%202" "" "%00" "0x10"; do
	get "heap?pid=$q"
	expect_match "pid='$q': 400 with the reason" "$CODE $BODY" '^400 invalid value for "pid" - must be a process id'
done
get "heap?pid=2147483000"
expect_eq "unknown pid: 404 with the reason" "$CODE $BODY" "404 no process 2147483000"
sleep 60 &
SL=$!
PIDS="$PIDS $SL"
get "heap?pid=$SL"
expect_eq "a process without the hook: 404 with the reason" "$CODE $BODY" \
	"404 process $SL does not run under libmprof.so (no /dev/shm/mprof-$SL)"
for q in "0" "-1" "x" "1.5" "99999"; do
	get "heap?pid=$A&seconds=$q"
	expect_eq "seconds=$q: 400" "$CODE" 400
done
get "heap?pid=$A&seconds=1&debug=1"
expect_eq "seconds with debug: 400, as Go's" "$CODE $BODY" "400 seconds and debug params are incompatible"
for p in /debug/pprof/heap/x /debug/pprof/goroutine /debug/pprofheap /etc/passwd "/debug/pprof/../pprof/heap" /; do
	CODE=$(curl -s -o /dev/null -w '%{http_code}' --path-as-is "${URL%/debug/pprof/}$p")
	expect_eq "path $p: 404" "$CODE" 404
done
CODE=$(curl -s -o /dev/null -w '%{http_code}' -X POST -d x "${URL}heap?pid=$A")
expect_eq "POST: 405" "$CODE" 405
big=$(head -c 100000 /dev/zero | tr '\0' 1)
CODE=$(curl -s -o /dev/null -w '%{http_code}' "${URL}heap?pid=$big")
expect_match "a 100 kB query string: refused (4xx)" "$CODE" '^4[0-9][0-9]$'
PORT=$(printf '%s' "$URL" | sed 's|.*:\([0-9]*\)/.*|\1|')
raw=$(python3 - "$PORT" << 'PY'
import errno, os, socket, sys
port = int(sys.argv[1])
# A server that refuses before reading everything may close (a reset here):
# that is "closed"; a timeout or any other error is reported as such.
GONE = (errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN)
def send(data):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    got = b""
    try:
        try:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
        except OSError as e:
            if e.errno not in GONE:
                raise
        while True:
            d = s.recv(65536)
            if not d:
                break
            got += d
    except OSError as e:
        if e.errno not in GONE:
            got = b"error " + str(e).encode()
    s.close()
    return got.split(b"\r\n", 1)[0].decode("latin-1")
print(send(b"GARBAGE\x00\xff\r\n\r\n") or "closed")
print(send(os.urandom(200000)) or "closed")
print(send(b"GET /debug/pprof/ HTTP/1.1\r\nX: " + b"a" * 300000 + b"\r\n\r\n") or "closed")
print(send(b"GET /debug/pprof/heap?pid=\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n") or "closed")
print(send(b"GET /debug/pprof/heap?pid=1&pid=2&&&=&seconds HTTP/1.0\r\n\r\n") or "closed")
PY
)
expect_eq "raw bytes: garbage, random, a huge header, bad bytes, an odd query: refused (4xx) or closed" \
	"$(printf '%s\n' "$raw" | sed -E 's/^(HTTP\/1\.[01] 4[0-9][0-9] .*|closed)$/refused/')" \
	"$(printf 'refused\n%.0s' 1 2 3 4 5)"
get ""
expect_eq "after the bad requests the server still answers" "$CODE" 200

# No pid: fine with one process; with two (there are two here) it asks for one.
target b
B=$TPID
get "heap"
expect_match "no pid, several processes: 400 asking for one" "$CODE $BODY" \
	'^400 [0-9]+ processes run under libmprof.so: add \?pid=PID'

# ---- many at once ----------------------------------------------------------
i=0
CURLS=""
while [ $i -lt 50 ]; do
	curl -s -o "$TMP/c$i.gz" -w '%{http_code}\n' --max-time 60 "${URL}heap?pid=$A" > "$TMP/c$i.code" &
	CURLS="$CURLS $!"
	i=$((i + 1))
done
for c in $CURLS; do wait "$c"; done
good=0
i=0
while [ $i -lt 50 ]; do
	[ "$(cat "$TMP/c$i.code")" = 200 ] && gzip -t "$TMP/c$i.gz" 2> /dev/null && good=$((good + 1))
	i=$((i + 1))
done
expect_eq "50 concurrent requests: all answered 200 with a whole gzip" "$good" 50

# ---- a process that goes away --------------------------------------------------
(sleep 0.5; touch "$TMP/b/exit") &
T=$!
get "heap?pid=$B&seconds=3"
expect_match "a process that exits in the window: 404 saying so" "$CODE $BODY" \
	"^404 (no process $B|process $B has exited)( .*)? \(at the end of the 3 s window\)$"
wait $T
LD_PRELOAD=$HOOK "$TMP/leak" "$TMP/k" > "$TMP/k.out" 2>&1 &
K=$!
n=0
while [ ! -e /dev/shm/mprof-$K ] && [ $n -lt 250 ]; do n=$((n + 1)); sleep 0.02; done
kill -9 $K
wait $K 2> /dev/null
get "heap?pid=$K"
expect_match "a killed process's segment: 404, gone" "$CODE $BODY" "^404 (process $K is gone|no process $K)"
if [ -e /dev/shm/mprof-$K ]; then
	ok "read-only: the dead process's segment is left where it is"
	rm -f /dev/shm/mprof-$K
else
	not_ok "read-only: the dead process's segment is left where it is"
fi
get ""
expect_eq "the server still answers" "$CODE" 200

# ---- another user's ---------------------------------------------------------
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null 2>&1; then
	MAINURL=$URL
	server nobody setpriv --reuid=65534 --regid=65534 --clear-groups
	get "heap?pid=$A"
	expect_eq "another user's process: 403 with the reason" "$CODE $BODY" \
		"403 process $A: /dev/shm/mprof-$A belongs to another user"
	get ""
	expect_match "index: another user's processes are not listed, only counted" "$CODE $BODY" \
		"[0-9]+ process(es)? of other users not listed"
	expect_eq "index: not a link to another user's process" "$(printf '%s' "$BODY" | grep -c "pid=$A'")" 0
	kill "$SPID"
	wait "$SPID" 2> /dev/null
	URL=$MAINURL
	SPID=$MAIN
else
	echo "ok - # SKIP another user's process: needs root and setpriv"
fi

# ---- starting and stopping -----------------------------------------------------
run_status "$MPROF" --serve "$PORT"
expect_eq "port in use: exit 2, one line" "$STATUS:$ERR" "2:mprof-tui: --serve $PORT: Address already in use"
run_status "$MPROF" --serve 70000
expect_eq "bad port: exit 2, one line" "$STATUS:$ERR" "2:mprof-tui: --serve: bad port '70000' in '70000' (0 to 65535)"
run_status "$MPROF" --serve no.such.host.invalid:80
expect_match "bad host: exit 2" "$STATUS:$ERR" "^2:mprof-tui: --serve no\.such\.host\.invalid:80: .+$"
expect_eq "bad host: one line" "$(printf '%s\n' "$ERR" | wc -l)" 1
run_status "$MPROF" --serve 0 file.pro
expect_eq "--serve with a file: exit 2" "$STATUS" 2
curl -s -o "$TMP/stop.body" -w '%{http_code}' --max-time 20 "${URL}heap?pid=$A&seconds=30" > "$TMP/stop.code" &
CURL=$!
sleep 1
kill -TERM "$SPID"
n=0
while kill -0 "$SPID" 2> /dev/null && [ $n -lt 100 ]; do n=$((n + 1)); sleep 0.05; done
wait "$SPID"
expect_eq "SIGTERM: the server exits 0 within 5 s" "$?:$(kill -0 "$SPID" 2> /dev/null && echo running)" "0:"
wait $CURL
expect_eq "SIGTERM: a request waiting on its window is answered 503" \
	"$(cat "$TMP/stop.code") $(cat "$TMP/stop.body")" "503 the server is stopping"
expect_eq "SIGTERM: said in one line" "$(cat "$TMP/main.serr")" "mprof-tui: stopped serving (Terminated)"
expect_eq "the target lived through it all" "$(kill -0 "$A" && echo alive)" alive
