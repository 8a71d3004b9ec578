#!/bin/sh
# deep_stacks.sh - whole stacks: the default depth keeps main under a
# 200-frame recursion; a stack still cut at MPROF_DEPTH ends in a
# "[truncated]" root in every reader (native and v1 dumps, the live
# segment, recordings) and is counted in --info and on the TUI's title.
. "$(dirname "$0")/../lib.sh"
hook_prog deep "$TOP/test/progs/deep_stack.c"
DEEP=$TMP/deep
TRUNC=0xfffffffffffff003

# row FILE NAME [OPTS...]: "cum_bytes cum_objects" of the function row NAME.
row() {
	f=$1 n=$2
	shift 2
	"$MPROF" --top=cum --format=tsv "$@" "$f" | awk -F '\t' -v n="$n" '$5 == n { b = $3; o = $4 } END { print b + 0, o + 0 }'
}
# root FILE: the outermost address of every stack in --info, once each.
root() { "$MPROF" --info "$1" | awk -F '\t' '/ -> / { split($5, a, " -> "); print a[1] }' | sort -u; }
# depth FILE: the depths of the stacks in --info, once each.
depth() { "$MPROF" --info "$1" | awk -F '\t' '/ -> / { print split($5, a, " -> ") }' | sort -u; }
# cut FILE: the count --info gives of stacks cut at the depth limit.
cut_count() { "$MPROF" --info "$1" | sed -n 's/^TruncatedStacks:\t\([0-9]*\) .*/\1/p'; }

# A 200-frame recursion under the default depth: main holds the leak.
MPROF_OUT=$TMP/d200.pro LD_PRELOAD=$HOOK "$DEEP" 200
expect_eq "deep stacks: 200 frames, default depth: main holds the leak" "$(row "$TMP/d200.pro" main)" "3000 1"
expect_eq "deep stacks: 200 frames, default depth: no [truncated] root" "$(row "$TMP/d200.pro" '[truncated]')" "0 0"
expect_eq "deep stacks: 200 frames, default depth: --info counts no cut stack" "$(cut_count "$TMP/d200.pro")" ""

# 300 frames at MPROF_DEPTH=256: 256 frames kept and a [truncated] root.
MPROF_DEPTH=256 MPROF_OUT=$TMP/d300.pro LD_PRELOAD=$HOOK "$DEEP" 300
expect_eq "deep stacks: 300 frames at depth 256: [truncated] holds the leak" "$(row "$TMP/d300.pro" '[truncated]')" "3000 1"
expect_eq "deep stacks: 300 frames at depth 256: main is cut off" "$(row "$TMP/d300.pro" main)" "0 0"
expect_eq "deep stacks: 300 frames at depth 256: [truncated] is the root" "$(root "$TMP/d300.pro")" "$TRUNC"
expect_eq "deep stacks: 300 frames at depth 256: 256 frames and the root" "$(depth "$TMP/d300.pro")" 257
expect_eq "deep stacks: 300 frames at depth 256: --info counts one cut stack" "$(cut_count "$TMP/d300.pro")" 1
expect_eq "deep stacks: --top=flat lists [truncated] with its cum" \
	"$("$MPROF" --top=flat --format=tsv "$TMP/d300.pro" | awk -F '\t' '$5 == "[truncated]" { print $1, $3 }')" "0 3000"
expect_eq "deep stacks: module granularity names it too" "$(row "$TMP/d300.pro" '[truncated]' --granularity=module)" "3000 1"

# The edge: a stack exactly MPROF_DEPTH deep is whole; one frame less is cut.
MPROF_OUT=$TMP/d20.pro LD_PRELOAD=$HOOK "$DEEP" 20
full=$(depth "$TMP/d20.pro")
expect_match "deep stacks: 20 frames: one stack of about 25 frames ($full)" "$full" '^2[0-9]$'
MPROF_DEPTH=$full MPROF_OUT=$TMP/dfull.pro LD_PRELOAD=$HOOK "$DEEP" 20
expect_eq "deep stacks: MPROF_DEPTH = the stack's depth: not cut" "$(depth "$TMP/dfull.pro") $(root "$TMP/dfull.pro" | grep -c "$TRUNC")" "$full 0"
MPROF_DEPTH=$((full - 1)) MPROF_OUT=$TMP/dless.pro LD_PRELOAD=$HOOK "$DEEP" 20
expect_eq "deep stacks: MPROF_DEPTH one less: cut, root [truncated]" "$(depth "$TMP/dless.pro") $(root "$TMP/dless.pro")" "$full $TRUNC"

# skynet v1: the root is a function named "[truncated]" (skynet-mprof prints it as any name).
MPROF_FORMAT=skynet MPROF_DEPTH=10 MPROF_OUT=$TMP/v1.pro LD_PRELOAD=$HOOK "$DEEP" 20
expect_eq "deep stacks: v1 dump names the root [truncated]" "$("$MPROF" --info "$TMP/v1.pro" | grep -c '^\[truncated\]$')" 1
expect_eq "deep stacks: v1 dump: [truncated] holds the leak" "$(row "$TMP/v1.pro" '[truncated]')" "3000 1"

# The live segment (a snapshot) and a recording.
MPROF_DEPTH=10 LD_PRELOAD=$HOOK "$DEEP" 20 "$TMP/go" > "$TMP/pid" &
bg=$!
pid=$(pid_from "$TMP/pid")
[ -n "$pid" ] || not_ok "deep stacks: the waiting program did not start"
run_status "$MPROF" --snapshot "$pid" -o "$TMP/snap.pro"
touch "$TMP/go"
wait "$bg"
expect_eq "deep stacks: live segment: [truncated] holds the leak" "$(row "$TMP/snap.pro" '[truncated]')" "3000 1"
expect_eq "deep stacks: live segment: --info counts it" "$(cut_count "$TMP/snap.pro")" 1
MPROF_DEPTH=10 MPROF_RECORD=$TMP/rec LD_PRELOAD=$HOOK "$DEEP" 20
expect_eq "deep stacks: recording: [truncated] holds the leak" "$(row "$TMP/rec" '[truncated]' 2> /dev/null)" "3000 1"
expect_match "deep stacks: recording: --info counts it" "$("$MPROF" --info "$TMP/rec")" '^stacks cut at the depth limit: 1 '

# python3 (its interpreter's C stacks are deep): _start is the root of everything.
if command -v python3 > /dev/null 2>&1; then
	cat > "$TMP/deep.py" << 'PY'
def dive(n):
    if n == 0:
        return [bytearray(100) for _ in range(2000)]
    r = dive(n - 1)
    return r
keep = [dive(60) for _ in range(5)]
PY
	MPROF_OUT=$TMP/py.pro LD_PRELOAD=$HOOK python3 "$TMP/deep.py"
	total=$("$MPROF" --top=flat --format=tsv --alloc "$TMP/py.pro" | awk -F '\t' 'NR > 1 { b += $1 } END { print b + 0 }')
	expect_eq "deep stacks: python3: _start holds 100 % of the allocations" "$(row "$TMP/py.pro" _start --alloc | cut -d' ' -f1)" "$total"
	expect_eq "deep stacks: python3: no stack cut" "$(cut_count "$TMP/py.pro")" ""
else
	ok "deep stacks: python3 # SKIP python3 is not installed"
fi

# The TUI's title says how many stacks were cut.
. "$TOP/test/tmux.sh"
tmux_start 100 24 "$TMP"
keys "'$MPROF' d300.pro" Enter
check "deep stacks: TUI title counts the cut stack" "1 stack [truncated]"
keys q
# ... and so does the live screen's.
MPROF_DEPTH=10 LD_PRELOAD=$HOOK "$DEEP" 20 "$TMP/go2" > "$TMP/pid2" &
bg=$!
pid=$(pid_from "$TMP/pid2")
keys "'$MPROF' --attach $pid" Enter
check "deep stacks: live TUI title counts the cut stack" "1 stack [truncated]"
keys q
touch "$TMP/go2"
wait "$bg"
