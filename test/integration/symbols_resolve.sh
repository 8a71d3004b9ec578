#!/bin/sh
# Symbols: a program built here (-O2 -g) records its own allocations with
# backtrace() and writes a skynet-mprof v1 profile; every frame must resolve
# to what eu-addr2line -f -i -C says for pc-1 (inline levels included), and
# function, line and module granularity must carry the exact bytes.
. "$(dirname "$0")/../lib.sh"
DUMP=$TOP/${B:-build}/tools/sym_dump
P=$TOP/test/progs
if ! command -v eu-addr2line > /dev/null || ! command -v g++ > /dev/null; then
	echo "ok - # SKIP eu-addr2line or g++ missing"
	exit 0
fi
# A long folder, so the library's names are cut at 80 bytes after the
# "(lib_work+0x25)" part ($TMP is /tmp/mprof-test.XXXXXX).
LIBDIR=$TMP/libs-with-a-long-dir-name
mkdir -p "$LIBDIR" "$TMP/gone" "$TMP/elsewhere"
build() {
	gcc -O2 -g -fPIC -shared -o "$LIBDIR/libsymdl.so" "$P/sym_lib.c" &&
	g++ -O2 -g -c -o "$TMP/sym_cxx.o" "$P/sym_cxx.cpp" &&
	gcc -O2 -g -c -o "$TMP/sym_app.o" "$P/sym_app.c" &&
	g++ -o "$TMP/sym_app" "$TMP/sym_app.o" "$TMP/sym_cxx.o" -ldl
}
if ! build 2> "$TMP/build.err"; then
	not_ok "test programs build" "$(head -5 "$TMP/build.err")"
	exit 0
fi
ok "test programs build"
cd "$TMP" || exit 2
./sym_app out.pro "$LIBDIR/libsymdl.so"
expect_eq "sym_app writes its v1 profile" $? 0

# compare NAME PROFILE [sym_dump options]: every frame in the modules built
# here resolves as eu-addr2line -a -f -i -C says, for the module's file.
# (The system's libc is left out: its line table depends on the packages
# installed.)
compare() {
	name=$1 pro=$2
	shift 2
	"$DUMP" "$@" "$pro" > "$TMP/dump" || { not_ok "$name: sym_dump runs"; return; }
	: > "$TMP/want"
	: > "$TMP/got"
	: > "$TMP/alt"
	n=0
	for file in $(awk -F'\t' '($4 == "dwarf" || $4 == "elf") && $2 !~ /^\/(usr|lib)/ {print $7}' "$TMP/dump" | sort -u); do
		awk -F'\t' -v m="$file" '$7 == m && ($4 == "dwarf" || $4 == "elf")' "$TMP/dump" > "$TMP/rows"
		cut -f5 "$TMP/rows" >> "$TMP/got"
		cut -f3 "$TMP/rows" | xargs eu-addr2line -a -f -i -C -e "$file" | awk '
			/^0x[0-9a-f]+$/ { if (NR > 1) print rec; rec = ""; st = 0; next }
			st == 0 { f = $0; sub(/ inlined at .*/, "", f); st = 1; next }
			{ loc = $0; if (loc ~ /:[0-9]+:[0-9]+$/) sub(/:[0-9]+$/, "", loc)
			  rec = rec (rec == "" ? "" : " | ") f "@" loc; st = 0 }
			END { print rec }' >> "$TMP/want"
		# binutils' addr2line, the second opinion where eu-addr2line stops
		# a chain early (it gives one level for some inlined pcs).
		if command -v addr2line > /dev/null; then
			cut -f3 "$TMP/rows" | xargs addr2line -a -f -i -C -e "$file" | awk '
				/^0x[0-9a-f]+$/ { if (NR > 1) print rec; rec = ""; st = 0; next }
				st == 0 { f = $0; st = 1; next }
				{ loc = $0; sub(/ \(discriminator [0-9]+\)$/, "", loc)
				  rec = rec (rec == "" ? "" : " | ") f "@" loc; st = 0 }
				END { print rec }' >> "$TMP/alt"
		else
			cut -f3 "$TMP/rows" | sed 's/.*/-/' >> "$TMP/alt"
		fi
		n=$((n + $(wc -l < "$TMP/rows")))
	done
	# Padding between functions (only --text samples land there) is in no
	# function: both say "??" there, and eu-addr2line then guesses from the
	# line table; such rows are compared on their first level only.
	# A pc in a gap between the ranges of a nested inline instance (DWARF
	# puts it in the outer instance only) gets from eu-addr2line an extra
	# level repeating the outer function at the inner call's line ("X@a |
	# X@b | caller"); such rows are compared without the repeat. A function
	# gcc inlined into itself (a split part) is the mirror case: we give
	# both levels, eu-addr2line only the inner one. Where eu-addr2line
	# stops a chain early, binutils' addr2line giving our chain is enough.
	paste -d '\n' "$TMP/got" "$TMP/want" "$TMP/alt" | awk '
		function norep(r,   n, lv, d, pf, f, i) { n = split(r, lv, / \| /); d = lv[1]; pf = lv[1]; sub(/@.*/, "", pf)
			for (i = 2; i <= n; i++) { f = lv[i]; sub(/@.*/, "", f); if (f != pf) d = d " | " lv[i]; pf = f }
			return d }
		NR % 3 == 1 { g = $0; next }
		NR % 3 == 2 { w = $0; next }
		{ a = $0; if (g ~ /^\?\?@/ && w ~ /^\?\?@/) { sub(/ \| .*/, "", g); sub(/ \| .*/, "", w) }
		  if (g != w && (norep(w) == g || norep(g) == w || a == g)) w = g
		  print g > "'"$TMP/got2"'"; print w > "'"$TMP/want2"'" }'
	expect_file_eq "$name: $n frames resolve as eu-addr2line -f -i -C says for pc-1" "$TMP/got2" "$TMP/want2"
}

compare "debug info" out.pro
# A bigger binary full of inlining: 400 addresses over sym_dump's own .text.
t=$(readelf -SW "$DUMP" | awk '$2 == ".text" {print $4 ":" $6; exit}')
compare "400 addresses in sym_dump" "$DUMP:$t:400" --text
dump=$("$DUMP" out.pro)
expect_eq "every frame resolves from DWARF (but _start)" \
	"$(printf '%s\n' "$dump" | awk -F'\t' '$4 != "dwarf" {print $5}')" "_start@??:0"
expect_match "an always_inline helper two levels deep gives a 3-level chain" "$dump" \
	"	grow_buf@$P/sym_app.c:[0-9]+ \| append@$P/sym_app.c:[0-9]+ \| fill_table@"
expect_match "C++ template, demangled" "$dump" "	int\* store::make_array<int>\(unsigned long\)@$P/sym_cxx.cpp:"
expect_match "C++ method in a namespace, demangled" "$dump" "	store::Pool::grab\(unsigned long\)@"
expect_match "a static function of the dlopen'd library" "$dump" "	lib_inner@$P/sym_lib.c:"
cut=$(printf '%s\n' "$dump" | awk -F'\t' '$2 ~ /libsymdl/ && length($6) == 80' | wc -l)
expect_eq "the library's names were cut at 80 bytes and still resolve" "$cut" 3
expect_eq "nothing is missing" "$(printf '%s\n' "$dump" | grep -c '^missing')" 0

# Exact bytes per function (flat, cum) in use; total 856.
L() { grep -n "L:$1" "$P/$2" | cut -d: -f1; }
tsv() { "$MPROF" --top=flat --format=tsv "$@" out.pro | awk -F'\t' 'NR > 1 {print $1, $3, $5}'; }
row() { printf '%s\n' "$rows" | grep -Fx -- "$1" > /dev/null && ok "$2" || not_ok "$2" "no row: $1" "$(printf '%s\n' "$rows" | head -20)"; }
rows=$(tsv --granularity=function)
row "300 300 grow_buf" "function: the inlined helper is the leaf (grow_buf 300 B)"
row "0 300 append" "function: the inlined middle level (append) has cum 300"
row "0 300 fill_table" "function: fill_table cum 300"
row "240 240 new_node" "function: new_node 240 B flat"
row "0 240 make_nodes" "function: make_nodes cum 240"
row "100 100 store::Pool::grab(unsigned long)" "function: Pool::grab 100 B"
row "40 40 int* store::make_array<int>(unsigned long)" "function: make_array<int> 40 B"
row "56 56 double* store::make_array<double>(unsigned long)" "function: make_array<double> 56 B"
row "0 196 cxx_work" "function: cxx_work cum 196"
row "24 88 lib_work" "function: lib_work 24 flat, 88 cum"
row "64 64 lib_inner" "function: lib_inner 64 B"
row "32 32 plain_alloc" "function: plain_alloc 32 B"
row "0 856 main" "function: main holds all 856 B"
expect_eq "function: 12 leaf rows sum to 856" "$(printf '%s\n' "$rows" | awk '{s += $1} END {print s}')" 856
rows=$(tsv --granularity=line)
row "300 300 grow_buf sym_app.c:$(L grow_buf sym_app.c)" "line: grow_buf's line has 300 B"
row "0 300 append sym_app.c:$(L append sym_app.c)" "line: append's call of grow_buf, 300 B cum"
row "0 100 fill_table sym_app.c:$(L fill_a sym_app.c)" "line: first append call site 100 B"
row "0 100 fill_table sym_app.c:$(L fill_c sym_app.c)" "line: third append call site 100 B"
row "240 240 new_node sym_app.c:$(L new_node sym_app.c)" "line: new_node's line 240 B"
row "100 100 store::Pool::grab(unsigned long) sym_cxx.cpp:$(L grab sym_cxx.cpp)" "line: Pool::grab's line"
row "64 64 lib_inner sym_lib.c:$(L lib_inner sym_lib.c)" "line: lib_inner's line"
rows=$(tsv --granularity=module)
row "768 856 ./sym_app" "module: the program 768 B flat"
row "88 88 $LIBDIR/libsymdl.so" "module: the library 88 B"
rows=$(tsv --granularity=address)
expect_eq "address: one row per frame" "$(printf '%s\n' "$rows" | wc -l)" "$(printf '%s\n' "$dump" | wc -l)"
rows=$(tsv --no-symbols)
expect_match "--no-symbols keeps the recorded names" "$rows" "^240 240 \./sym_app\(\+0x[0-9a-f]+\) \[0x[0-9a-f]+\]$"
# pprof list: per source line, flat and cum.
lines=$("$DUMP" --lines "$P/sym_app.c" out.pro)
expect_match "list: grow_buf's line 300 flat 300 cum" "$lines" "^$(L grow_buf sym_app.c) 300 300$"
expect_match "list: append's line 0 flat 300 cum" "$lines" "^$(L append sym_app.c) 0 300$"
expect_match "list: a call site in fill_table 0/100" "$lines" "^$(L fill_b sym_app.c) 0 100$"

# No debug info: ELF symbols only (inline helpers vanish into callers).
cp sym_app nodbg_app && strip -g nodbg_app
./nodbg_app nodbg.pro "$LIBDIR/libsymdl.so"
compare "strip -g copy" nodbg.pro
expect_match "without debug info fill_table is the leaf, from .symtab" "$("$DUMP" nodbg.pro)" \
	"	\./nodbg_app	0x[0-9a-f]+	elf	fill_table@\?\?:0	"

# A missing module keeps its raw names and is reported once.
cp "$LIBDIR/libsymdl.so" gone/libsymgone.so
./sym_app gone.pro "$TMP/gone/libsymgone.so"
mv gone/libsymgone.so elsewhere/
run_status "$MPROF" --top=flat --format=tsv gone.pro
expect_eq "missing module: exit 0" "$STATUS" 0
expect_eq "missing module: reported once" "$ERR" \
	"mprof-tui: $TMP/gone/libsymgone.so: not found; its frames keep their recorded names"
expect_match "missing module: a static function keeps its raw name" "$OUT" \
	"^64	1	64	1	$TMP/gone/libsymgone.so\(\+0x[0-9a-f]+\) \[0x[0-9a-f]+\]$"
expect_match "missing module: an exported one is named from the recorded symbol" "$OUT" "	lib_work$"
run_status "$MPROF" --top=flat --format=tsv --search-path="$TMP/elsewhere" gone.pro
expect_eq "--search-path finds it by file name: nothing reported" "$ERR" ""
expect_match "--search-path: lib_inner resolves" "$OUT" "^64	1	64	1	lib_inner$"
mkdir -p root/$TMP/gone && cp elsewhere/libsymgone.so root/$TMP/gone/
run_status "$MPROF" --top=flat --format=tsv --root="$TMP/root" gone.pro
expect_match "--root finds the recorded path under DIR" "$OUT" "^64	1	64	1	lib_inner$"
compare "found by --search-path" gone.pro --search-path "$TMP/elsewhere"
