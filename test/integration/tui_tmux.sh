#!/bin/sh
# tui_tmux.sh - mprof-tui in a real terminal: tmux on an isolated server
# (-L), keys sent with send-keys, the screen read back with capture-pane -p.
# Screens are waited for with a bounded poll, never a fixed sleep.
. "$(dirname "$0")/../lib.sh"

. "$TOP/test/tmux.sh"
F=$DATA/test_mem.pro
# start W H [ENV...]: a fresh session with a plain sh in the tree's top.
start() { w=$1 h=$2; shift 2; tmux_start "$w" "$h" "$TOP" "$@"; }

# --- the main table, in use -------------------------------------------------
start 100 30
keys "'$MPROF' --no-symbols '$F'; echo EXIT=\$?" Enter
check "TUI opens on the main table" "Main table"
expect_match "header: file, in use bytes, total, granularity" "$(screen | sed -n 1p)" \
	"in use bytes +total 5\.17 KiB \(61 objects\) +granularity address +/"
expect_match "header marks the sort column" "$(screen | sed -n 3p)" "flat▼ +flat% +sum% +cum +cum% +objects +name"
expect_match "row 1: +0xb55d 2.81 KiB 54.4%, 31 objects" "$(screen | sed -n 4p)" \
	"^ +1 +2\.81 KiB +54\.4% +54\.4% +2\.81 KiB +54\.4% +31 skynet\.so\+0xb55d$"
expect_match "row 2: +0xb519 2.33 KiB 45.0%, 29 objects" "$(screen | sed -n 5p)" \
	"^ +2 +2\.33 KiB +45\.0% +99\.4% +2\.33 KiB +45\.0% +29 skynet\.so\+0xb519$"
expect_match "row 3: +0xc588 32 B" "$(screen | sed -n 6p)" "^ +3 +32 B +0\.6% +100\.0% +32 B .* skynet\+0xc588$"
expect_match "key bar on the last line" "$(screen | sed -n 30p)" "^F1Help EnterCallers sAlloc"
expect_match "status line: the selected row's whole name" "$(screen | sed -n 29p)" \
	"skynet\.so\(\+0xb55d\) \[0x7feead9e855d\]"

# --- s: alloc ----------------------------------------------------------------
keys s
check "s switches to alloc" "alloc bytes  total 11.6 KiB (221 objects)"
expect_match "alloc row 1: skynet_strdup 2.92 KiB, 63 objects" "$(screen | sed -n 4p)" \
	"^ +1 +2\.92 KiB +25\.3% +25\.3% +2\.92 KiB +25\.3% +63 .*skynet_strdup"
expect_match "alloc row 4: skynet_timeout 1.91 KiB, 61 objects" "$(screen | sed -n 7p)" \
	"^ +4 +1\.91 KiB +16\.5% .* +61 .*skynet_timeout"
expect_match "selection stayed on +0xb55d (now row 2)" "$(screen | sed -n 29p)" "\(\+0xb55d\)"
keys s
check "s switches back to in use" "in use bytes"
keys o
check "o switches to objects" "in use objects  total 61 (5.17 KiB bytes)"
expect_match "objects row 1: 31 of 61" "$(screen | sed -n 4p)" "^ +1 +31 +50\.8% .* skynet\.so\+0xb55d$"
keys o
check "o switches back to bytes" "in use bytes"

# --- sorting -----------------------------------------------------------------
keys C
check "C sorts by cum" "cum▼"
expect_match "after C row 1 has cum 100%" "$(screen | sed -n 4p)" "^ +1 +0 B +0\.0% +0\.0% +5\.17 KiB +100\.0% +61 "
expect_match "after C row 24 is a 32 B path" "$(screen | sed -n 27p)" "^ +24 +0 B .* +32 B +0\.6% +1 "
keys F
check "F sorts by flat" "flat▼"
expect_match "after F row 1 is +0xb55d again" "$(screen | sed -n 4p)" "^ +1 +2\.81 KiB .* skynet\.so\+0xb55d$"
keys '>' '>'
check "> > sorts by objects" "objects▼"
keys r
check "r reverses" "objects▲"
keys F

# --- Enter: callers / callees -------------------------------------------------
keys Home Enter
check "Enter opens callers/callees" "Callers/callees of ./skynet/luaclib/skynet.so(+0xb55d)"
c=$(line_of "callers (how much")
m=$(line_of "▶ skynet.so+0xb55d")
e=$(line_of "callees: none")
if [ -n "$c" ] && [ -n "$m" ] && [ -n "$e" ] && [ "$c" -lt "$m" ] && [ "$m" -lt "$e" ]; then
	ok "callers above the node, callees below"
else
	not_ok "callers above the node, callees below" "$(screen | head -10)"
fi
expect_match "the caller +0x19599 passes 2.81 KiB (100% of the node)" "$(screen | sed -n "$((c + 1))p")" \
	"^ +2\.81 KiB +54\.4% +100\.0% +31 +skynet\+0x19599$"
keys Enter
check "Enter on the caller re-centres on it" "Callers/callees of ./skynet/skynet(+0x19599)"
expect_match "its callees, sorted by bytes: +0xb55d first" "$(screen | sed -n "$(( $(line_of 'callees (cum') + 1 ))p")" \
	"^ +2\.81 KiB +54\.4% +54\.4% +31 +skynet\.so\+0xb55d$"
expect_match "then +0xb519" "$(screen | sed -n "$(( $(line_of 'callees (cum') + 2 ))p")" "^ +2\.33 KiB .* skynet\.so\+0xb519$"
keys Escape
check "Esc walks back one screen" "Callers/callees of ./skynet/luaclib/skynet.so(+0xb55d)"
keys BSpace
check "Backspace walks back to the table" "Main table"

# --- help ----------------------------------------------------------------------
keys '?'
check "? opens the help" "(q, Esc, ? or Enter: back)"
check "help lists s" "switch in use / alloc space"
check "help says what q does" "back from a sub-screen; quit from the main table"
keys q
check "q from help goes back" "Main table"

# --- focus and hide filters ------------------------------------------------------
keys /; keys -l luaclib; keys Enter
check "/ sets a focus regex (status)" "focus /luaclib/: 4 rows match"
expect_match "the header shows the focus" "$(screen | sed -n 2p)" "focus /luaclib/"
n=$(screen | sed -n '4,27p' | grep -cE ' (skynet\.so\+0x[0-9a-f]+|luaseri_pack\+0x81)$')
expect_eq "only the 4 matching rows are shown" "$(screen | sed -n '4,27p' | grep -c '^ *[0-9]')" "4"
expect_eq "every shown row matches (its whole name is in luaclib)" "$n" "4"
keys c
check "c clears the focus" "   24 "
keys /; keys -l 'so\+0xb5'; keys Enter
check "/ matches the short name a row shows too" "focus /so\+0xb5/: 2 rows match"
keys c
check "c clears the filters" "   24 "
keys h; keys -l '0xb5(5d|19)'; keys Enter
check "h hides frames by regex (header)" 'hide \0xb5(5d|19)\'
expect_match "hidden leaves: +0x19599 becomes the leaf of 5.14 KiB" "$(screen | sed -n 4p)" \
	"^ +1 +5\.14 KiB +99\.4% .* skynet\+0x19599$"
keys c
check "c clears the hide regex" "31 skynet.so+0xb55d"

# --- mouse (xterm X10 reports: button, column, line, each + 32) ---------------
mouse() { keys -l "$(printf '\033[M%s%b%b' "$1" "\\0$(printf %o $(($2 + 33)))" "\\0$(printf %o $(($3 + 33)))")"; }
mouse ' ' 10 5
mouse '#' 10 5
check "a click selects the row under it (+0xc588, line 6)" "./skynet/skynet(+0xc588) [0x556bb898d588]"
mouse a 10 5
check "the wheel scrolls down 3 rows" "./skynet/skynet(+0x19599) [0x556bb899a599]"
mouse '`' 10 5
check "the wheel scrolls up 3 rows" "./skynet/skynet(+0xc588) [0x556bb898d588]"

# --- call tree ------------------------------------------------------------------
keys t
check "t opens the call tree" "Call tree (top-down)"
expect_match "one root with everything" "$(screen | sed -n 4p)" "^ +5\.17 KiB +100\.0% +0 B +0\.0% ▸ libc\.so\.6\+0x891f5$"
keys '*'
check "* expands the heaviest path down to +0xb55d" "▾ skynet+0x19599"
expect_match "the selected leaf is +0xb55d" "$(screen | sed -n 29p)" "\(\+0xb55d\)"
keys Left Left
check "Left on a leaf goes to its parent, then collapses it" "▸ skynet+0x19599"

# --- q: back, then quit; the shell is usable ----------------------------------------
keys q
check "q from the tree goes back to the table" "Main table"
keys w
check "w asks where to write the profile" "write the profile (native) to [test_mem-native.pro]:"
keys -l "$TMP/w.pro"
keys Enter
check "w writes it" "wrote $TMP/w.pro (native, "
keys W
check "W asks for skynet v1" "write the profile (skynet v1) to [test_mem-v1.pro]:"
keys -l "  $TMP/v1.pro"
keys Enter
check "W writes skynet v1, the answer's leading spaces skipped" "wrote $TMP/v1.pro (skynet v1, "
keys q
check "q quits with status 0" "EXIT=0"
keys "echo ALIVE-\$((20+22))" Enter
check "the shell is usable after quitting" "ALIVE-42"

# --- resize and 80x24 -------------------------------------------------------------------
keys clear Enter "'$MPROF' --no-symbols '$F'; echo EXIT=\$?" Enter
check "opens again" "Main table"
tm resize-window -t t -x 80 -y 24
n=0
while [ "$n" -lt 50 ] && ! screen | sed -n 24p | grep -q '^F1Help'; do sleep 0.1; n=$((n + 1)); done
expect_match "SIGWINCH: redrawn at 80x24, key bar on line 24" "$(screen | sed -n 24p)" "^F1Help EnterCallers"
expect_match "80x24: row 19 is the last row" "$(screen | sed -n 22p)" "^ +19 "
# Unresolved frames fit: file + offset, which tells the rows apart; the
# status line keeps the whole recorded name.
expect_match "80x24: row 1 is skynet.so+0xb55d, whole" "$(screen | sed -n 4p)" "^ +1 +2\.81 KiB .* 31 skynet\.so\+0xb55d$"
so=$(screen | sed -n '4,22p' | grep -oE ' skynet\.so\+0x[0-9a-f]+$')
expect_eq "80x24: skynet.so+0x... rows, each offset once" \
	"$(echo "$so" | grep -c .) $(echo "$so" | sort | uniq -d | grep -c .)" "3 0"
expect_eq "80x24: every unresolved row whole (file+offset), 17 of the 19" \
	"$(screen | sed -n '4,22p' | grep -cE ' (skynet|skynet\.so|snlua\.so|libc\.so\.6)\+0x[0-9a-f]+$')" "17"
expect_match "80x24: the status line has the whole recorded name" "$(screen | sed -n 23p)" \
	"^\./skynet/luaclib/skynet\.so\(\+0xb55d\) \[0x7feead9e855d\]"
keys C-c
check "SIGINT restores the terminal (exit 130)" "EXIT=130"
keys "echo ALIVE-\$((40+2))" Enter
check "the shell is usable after SIGINT" "ALIVE-42"

keys clear Enter "'$MPROF' --no-symbols '$F'; echo EXIT=\$?" Enter
check "opens once more" "Main table"
pid=$(ps -o pid= --ppid "$(tm display -p -t t '#{pane_pid}')" | tr -d ' ')
[ -n "$pid" ] && kill -TERM "$pid"
check "SIGTERM restores the terminal (exit 143)" "EXIT=143"

# --- plain mprof-tui FILE at 80x24 (symbols on), NO_COLOR ------------------------------
start 80 24 NO_COLOR=1
keys "'$MPROF' '$F'; echo EXIT=\$?" Enter
check "mprof-tui FILE opens the UI at 80x24" "Main table"
if tm capture-pane -e -p -t t | grep -q "$(printf '\033')\[[0-9;]*[34][0-7]m"; then
	not_ok "NO_COLOR: no colour on the screen"
else
	ok "NO_COLOR: no colour on the screen"
fi
keys Q
check "Q quits" "EXIT=0"
start 80 24
keys "'$MPROF' '$F'; echo EXIT=\$?" Enter
check "opens with colours" "Main table"
if tm capture-pane -e -p -t t | grep -q "$(printf '\033')\[[0-9;]*[34][0-7]m"; then
	ok "without NO_COLOR the screen has colour"
else
	not_ok "without NO_COLOR the screen has colour"
fi
keys d
check "d says it is not available here" "not available in this mode"
keys q
check "quits" "EXIT=0"

# --- a profile with nothing in use, and one with no samples ------------------------------------
# v1: body_len, nfuncs, {len, name, id}, then {alloc objs/bytes, free objs/bytes, depth, pcs}.
printf '\000\000\000\052\000\000\000\001\001f\000\000\000\000\000\000\020\000\000\000\000\001\000\000\000\020\000\000\000\001\000\000\000\020\000\000\000\001\000\000\000\000\000\000\020\000' > "$TMP/freed.pro"
printf '\000\000\000\004\000\000\000\000' > "$TMP/empty.pro"
keys "'$MPROF' --no-symbols '$TMP/freed.pro'; echo EXIT=\$?" Enter
check "nothing in use: says so and points at s" "Nothing is in use in this profile (total 0): s shows alloc space."
keys s
check "nothing in use, s: the alloc row" "16 B 100.0% 100.0%      16 B 100.0%        1 f"
keys q
check "quits" "EXIT=0"
keys clear Enter "'$MPROF' --no-symbols '$TMP/empty.pro'; echo EXIT=\$?" Enter
check "no samples: says so" "This profile has no samples."
keys t Enter
check "no samples: the tree too, Enter has nothing to open" "no row selected"
keys Q
check "quits" "EXIT=0"

# --- stdout not a terminal: the batch report ------------------------------------------------
run_status "$MPROF" --no-symbols "$F"
expect_eq "stdout not a terminal: batch report, status 0" "$STATUS $(printf '%s\n' "$OUT" | sed -n 1p)" \
	"0 -----------inuse space ranking----------"
