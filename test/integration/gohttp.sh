#!/bin/sh
# gohttp.sh - Go services over HTTP, as the Go heap seed uses them: a real Go
# service (test/progs/go_heapsrv.go, built here with the std library only,
# GOCACHE and GOPATH in the test's directory, no network) serving
# net/http/pprof on 127.0.0.1 with a port of its own:
#  - --top=flat on /debug/pprof/heap (proto) and ?debug=1: flat per function
#    equal to go tool pprof -top's on the same URL (the service's GC is off,
#    so both read one profile), and main.holdAtStart's 100 blocks exactly;
#  - URLs wherever a file is accepted: --diff, --export, --callgraph,
#    ?seconds=N passed through, no temporary file;
#  - the runtime.MemStats trailer of a debug=1 profile read back by --info
#    field by field, and the gap spelled out;
#  - a 404, a dead port (connection refused), a server that never answers
#    (--timeout): one line with the URL and why, exit 2;
#  - --diff URL URL on a growing service, and --attach URL in tmux: the
#    title, the growing function, m, d, a failed refetch (the service
#    killed) on the status line with the last profile kept, w, q;
#  - HTTPS with the service's self-signed certificate: refused with the ways
#    out, trusted by SSL_CERT_FILE or CURL_CA_BUNDLE, or https+insecure://
#    as pprof spells it, each reading what http reads.
. "$(dirname "$0")/../lib.sh"
if "$MPROF" --top=flat http://127.0.0.1:1/ 2>&1 | grep -q 'built without libcurl'; then
	echo "ok - # SKIP mprof-tui was built without libcurl (make deps installs libcurl4-openssl-dev)"
	exit 0
fi
if ! command -v go > /dev/null 2>&1; then
	echo "ok - # SKIP go is not installed (make deps installs golang-go)"
	exit 0
fi
SOCK=mprof-test-$$
SRV_PIDS=""
trap 'for p in $SRV_PIDS; do kill "$p" 2> /dev/null; done; command -v tmux > /dev/null && tmux -L "$SOCK" kill-server > /dev/null 2>&1; rm -rf "$TMP"' EXIT

mkdir -p "$TMP/go"
cp test/progs/go_heapsrv.go "$TMP/go/main.go"
if ! (cd "$TMP/go" && env GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GO111MODULE=off GOFLAGS= GOPROXY=off \
	go build -o "$TMP/srv" main.go) > "$TMP/build.log" 2>&1; then
	not_ok "the Go service builds" "$(head -5 "$TMP/build.log")"
	exit 0
fi
ok "the Go service builds"

# srv_start [ARGS]: starts the service, PORT is its port (it prints it).
srv_start() {
	rm -f "$TMP/port"   # else the wait below may read the last service's port before the shell truncates it
	"$TMP/srv" "$@" > "$TMP/port" 2> "$TMP/srv.err" &
	SRV=$!
	SRV_PIDS="$SRV_PIDS $SRV"
	n=0
	while [ ! -s "$TMP/port" ] && [ "$n" -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
	PORT=$(cat "$TMP/port")
	expect_match "the service $* prints its port" "$PORT" '^[0-9]+$'
	[ -n "$PORT" ] || printf '#   %s\n' "$(cat "$TMP/srv.err")"
}
col_total() { awk -F'\t' -v c="$1" 'NR > 1 { t += $c } END { printf "%.0f\n", t }'; }
# go_flats IDX SRC...: "flat name" of go tool pprof -top's non-zero rows.
go_flats() {
	i=$1
	shift
	PPROF_TMPDIR="$TMP" HOME="$TMP" go tool pprof -top -nodefraction=0 -nodecount=100000 -unit=B -sample_index="$i" "$@" 2> /dev/null |
		awk '/^ *-?[0-9]/ { v = $1; sub(/B$/, "", v); n = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", n);
			sub(/ \(inline\)$/, "", n); if (v != 0) print v, n }' | sort
}
# our_flats COL [OPT] SRC: the same pairs from mprof-tui --top=flat (the
# names Go recorded: --no-symbols, as go tool pprof shows them).
our_flats() {
	c=$1
	shift
	"$MPROF" --top=flat --format=tsv --no-symbols "$@" | awk -F'\t' -v c="$c" 'NR > 1 { f[$5] += $c }
		END { for (k in f) if (f[k]) print f[k], k }' | sort
}

srv_start
U=http://127.0.0.1:$PORT

# ---- the stacks equal go tool pprof's on the live endpoint --------------------
# The service's GC is off after its start: its heap profile (as of the last
# GC) is the same for every fetch, so both tools read one profile.
for q in "" "?debug=1"; do
	for m in "inuse_space 1" "inuse_objects 2" "alloc_space 1 --alloc" "alloc_objects 2 --alloc"; do
		# shellcheck disable=SC2086
		set -- $m
		want=$(go_flats "$1" "$U/debug/pprof/heap$q")
		# shellcheck disable=SC2086
		got=$(our_flats "$2" $3 "$U/debug/pprof/heap$q")
		expect_eq "heap$q: $1 flat per function = go tool pprof -top's on the URL ($(printf '%s\n' "$want" | wc -l) rows)" "$got" "$want"
	done
done
# An independent count: main.holdAtStart made 100 blocks of 10000 B, 10240
# as Go's size classes round them, every one sampled (MemProfileRate 1).
for q in "" "?debug=1"; do
	row=$("$MPROF" --top=flat --format=tsv "$U/debug/pprof/heap$q" | awk -F'\t' '$5 == "main.holdAtStart" { print $1, $2, $3, $4 }')
	expect_eq "heap$q: main.holdAtStart holds its 100 blocks of 10240 B, flat and cumulative" "$row" "1024000 100 1024000 100"
	row=$("$MPROF" --top=flat --format=tsv "$U/debug/pprof/heap$q" | awk -F'\t' '$5 == "main.main" { print $3 - $1 }')
	expect_match "heap$q: main.main's cumulative holds them" "$row" "^10[0-9]{5}$"
done
# /frozen serves the same bytes each time: the proto and its debug=1 twin.
for ep in frozen frozen1; do
	want=$(go_flats inuse_space "$TMP/srv" "$U/$ep")
	expect_eq "$ep: inuse flat per function = go tool pprof's (with the binary)" "$(our_flats 1 "$U/$ep")" "$want"
done
curl -s -o "$TMP/frozen1.txt" "$U/frozen1"
expect_eq "the URL reads as the same bytes saved to a file" \
	"$("$MPROF" --top=flat --format=tsv "$U/frozen1")" "$("$MPROF" --top=flat --format=tsv "$TMP/frozen1.txt")"
# The live endpoint, proto by default, and ?seconds=N passed through (a delta).
run_status "$MPROF" --top=flat --format=tsv "$U/debug/pprof/heap"
expect_match "the live endpoint reads" "$OUT" "main\.holdAtStart"
t0=$(date +%s%N)
run_status "$MPROF" --top=flat --format=tsv --alloc "$U/debug/pprof/heap?seconds=1"
t1=$(date +%s%N)
expect_eq "?seconds=1 (a delta profile) reads: exit 0" "$STATUS" 0
# Go answers a delta after waiting its N seconds: the query reached it.
expect_eq "?seconds=1 passed through: the answer took 1 s or more" "$(( (t1 - t0) >= 1000000000 ))" 1
# --diff and --export take URLs too.
run_status "$MPROF" --top=flat --format=tsv --diff "$U/frozen" "$U/frozen1"
expect_eq "--diff of a proto URL and its debug=1 twin: exit 0, rows, nothing moved" \
	"$STATUS $(printf '%s\n' "$OUT" | awk -F'\t' 'NR > 1 { n++; if ($1 != 0 || $2 != 0) m++ } END { print (n > 0), m + 0 }')" "0 1 0"
run_status "$MPROF" --export=pprof -o "$TMP/e.pb.gz" "$U/frozen1"
expect_eq "--export of a URL: exit 0, the totals stay" "$STATUS $("$MPROF" --top=flat --format=tsv "$TMP/e.pb.gz" | col_total 1)" \
	"0 $("$MPROF" --top=flat --format=tsv "$U/frozen1" | col_total 1)"
run_status "$MPROF" --callgraph="$TMP/g.dot" "$U/frozen"
expect_eq "--callgraph of a URL: exit 0, main.holdAtStart drawn" "$STATUS $(grep -q 'main.holdAtStart' "$TMP/g.dot" && echo drawn)" "0 drawn"
expect_eq "no temporary file is left" "$(ls "$TMP" | grep -c '^mprof')" 0

# ---- runtime.MemStats read back ------------------------------------------------
info=$("$MPROF" --info "$U/frozen1")
for f in HeapAlloc HeapSys HeapIdle HeapInuse HeapReleased Sys GCSys NumGC NextGC TotalAlloc; do
	want=$(sed -n "s/^# $f = \([0-9]*\).*/\1/p" "$TMP/frozen1.txt")
	got=$(printf '%s\n' "$info" | sed -n "s/.*($f) *\([0-9]*\).*/\1/p")
	expect_eq "MemStats $f read back ($want)" "$got" "$want"
done
want=$(sed -n 's/^# Stack = \([0-9]*\) \/ \([0-9]*\).*/\1 \2/p' "$TMP/frozen1.txt")
got="$(printf '%s\n' "$info" | sed -n 's/.*(Stack) *\([0-9]*\).*/\1/p') $(printf '%s\n' "$info" | sed -n 's/.*(Stack sys) *\([0-9]*\).*/\1/p')"
expect_eq "MemStats Stack in use / held read back ($want)" "$got" "$want"
expect_match "--info spells out the gap" "$info" "^The gap: the sampled heap is .* the process holds .* from the system \(Sys\)"
expect_eq "a proto profile has no MemStats section" "$("$MPROF" --info "$U/frozen" | grep -c 'MemStats')" 0

# ---- errors: one line with the URL and why, exit 2 ------------------------
run_status "$MPROF" --top=flat "$U/nope"
expect_eq "404: exit 2" "$STATUS" 2
expect_eq "404: one line" "$ERR" "mprof-tui: $U/nope: HTTP 404: 404 page not found"
expect_eq "404: no report" "$OUT" ""
# A port nobody listens on: a service that was there and is gone.
"$TMP/srv" > "$TMP/port2" 2> /dev/null &
DEAD=$!
n=0
while [ ! -s "$TMP/port2" ] && [ "$n" -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
kill "$DEAD"
wait "$DEAD" 2> /dev/null
DP=$(cat "$TMP/port2")
run_status "$MPROF" --top=flat "http://127.0.0.1:$DP/debug/pprof/heap"
expect_eq "dead URL: exit 2" "$STATUS" 2
expect_match "dead URL: the URL and connection refused" "$ERR" \
	"^mprof-tui: http://127\.0\.0\.1:$DP/debug/pprof/heap: .*\(Connection refused\)$"
expect_eq "dead URL: one line" "$(printf '%s\n' "$ERR" | wc -l)" 1
run_status "$MPROF" --attach "http://127.0.0.1:$DP/"
expect_eq "--attach of a dead URL: exit 2" "$STATUS" 2
expect_match "--attach of a dead URL: said" "$ERR" "Connection refused"
# A server that accepts and never answers: --timeout ends the wait.
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(5)
print(s.getsockname()[1], flush=True)
c = [s.accept() for _ in range(2)]
time.sleep(60)' > "$TMP/port3" &
SRV_PIDS="$SRV_PIDS $!"
n=0
while [ ! -s "$TMP/port3" ] && [ "$n" -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
t0=$(date +%s)
run_status "$MPROF" --timeout 1 --top=flat "http://127.0.0.1:$(cat "$TMP/port3")/debug/pprof/heap"
t1=$(date +%s)
expect_eq "--timeout 1 on a silent server: exit 2" "$STATUS" 2
expect_match "--timeout: said with the URL" "$ERR" "^mprof-tui: http://127\.0\.0\.1:[0-9]+/debug/pprof/heap: no whole answer within 1 s \(--timeout\)"
expect_eq "--timeout: one line" "$(printf '%s\n' "$ERR" | wc -l)" 1
expect_match "--timeout 1 ends the wait in time ($((t1 - t0)) s)" "$((t1 - t0))" "^[0-3]$"
run_status "$MPROF" --timeout 0 --top=flat "$U/frozen"
expect_eq "--timeout 0: a usage error" "$STATUS" 2

# ---- HTTPS: the service's own self-signed certificate -------------------------
srv_start -tls "$TMP/cert.pem"
S=https://127.0.0.1:$PORT
# An unknown CA is refused, with the two ways out named.
run_status env -u CURL_CA_BUNDLE -u SSL_CERT_FILE -u SSL_CERT_DIR "$MPROF" --top=flat "$S/frozen"
expect_eq "https, CA not trusted: exit 2" "$STATUS" 2
expect_match "https, CA not trusted: the URL, the certificate and the ways out" "$ERR" \
	"^mprof-tui: $S/frozen: .*certificate.* \(trust its CA with SSL_CERT_FILE=FILE, or skip the check with https\+insecure://\)$"
expect_eq "https, CA not trusted: one line, no report" "$(printf '%s\n' "$ERR" | wc -l) $OUT" "1 "
# Trusted through SSL_CERT_FILE or CURL_CA_BUNDLE (as curl and Go read them,
# the machine's own unset), and https+insecure:// as pprof spells it: each
# reads what go tool pprof reads on the same service.
want=$(go_flats inuse_space "$TMP/srv" "https+insecure://127.0.0.1:$PORT/frozen")
expect_match "go tool pprof reads the https service" "$want" "main\.holdAtStart"
notrust() { unset CURL_CA_BUNDLE SSL_CERT_FILE SSL_CERT_DIR; }
expect_eq "https with SSL_CERT_FILE: flat per function = go tool pprof's" \
	"$(notrust; SSL_CERT_FILE="$TMP/cert.pem"; export SSL_CERT_FILE; our_flats 1 "$S/frozen")" "$want"
expect_eq "https with CURL_CA_BUNDLE: the same" \
	"$(notrust; CURL_CA_BUNDLE="$TMP/cert.pem"; export CURL_CA_BUNDLE; our_flats 1 "$S/frozen")" "$want"
expect_eq "https+insecure://: the same, no certificate check" \
	"$(notrust; our_flats 1 "https+insecure://127.0.0.1:$PORT/frozen")" "$want"
run_status env -u CURL_CA_BUNDLE SSL_CERT_FILE="$TMP/cert.pem" "$MPROF" --info "$S/"
expect_eq "https://HOST:PORT/ asks for /debug/pprof/heap: exit 0" "$STATUS" 0
kill "$SRV"

# ---- live over HTTP in tmux ----------------------------------------------------
. "$(dirname "$0")/../tmux.sh"
srv_start -grow
G=http://127.0.0.1:$PORT
# --diff URL URL: the start (/frozen) against now, 64 KiB blocks grown.
sleep 1
run_status "$MPROF" --top=flat --format=tsv --no-symbols --diff "$G/frozen" "$G/debug/pprof/heap"
expect_eq "--diff of two URLs: exit 0" "$STATUS" 0
row=$(printf '%s\n' "$OUT" | awk -F'\t' '$5 == "main.growSlowly" { print $1 % 65536, ($1 >= 65536 * 5), $2 * 65536 == $1 }')
expect_eq "--diff of two URLs: main.growSlowly grew by whole 64 KiB blocks, 5 or more" "$row" "0 1 1"
expect_eq "--diff of two URLs: main.holdAtStart did not move" \
	"$(printf '%s\n' "$OUT" | awk -F'\t' '$5 == "main.holdAtStart" { print $1 }')" ""
tmux_start 200 30 "$TMP"
keys "'$MPROF' --attach $G/debug/pprof/heap?debug=1 --interval 300; echo EXIT=\$?" Enter
check "--attach URL: the table opens" "Main table"
check "--attach URL: the title says it follows over http" "http following"
check "--attach URL: the growing function shows" "main.growSlowly"
check "--attach URL: the MemStats line is in the title" "Go: in use"
check "--attach URL: the strip's RSS is not known, not 0 B" "rss -  "
check "--attach URL: the RSS row says why" "not known: a profile over HTTP carries no process RSS"
keys m
check "m takes snapshot #1" "snapshot #1 at"
sleep 1
keys m
check "m takes snapshot #2" "snapshot #2 at"
keys d
check "d asks which two" "diff FROM TO, snapshot numbers or now [1 2]:"
keys Enter
check "the diff of #1 and #2 opens" "DIFF #1 -> #2"
row=$(screen | grep -E '^ +1 ' | head -1)
expect_match "main.growSlowly is the top row of the growth, whole 64 KiB blocks" "$row" \
	"^ +1 +\+[0-9]+ KiB .* main\.growSlowly"
keys d
check "d closes the diff" "diff closed"
# The service goes away: the status line says so, the last profile stays.
kill "$SRV"
check "a failed refetch is on the status line" "refetch failed"
check "the title says the fetch failed" "FETCH FAILED"
expect_match "the last good profile stays" "$(screen)" "main\.growSlowly"
keys w
check "w asks where to write" "write now (native) to"
keys Enter
check "w writes the profile" "wrote "
keys q
check "q quits" "EXIT=0"
