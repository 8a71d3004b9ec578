#!/bin/sh
# module_paths.sh - a library dlopen'ed by a relative path (skynet's
# ./luaclib/skynet.so) is recorded by its absolute path, in the dump and in
# the live segment, so mprof-tui run from any other directory finds the
# file and names its functions.
. "$(dirname "$0")/../lib.sh"

hook_prog dl "$TOP/test/progs/hook_dlopen.c"
mkdir -p "$TMP/app/sub" "$TMP/elsewhere"
cc -g -O1 -fno-omit-frame-pointer -shared -fPIC -o "$TMP/app/sub/librel.so" "$TOP/test/progs/rel_lib.c" ||
	{ not_ok "build librel.so"; exit 0; }
# rel_leak NAME FILE: the library's static function is named, with its leak.
rel_leak() {
	expect_eq "$1" "$("$MPROF" --top=flat --format=tsv "$2" | awk -F '\t' '$5 == "rel_inner" { print $1, $2 }')" "333 3"
}
(cd "$TMP/app" && MPROF_OUT="$TMP/rel.pro" LD_PRELOAD="$HOOK" "$TMP/dl" ./sub/librel.so > /dev/null)
expect_eq "the program ran" "$?" 0
cd "$TMP/elsewhere" || exit 1
expect_match "the dump records the library's absolute path" "$("$MPROF" --info "$TMP/rel.pro" | grep librel)" \
	"$TMP/app/sub/librel\.so"
rel_leak "read from another directory: the static function is named, with its leak" "$TMP/rel.pro"
expect_match "... and its source line (from the file's debug info)" \
	"$("$MPROF" --top=flat --granularity=line "$TMP/rel.pro" | grep rel_inner)" "rel_lib\.c:[0-9]+"
expect_eq "no module was not found" "$("$MPROF" --top=flat "$TMP/rel.pro" 2>&1 >/dev/null | grep -c 'not found')" 0

# Started as "ld.so --preload HOOK ./prog", /proc/self/exe is ld.so: the main
# program is recorded by its own file, its functions named.
LDSO=$(readelf -l "$TMP/dl" 2> /dev/null | sed -n 's/.*program interpreter: \(.*\)]$/\1/p')
if [ -x "$LDSO" ]; then
	(cd "$TMP/app" && MPROF_OUT="$TMP/ldso.pro" "$LDSO" --preload "$HOOK" "$TMP/dl" ./sub/librel.so > /dev/null)
	expect_eq "started by ld.so: the program ran" "$?" 0
	expect_match "started by ld.so: the dump records the program's own path" \
		"$("$MPROF" --info "$TMP/ldso.pro" | grep -c "^$TMP/dl(")" "^[1-9]"
	expect_eq "started by ld.so: the program's functions are named, not ld.so+0x..." \
		"$("$MPROF" --top=flat --format=tsv "$TMP/ldso.pro" 2>&1 | grep -c 'ld-linux[^	]*+0x')" 0
	rel_leak "started by ld.so: the library's leak as before" "$TMP/ldso.pro"
else
	echo "ok - # SKIP started by ld.so: readelf -l names no program interpreter"
fi
exit 0
