#!/bin/sh
# launch_follow.sh - mprof-tui -- CMD follows the program the user meant and
# keeps its result: through a wrapper script (a version manager's shim:
# helpers, then exec of the real program) the screen moves to the program
# it runs; the wrapper's helpers leave no dumps; every launch leaves its
# profile as a file and says where; a program that ends before the screen
# is up opens as the profile it left. Driven in tmux.
. "$(dirname "$0")/../lib.sh"
hook_prog leaker "$TOP/test/progs/live_leaker.c"
cc -g -O1 -fno-omit-frame-pointer -o "$TMP/leaks" "$TOP/test/progs/hook_leaks.c" || not_ok "build hook_leaks"
. "$TOP/test/tmux.sh"

# The shim: helpers as pyenv's shim runs them, then it waits for the test
# to have seen it on screen, then execs the real program (same pid).
mkdir "$TMP/bin" "$TMP/run"
# shim NAME GO [ENV=VALUE...]: $TMP/bin/NAME waits for the file GO, then
# execs the leaker with those variables set.
shim() {
	n=$1 go=$2
	shift 2
	cat > "$TMP/bin/$n" << EOF
#!/bin/sh
here=\$(dirname "\$0")
self=\$(readlink -f "\$0")
while [ ! -e "$go" ]; do sleep 0.05; done
$* exec "$TMP/leaker" "\$@"
EOF
	chmod +x "$TMP/bin/$n"
}
shim app "$TMP/go"

tmux_start 150 30 "$TMP/run"
keys "'$MPROF' --interval 200 -- '$TMP/bin/app' '$TMP/stop' 60; echo EXIT=\$?" Enter
check "wrapper: the screen opens on the wrapper" "granularity function  /bin/sh $TMP/bin/app"
spid=$(screen | sed -n '1s/.* pid \([0-9][0-9]*\) running.*/\1/p')
expect_match "wrapper: the title shows its pid" "$spid" "^[0-9]+$"
touch "$TMP/go"
check "wrapper: after its exec, the screen follows the real program" "ran a new program (exec): following $TMP/leaker"
check "wrapper: the real program's leak shows" "leak_here"
expect_match "wrapper: the title names the real program, same pid" "$(screen | sed -n 1p)" \
	" pid $spid running .*$TMP/leaker $TMP/stop"
keys m
check "wrapper: snapshots work on the new program" "snapshot #1 at"
touch "$TMP/stop"
check "wrapper: the real program's exit shows" "EXITED (status 0)" 100
keys q
check "wrapper: q quits" "EXIT=0"
expect_match "wrapper: leaving says where the profile is" "$(screen | tr -d '\n')" \
	"ended; its output is in .*; profile written to $TMP/run/mprof\.app\.$spid\.pro"
expect_eq "wrapper: one profile, no helper's dump" "$(ls "$TMP/run")" "mprof.app.$spid.pro"
expect_match "wrapper: the profile is the real program's" \
	"$("$MPROF" --top=flat --limit 5 "$TMP/run/mprof.app.$spid.pro" 2> /dev/null)" "leak_here"

# -o FILE: the profile goes there.
keys clear Enter
rm -f "$TMP/stop"
keys "'$MPROF' --interval 200 -o '$TMP/o.pro' -- '$TMP/leaker' '$TMP/stop' 60; echo EXIT=\$?" Enter
check "-o FILE: the table opens" "leak_here"
touch "$TMP/stop"
check "-o FILE: the exit shows" "EXITED (status 0)" 100
keys q
check "-o FILE: q quits" "EXIT=0"
expect_match "-o FILE: says the profile is there" "$(screen | tr -d '\n')" "profile written to $TMP/o\.pro"
expect_match "-o FILE: it holds the leak" "$("$MPROF" --top=flat --limit 5 "$TMP/o.pro" 2> /dev/null)" "leak_here"

# Stopped with q y: SIGTERM, the hook still writes the profile.
keys clear Enter
rm -f "$TMP/stop"
keys "'$MPROF' --interval 200 -o '$TMP/y.pro' -- '$TMP/leaker' '$TMP/stop' 60; echo EXIT=\$?" Enter
check "stopped: the table opens" "leak_here"
keys q
check "stopped: q asks" "quit: stop leaker"
keys y
check "stopped: y stops it" "EXIT=0"
expect_match "stopped: the profile is written" "$(screen | tr -d '\n')" "stopped $TMP/leaker .*profile written to $TMP/y\.pro"
expect_match "stopped: it holds the leak" "$("$MPROF" --top=flat --limit 5 "$TMP/y.pro" 2> /dev/null)" "leak_here"

# A program that ends at once: its final profile opens (as the profile it
# left when it ended before its segment was even seen, or as the live
# screen's final state), with the exact leaks of hook_leaks (1000 B in
# leak_malloc), and the file holds them.
for k in 1 2 3; do
	keys clear Enter
	keys "'$MPROF' -o '$TMP/short$k.pro' -- '$TMP/leaks'; echo EXIT=\$?" Enter
	check "short program $k: its leak is on screen" "leak_malloc  hook_leaks.c"
	# Seen live, its exit shows at the next refresh.
	wait_match "ended before its screen was up: its final profile|EXITED \(status 7\)"
	expect_match "short program $k: shown as ended" "$(screen | tr -d '\n')" \
		"ended before its screen was up: its final profile|EXITED \(status 7\)"
	keys q
	check "short program $k: q quits" "EXIT="
	expect_eq "short program $k: the file holds its exact leak" \
		"$("$MPROF" --top=flat --format=tsv "$TMP/short$k.pro" 2> /dev/null | awk -F '\t' '$5 ~ /^leak_malloc/ { print $1 }')" 1000
	expect_match "short program $k: the shell was told where the profile is" "$(screen | tr -d '\n')" \
		"profile written to $TMP/short$k\.pro"
done

# The profile's default name keeps a '+' of the program's name, as the
# hook's own dump names do (mprof.c++leaks.PID.pro, not c__leaks).
mkdir -p "$TMP/plus"
cp "$TMP/leaks" "$TMP/plus/c++leaks"
keys clear Enter
keys "cd '$TMP/plus' && '$MPROF' -- ./c++leaks; echo EXIT=\$?; cd '$TOP'" Enter
check "c++leaks: its leak is on screen" "leak_malloc  hook_leaks.c"
# q on a program still running asks first; wait for its end as above.
wait_match "ended before its screen was up: its final profile|EXITED \(status 7\)"
keys q
check "c++leaks: q quits" "EXIT="
expect_match "c++leaks: the profile is mprof.c++leaks.PID.pro, '+' kept" "$(ls "$TMP/plus" | grep '^mprof\.')" \
	'^mprof\.c\+\+leaks\.[0-9]+\.pro$'

# A program exec'd with the hook that ld.so is slow to load (an LD_AUDIT
# library sleeping 1 s before the preloads): for that second its maps lack
# the hook; the screen waits for its segment instead of calling it ended.
if cc -shared -fPIC -o "$TMP/slow_audit.so" "$TOP/test/progs/slow_audit.c"; then
	shim slow "$TMP/slowgo" "LD_AUDIT='$TMP/slow_audit.so'"
	rm -f "$TMP/stop"
	keys clear Enter
	keys "cd '$TMP/run' && '$MPROF' --interval 200 -o '$TMP/slow.pro' -- '$TMP/bin/slow' '$TMP/stop' 60; echo EXIT=\$?; cd '$TOP'" Enter
	check "slow loader: the screen opens on the wrapper" "granularity function  /bin/sh $TMP/bin/slow"
	touch "$TMP/slowgo"
	check "slow loader: after its exec, the screen follows the real program" "ran a new program (exec): following $TMP/leaker"
	check "slow loader: the real program's leak shows" "leak_here"
	touch "$TMP/stop"
	check "slow loader: the real program's exit shows" "EXITED (status 0)" 100
	keys q
	check "slow loader: q quits" "EXIT=0"
else
	not_ok "build slow_audit.so"
fi
