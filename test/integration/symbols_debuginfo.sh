#!/bin/sh
# Debug info that is not in the binary: a separate file found through
# .gnu_debuglink, and a debuginfod server on loopback (DEBUGINFOD_URLS).
# Line granularity needs DWARF, so file:line in the report proves it was found.
. "$(dirname "$0")/../lib.sh"
P=$TOP/test/progs
cd "$TMP" || exit 2
if ! { gcc -O2 -g -fPIC -shared -o libsymdl.so "$P/sym_lib.c" &&
	g++ -O2 -g -c -o sym_cxx.o "$P/sym_cxx.cpp" && gcc -O2 -g -c -o sym_app.o "$P/sym_app.c" &&
	g++ -Wl,--build-id -o sym_app sym_app.o sym_cxx.o -ldl; } 2> build.err; then
	not_ok "test program builds" "$(head -5 build.err)"
	exit 0
fi
objcopy --only-keep-debug sym_app sym_app.debug
strip -g sym_app
# libdwfl also tries NAME.debug beside the binary: keep it out of the way.
mkdir -p aside && mv sym_app.debug aside/
./sym_app out.pro "$TMP/libsymdl.so"
expect_eq "the stripped program writes its profile" $? 0
top() { "$MPROF" --top=flat --granularity=line --format=tsv out.pro 2> /dev/null | sed -n 2p; }
expect_match "stripped, no debug file: function names only (ELF symbols)" "$(top)" "^300	3	300	3	fill_table$"

# 1. .gnu_debuglink: the debug file beside the binary.
# (named .dbg, so that only the link, not the NAME.debug rule, finds it)
mkdir -p linked && cp aside/sym_app.debug linked/sym_app.dbg && cp sym_app linked/sym_app.orig
(cd linked && objcopy --add-gnu-debuglink=sym_app.dbg sym_app.orig sym_app)
cp linked/sym_app sym_app
cp linked/sym_app.dbg sym_app.dbg
expect_match "debuglink: grow_buf's line from the separate file" "$(top)" "^300	3	300	3	grow_buf sym_app\.c:[0-9]+$"
rm sym_app sym_app.dbg
cp linked/sym_app.orig sym_app

# 2. debuginfod on loopback serving the debug file by build-id.
if ! command -v debuginfod > /dev/null || ! command -v curl > /dev/null; then
	echo "ok - # SKIP debuginfod or curl not installed (make deps installs them)"
	exit 0
fi
mkdir -p served && mv aside/sym_app.debug served/
port=$((20000 + $$ % 20000))
debuginfod -p "$port" -F served -d "$TMP/db.sqlite" > debuginfod.log 2>&1 &
DPID=$!
trap 'kill $DPID 2> /dev/null; rm -rf "$TMP"' EXIT
n=0
while [ $n -lt 100 ] && ! grep -q "fts traversed" debuginfod.log; do sleep 0.1; n=$((n + 1)); done
if ! grep -q "fts traversed" debuginfod.log; then
	not_ok "debuginfod starts and scans" "$(tail -3 debuginfod.log)"
	exit 0
fi
ok "debuginfod starts and scans"
expect_match "no DEBUGINFOD_URLS: still no lines" "$(env -u DEBUGINFOD_URLS "$MPROF" --top=flat --granularity=line --format=tsv out.pro 2> /dev/null | sed -n 2p)" "	fill_table$"
got=$(DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$TMP/cache top)
expect_match "DEBUGINFOD_URLS: grow_buf's line from the server" "$got" "^300	3	300	3	grow_buf sym_app\.c:[0-9]+$"
expect_match "the server was asked for the build-id's debuginfo" "$(cat debuginfod.log)" "GET /buildid/[0-9a-f]+/debuginfo 200"
