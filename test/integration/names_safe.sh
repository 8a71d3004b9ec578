#!/bin/sh
# Names from a profile are input from anywhere: a function, module or file
# name holding ESC sequences or other control bytes is shown escaped
# (\x1b) in every report, warning and screen, never sent to the terminal.
. "$(dirname "$0")/../lib.sh"
P=$TMP/evil.pb.gz
python3 "$TOP/test/tools/evil_pprof.py" "$P" || not_ok "build the hostile pprof file"
EVIL='evil\x1b]0;PWNED\x07fn'
RED='red\x1b[31mfn'
# raw FILE: the control bytes (ESC, BEL, CSI as U+009B) found in FILE.
raw() { od -An -c "$1" | grep -c -e '033' -e '\\a' -e '302 233'; }
for mode in "--top=flat" "--top=cum" "--top=flat --format=tsv" "--top=cum --alloc --format=tsv" "--info" \
	"--top=flat --granularity=module" "--top=flat --granularity=line"; do
	# shellcheck disable=SC2086
	"$MPROF" $mode "$P" > "$TMP/out" 2> "$TMP/err"
	expect_eq "$mode: exit 0" "$?" 0
	expect_eq "$mode: no control byte on stdout" "$(raw "$TMP/out")" 0
	expect_eq "$mode: no control byte on stderr" "$(raw "$TMP/err")" 0
done
"$MPROF" --top=flat --format=tsv "$P" > "$TMP/out" 2> "$TMP/err"
expect_eq "tsv: the evil function's row, escaped" "$(F="$EVIL" awk -F '\t' '$5 == ENVIRON["F"] { print $1, $2 }' "$TMP/out")" "2048 2"
expect_eq "tsv: the coloured one's row, escaped" "$(F="$RED" awk -F '\t' '$5 == ENVIRON["F"] { print $1, $2 }' "$TMP/out")" "512 1"
expect_eq "module warning: the module path escaped" "$(cat "$TMP/err")" \
	'mprof-tui: /lib/ev\x1b[2Jil.so: not found; its frames keep their recorded names'
"$MPROF" --info "$P" > "$TMP/out" 2>&1
expect_eq "--info: the names table escaped" "$(sed -n 2,3p "$TMP/out" | tr '\n' ' ')" "$EVIL $RED "
"$MPROF" --top=flat --granularity=module --format=tsv "$P" > "$TMP/out" 2> /dev/null
expect_eq "module granularity: the module's row escaped" "$(cut -f1,5 "$TMP/out" | sed -n 2p)" \
	"$(printf '2560\t/lib/ev\\x1b[2Jil.so')"
# A skynet v1 dump whose backtrace_symbols names hold them too.
python3 - "$TMP/evil.pro" <<'PY'
import struct, sys
names = [(b'./app(evil\x1b[41m+0x10) [0x401010]', 0x401010), (b'./app(main+0x20) [0x401020]', 0x401020)]
body = struct.pack('>I', len(names))
for n, a in names:
    body += bytes([len(n)]) + n + struct.pack('>Q', a)
body += struct.pack('>IIIII', 3, 300, 0, 0, 2) + struct.pack('>QQ', 0x401010, 0x401020)
open(sys.argv[1], 'wb').write(struct.pack('>I', len(body)) + body)
PY
"$MPROF" --no-symbols --top=flat --format=tsv "$TMP/evil.pro" > "$TMP/out" 2> "$TMP/err"
expect_eq "v1 dump: no control byte in the report" "$(raw "$TMP/out") $(raw "$TMP/err")" "0 0"
expect_eq "v1 dump: the name escaped, its numbers kept" "$(sed -n 2p "$TMP/out")" \
	"$(printf '300\t3\t300\t3\t./app(evil\\x1b[41m+0x10) [0x401010]')"
# The screens: the rows and the status line show the escapes as text.
. "$TOP/test/tmux.sh"
tmux_start 120 30 "$TOP"
keys "'$MPROF' '$P'; echo EXIT=\$?" Enter
check "TUI: the evil function's row shows its escapes" "$EVIL"
check "TUI: the coloured one too" "$RED"
check "TUI: the module warning in the status line" 'ev\x1b[2Jil.so (not found)'
keys q
check "TUI: quits" "EXIT=0"
