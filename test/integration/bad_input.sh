#!/bin/sh
# Bad input: one line on stderr naming the file (and the offset where
# there is one), exit status 2, nothing on stdout.
. "$(dirname "$0")/../lib.sh"
f=$TMP/in.pro
bad() {  # name, file, regex for stderr
	run_status "$MPROF" --top=flat "$2"
	expect_eq "$1: exit status 2" "$STATUS" 2
	expect_match "$1: message" "$ERR" "$3"
	expect_eq "$1: one line on stderr" "$(printf '%s\n' "$ERR" | wc -l)" 1
	expect_eq "$1: no partial report" "$OUT" ""
}
: > "$f"
bad "empty file" "$f" "^mprof-tui: $f: offset 0: empty file$"
printf '\0\0\0' > "$f"
bad "3-byte file" "$f" "$f: offset 0:"
head -c 1000 /dev/urandom | tr '\0' '\1' > "$f"
bad "garbage" "$f" "$f: offset 0: not a profile format"
head -c 3000 "$DATA/test_mem.pro" > "$f"
bad "truncated v1" "$f" "$f: offset 0: length field says 5088 bytes, the file has 3000"
cp "$DATA/test_mem.pro" "$f"; printf 'xx' >> "$f"
bad "v1 with trailing bytes" "$f" "length field says 5088 bytes, the file has 5090"
# A sample whose depth runs past the end: patch the first sample's depth.
python3 - "$DATA/test_mem.pro" "$f" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
n = struct.unpack('>I', d[4:8])[0]
off = 8
for _ in range(n):
    off += 1 + d[off] + 8
d[off + 16:off + 20] = struct.pack('>I', 0x7fffffff)
open(sys.argv[2], 'wb').write(d)

PY
bad "depth past the end" "$f" "$f: offset [0-9]+: sample depth 2147483647 runs past the end"
# A name length that runs past the end: a 1-function table with len 200.
printf '\0\0\0\022\0\0\0\001\310abcdefghijklm' > "$f"
bad "name past the end" "$f" "$f: offset 8: function 0 \\(name of 200 bytes\\) runs past the end"
printf '\0\0\0\010\377\377\377\377\0\0\0\0' > "$f"
bad "2^32 functions claimed" "$f" "$f: offset 4: 4294967295 functions cannot fit"
printf '\0\0\0\040\0\0\0\0\0\0\0\1\0\0\0\1\0\0\0\0\0\0\0\0\0\0\0\1\0\0\0\0\0\0\0\1' > "$f"
run_status "$MPROF" --top=flat "$f"
expect_eq "pc outside the function table is accepted" "$STATUS" 0
expect_match "it shows as a raw address" "$OUT" "0x1$"

run_status "$MPROF" --top=flat "$TMP/does-not-exist.pro"
expect_eq "missing file: exit 2" "$STATUS" 2
expect_eq "missing file: the OS error" "$ERR" "mprof-tui: $TMP/does-not-exist.pro: No such file or directory"
run_status "$MPROF" --top=flat "$TMP"
expect_eq "directory: exit 2" "$STATUS" 2
run_status "$MPROF" --bogus "$DATA/test_mem.pro"
expect_eq "unknown option: exit 2" "$STATUS" 2
expect_match "unknown option: named, then usage" "$ERR" "unknown option '--bogus'"
expect_match "unknown option: the usage line" "$ERR" "^usage: mprof-tui"
expect_match "unknown option: where the options are" "$ERR" "'mprof-tui --help' lists every option"
expect_eq "unknown option: three lines, not the whole help" "$(printf '%s\n' "$ERR" | wc -l)" 3
run_status "$MPROF" --top=sideways "$DATA/test_mem.pro"
expect_eq "bad --top value: exit 2" "$STATUS" 2
run_status "$MPROF" --top=flat
expect_eq "no file: exit 2" "$STATUS" 2
run_status "$MPROF" --help
expect_eq "--help: exit 0" "$STATUS" 0
expect_match "--help lists --top" "$OUT" "--top=flat\\|cum"

# Writes that cannot happen: the path is named, nothing is left behind.
for kind in folded pprof native skynet; do
	run_status "$MPROF" --no-symbols --export=$kind -o "$TMP/no/such/dir/out" "$DATA/test_mem.pro"
	expect_eq "export $kind to a missing directory: exit 1" "$STATUS" 1
	expect_eq "export $kind: the reason, naming the file" "$ERR" "mprof-tui: $TMP/no/such/dir/out: No such file or directory"
done
run_status "$MPROF" --no-symbols --flamegraph="$TMP/no/dir/f.svg" "$DATA/test_mem.pro"
expect_eq "flame graph to a missing directory: exit 1" "$STATUS" 1
run_status "$MPROF" --no-symbols --export=folded -o "$TMP/ok.folded" "$DATA/test_mem.pro"
expect_eq "an export that works leaves no .tmp" "$(ls "$TMP" | grep -c '\.tmp$')" 0
