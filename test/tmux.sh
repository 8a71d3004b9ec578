# test/tmux.sh - driving mprof-tui in a real terminal: a tmux server of the
# test's own (-L), keys sent with send-keys, the screen read back with
# capture-pane -p, screens waited for with a bounded poll (never a fixed
# sleep). Source after test/lib.sh; skips the test when tmux is missing.
if ! command -v tmux >/dev/null 2>&1; then
	echo "ok - # SKIP tmux is not installed"
	exit 0
fi
# A test with its own EXIT trap sets SOCK first and kills the server itself.
if [ -z "${SOCK:-}" ]; then
	SOCK=mprof-test-$$
	trap 'tmux_down; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"; rm -rf "$TMP"' EXIT
fi

tm() { tmux -u -L "$SOCK" -f /dev/null "$@"; }
# tmux_down: what runs in the panes gets SIGTERM and is waited for (10 s at
# most), then the server goes: a hang-up racing a sanitized program's exit
# (LeakSanitizer stopping its threads) can leave it spinning for ever.
tmux_down() {
	for _sh in $(tm list-panes -a -F '#{pane_pid}' 2> /dev/null); do
		pkill -TERM -P "$_sh" 2> /dev/null
	done
	_n=0
	while [ "$_n" -lt 100 ]; do
		_busy=0
		for _sh in $(tm list-panes -a -F '#{pane_pid}' 2> /dev/null); do
			pgrep -P "$_sh" > /dev/null && _busy=1
		done
		[ "$_busy" = 0 ] && break
		sleep 0.1
		_n=$((_n + 1))
	done
	tm kill-server > /dev/null 2>&1
}
screen() { tm capture-pane -p -t t; }
keys() { tm send-keys -t t "$@"; }
# screen_settled: a capture equal to the next one, 50 ms later: a live
# screen caught while it redraws shows new rows above old ones.
screen_settled() {
	_a=$(screen)
	while _b=$(screen_after_50ms) && [ "$_a" != "$_b" ]; do _a=$_b; done
	printf '%s\n' "$_a"
}
screen_after_50ms() { sleep 0.05; screen; }
# wait_for TEXT [tenths]: polls the pane until TEXT shows (default 30 s:
# sanitized builds on a busy machine are slow; a pass returns at once).
wait_for() { wait_grep -F "$1" "$2"; }
# wait_match RE [tenths]: the same for an extended regular expression.
wait_match() { wait_grep -E "$1" "$2"; }
wait_grep() {
	n=0
	while [ "$n" -lt "${3:-300}" ]; do
		screen | grep "$1" -q -- "$2" && return 0
		sleep 0.1
		n=$((n + 1))
	done
	return 1
}
# check NAME TEXT [tenths]: ok when TEXT shows up on the screen in time.
check() {
	if wait_for "$2" "$3"; then ok "$1"; else not_ok "$1" "no '$2' on the screen:" "$(screen | head -14)"; fi
}
# line_of TEXT: the first screen line (1-based) holding TEXT.
line_of() { screen | grep -n -F -- "$1" | head -1 | cut -d: -f1; }
# tmux_start W H DIR [ENV...]: a fresh session running a plain sh in DIR.
tmux_start() {
	w=$1 h=$2 dir=$3
	shift 3
	tm kill-session -t t >/dev/null 2>&1
	# exit-empty off: killing the last session must not take the server
	# down while the next new-session is already talking to it.
	tm new-session -d -s t -x "$w" -y "$h" \
		"env -i PATH=\"$PATH\" HOME=\"$TMP\" TMPDIR=\"$TMP\" TERM=screen-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 PS1='$ ' $* sh" \; \
		set-option -g exit-empty off
	wait_for '$' || not_ok "shell prompt in tmux" "$(screen)"
	keys "cd '$dir'" Enter
}
# rev_cols N: the columns of screen line N drawn in reverse video (read from
# capture-pane -e's attributes), space-separated.
rev_cols() {
	tm capture-pane -p -e -t t | sed -n "${1}p" | python3 -c '
import re, sys
line, col, rev, cols = sys.stdin.read().rstrip("\n"), 0, False, []
for tok in re.findall(r"\x1b\[[0-9;]*m|.", line):
    if tok.startswith("\x1b["):
        codes = tok[2:-1].split(";")
        if codes == [""] or "0" in codes or "27" in codes: rev = False
        if "7" in codes: rev = True
        continue
    if rev: cols.append(col)
    col += 1
print(" ".join(map(str, cols)))'
}
