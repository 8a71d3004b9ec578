#!/bin/sh
# --diff across builds: a program rebuilt with code inserted above
# everything (every offset and line shifts), the same under another name,
# a fixed leak, a dropped function. Frames are matched by what they mean
# (symbol + offset, then source lines): the deltas are exact, no frame
# gets an invented address, and the user is told the builds differ.
. "$(dirname "$0")/../lib.sh"
command -v cc >/dev/null 2>&1 || { echo "ok - # SKIP no C compiler (cc)"; exit 0; }
SRC=$TOP/test/progs/rebuild_app.c
W=$TMP/w
mkdir -p "$W"
# A copy with a function inserted at the top: 7 lines, ~60 bytes of code.
{
	printf '#include <stdio.h>\n#include <string.h>\n'
	printf '__attribute__((noinline)) int unused_fn(int x)\n{\n\tchar b[64];\n'
	printf '\tsnprintf(b, sizeof b, "%%d", x);\n\treturn (int)strlen(b);\n}\n'
	cat "$SRC"
} > "$W/shifted.c"
cp "$SRC" "$W/orig.c"

# build SRC OUT [CFLAGS]: cc -O0 -g.
build() { cc -O0 -g $3 -o "$2" "$1" || not_ok "cc $1"; }
# run BIN N PRO: the program under the hook, handling N requests.
run() { MPROF_OUT=$3 LD_PRELOAD=$TOP/libmprof.so "$1" "$2" > /dev/null || not_ok "run $1"; }
# row OUT NAME: "flat_bytes flat_objects cum_bytes cum_objects" of NAME's row.
row() { printf '%s\n' "$1" | awk -F'\t' -v n="$2" '$5 == n { print $1, $2, $3, $4; f = 1 } END { if (!f) print "none" }'; }
# still OUT NAME: "still" when NAME's row is all zeros or absent (cancelled).
still() { r=$(row "$1" "$2"); case $r in none|"0 0 0 0") echo still ;; *) echo "$r" ;; esac; }
# insane OUT: rows whose |flat| exceeds |cum|, or named by a made-up address.
insane() {
	printf '%s\n' "$1" | awk -F'\t' 'NR > 1 { f = $1 < 0 ? -$1 : $1; c = $3 < 0 ? -$3 : $3
		if (f > c || $5 ~ /0xfff/) print }'
}

cd "$W" || exit 1
# ---- same path, rebuilt with every offset and line shifted -------------
build orig.c app
run ./app 1000 a.pro
build shifted.c app
run ./app 500 b.pro
run_status "$MPROF" --diff a.pro --top=flat --format=tsv b.pro
expect_eq "rebuild: exit 0" "$STATUS" 0
expect_eq "rebuild: make_label lost 500 leaks of 64 B, flat and cum" "$(row "$OUT" make_label)" \
	"-32000 -500 -32000 -500"
expect_eq "rebuild: handle_request's cum is the same 500 leaks, no flat" "$(row "$OUT" handle_request)" \
	"0 0 -32000 -500"
expect_eq "rebuild: steady (equal in both) changed nothing" "$(still "$OUT" steady)" still
expect_eq "rebuild: the inserted function is charged nothing" "$(row "$OUT" unused_fn)" "none"
expect_eq "rebuild: no flat above cum, no made-up address" "$(insane "$OUT")" ""
expect_match "rebuild: stderr says the builds differ" "$ERR" "different builds \\($W/app: build-id [0-9a-f]+ in BASE, [0-9a-f]+ in NEW\\)"
expect_eq "rebuild: every frame of BASE matched one of NEW" "$(printf '%s\n' "$ERR" | grep -c 'matched none')" 0
# Line granularity: NEW's lines (the shifted file), exact.
kept=$(grep -n 'store(make_label(64)); /\* KEPT' shifted.c | cut -d: -f1)
ml=$(grep -n 'char \*p = malloc(n);' shifted.c | cut -d: -f1)
run_status "$MPROF" --diff a.pro --top=flat --format=tsv --granularity=line b.pro
expect_eq "rebuild, lines: make_label's malloc line in NEW's source" "$(row "$OUT" "make_label shifted.c:$ml")" \
	"-32000 -500 -32000 -500"
expect_eq "rebuild, lines: the kept call's line in NEW's source" "$(row "$OUT" "handle_request shifted.c:$kept")" \
	"0 0 -32000 -500"
# Reversed (BASE is the build on disk, NEW's binary is gone): the rows
# are read through BASE's binary, so they keep their lines.
run_status "$MPROF" --diff b.pro --top=flat --format=tsv --granularity=line a.pro
expect_eq "reversed, lines: make_label read through BASE's binary" "$(row "$OUT" "make_label shifted.c:$ml")" \
	"32000 500 32000 500"
# The same build twice: nothing to say.
run ./app 700 c.pro
run_status "$MPROF" --diff b.pro --top=flat --format=tsv c.pro
expect_eq "same build: make_label +200 leaks" "$(row "$OUT" make_label)" "12800 200 12800 200"
expect_eq "same build: no word of builds" "$ERR" ""

# ---- renamed: app1 (original) against app2 (shifted), both on disk ------
build orig.c app1
build shifted.c app2
run ./app1 1000 r1.pro
run ./app2 500 r2.pro
run_status "$MPROF" --diff r1.pro --top=flat --format=tsv r2.pro
expect_eq "renamed: make_label -500 leaks" "$(row "$OUT" make_label)" "-32000 -500 -32000 -500"
expect_eq "renamed: handle_request cum only" "$(row "$OUT" handle_request)" "0 0 -32000 -500"
expect_eq "renamed: steady unchanged" "$(still "$OUT" steady)" still
expect_eq "renamed: no flat above cum, no made-up address" "$(insane "$OUT")" ""
expect_match "renamed: stderr names both programs" "$ERR" "BASE ran $W/app1, NEW $W/app2"
# BASE-only frames keep BASE's source when its binary is here.
build orig.c app3 -DNO_OLD
run ./app3 1000 r3.pro
old=$(grep -n 'store(malloc(100));' orig.c | cut -d: -f1)
run_status "$MPROF" --diff r1.pro --top=flat --format=tsv --granularity=line r3.pro
expect_eq "renamed, dropped: old_path keeps BASE's line" "$(row "$OUT" "old_path orig.c:$old")" "-1000 -10 -1000 -10"
run_status "$MPROF" --diff r1.pro --top=flat --format=tsv r3.pro
expect_eq "renamed, dropped: one main row for both programs" "$(row "$OUT" main)" "0 0 -1000 -10"
expect_eq "renamed, dropped: no row split by program" "$(printf '%s\n' "$OUT" | grep -c '(app[13])')" 0
run_status "$MPROF" --diff r1.pro --top=flat --format=tsv --granularity=address r2.pro
expect_eq "renamed, addresses: no row at a made-up address" "$(printf '%s\n' "$OUT" | grep -c 0xfff)" 0

# ---- the fix: the kept label freed (handle_request's code changed) ------
# pair A B N CFLAGS: A from the original build, B rebuilt with CFLAGS at
# the same path, N requests each; OUT is the diff B - A.
pair() {
	build orig.c app
	run ./app "$3" "$1"
	build orig.c app "$4"
	run ./app "$3" "$2"
	run_status "$MPROF" --diff "$1" --top=flat --format=tsv "$2"
}
pair f1.pro f2.pro 1000 -DFIXED
expect_eq "fixed: every leak of make_label gone" "$(row "$OUT" make_label)" "-64000 -1000 -64000 -1000"
expect_eq "fixed: handle_request's cum too" "$(row "$OUT" handle_request)" "0 0 -64000 -1000"
expect_eq "fixed: steady unchanged" "$(still "$OUT" steady)" still
run_status "$MPROF" --diff f1.pro --alloc --top=flat --format=tsv f2.pro
expect_eq "fixed, alloc: the same allocations in both" "$(still "$OUT" make_label)" still

# ---- a function dropped: BASE-only frames in BASE's module -------------
pair d1.pro d2.pro 100 -DNO_OLD
expect_eq "dropped: old_path's 10 x 100 B gone, by name" "$(row "$OUT" old_path)" "-1000 -10 -1000 -10"
expect_eq "dropped: main's cum is that" "$(row "$OUT" main)" "0 0 -1000 -10"
expect_eq "dropped: make_label unchanged" "$(still "$OUT" make_label)" still
expect_eq "dropped: no flat above cum, no made-up address" "$(insane "$OUT")" ""
expect_match "dropped: stderr says what matched nothing" "$ERR" "[0-9]+ frames? of BASE matched none of NEW \\(shown as in BASE\\)"

# ---- the TUI says so too: BASE NEW with d, and --diff -------------------
. "$TOP/test/tmux.sh"
tmux_start 160 30 "$W"
keys "$MPROF a.pro b.pro" Enter
check "tui: two files open on NEW" "make_label"
keys d
check "tui: d's title says the builds differ" "(other builds)"
check "tui: d's status says how frames matched" "different builds"
keys q
tmux_start 160 30 "$W"
keys "$MPROF --diff a.pro b.pro" Enter
check "tui --diff: the status says the builds differ" "BASE and NEW are different builds"
keys q

# ---- exports carry no made-up address either ----------------------------
cd "$W" || exit 1
run_status "$MPROF" --diff d1.pro --export=pprof -o d.pb.gz d2.pro
expect_eq "export: exit 0" "$STATUS" 0
run_status "$MPROF" --top=flat --format=tsv d.pb.gz
expect_eq "export: old_path read back, -10 x 100 B" "$(row "$OUT" old_path)" "-1000 -10 -1000 -10"
run_status "$MPROF" --top=flat --format=tsv --granularity=address --no-symbols d.pb.gz
expect_eq "export: no location at a made-up address" "$(printf '%s\n' "$OUT" | grep -c 0xfff)" 0
GO=$(command -v go || ls /usr/lib/go-*/bin/go 2>/dev/null | head -1)
if [ -z "$GO" ]; then
	echo "ok - # SKIP go tool pprof -raw: golang-go is not installed"
else
	raw=$(HOME=$TMP "$GO" tool pprof -raw d.pb.gz 2>&1)
	expect_match "export: go tool pprof reads old_path in a mapping of BASE's build" "$raw" "^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ old_path "
	expect_eq "export: go tool pprof sees no made-up address" "$(printf '%s\n' "$raw" | grep -c 0xfff)" 0
fi
