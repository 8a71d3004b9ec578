#!/bin/sh
# tui_sample.sh - the live screen of a sampled process says so: ESTIMATES
# with the rate in the title, and "sampling off" once --sample-rate=off is
# taken (a real process under the hook, the real TUI in tmux).
. "$(dirname "$0")/../lib.sh"
HOOK=$TOP/libmprof.so
SOCK=mprof-sample-$$
WPID=
cleanup() {
	tmux_down
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
	exec 3>&-
	[ -n "$WPID" ] && kill -KILL "$WPID" 2> /dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
. "$TOP/test/tmux.sh"
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMP/sk" "$TOP/test/progs/sample_known.c" || { not_ok "build sample_known"; exit 0; }
mkfifo "$TMP/in"
LD_PRELOAD=$HOOK MPROF_SAMPLE=65536 "$TMP/sk" wait < "$TMP/in" > "$TMP/w.out" 2>&1 &
WPID=$!
exec 3> "$TMP/in"
n=0
while [ ! -e "/dev/shm/mprof-$WPID" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
echo r >&3
tmux_start 200 30 "$TMP"
keys "'$MPROF' --attach $WPID --interval 100" Enter
check "live title: ESTIMATES with the rate" "ESTIMATES (1 sample per 64 KiB)"
"$MPROF" --sample-rate=off "$WPID" > /dev/null
echo r >&3
check "live title: sampling off, the rate it had" "sampling off (new allocations not recorded; earlier ones at 1 per 64 KiB), rate changed 1 time"
keys q
echo q >&3
