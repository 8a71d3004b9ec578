#!/bin/sh
# budget.sh - memory budgets with an exit status (issue 36): budget_app
# leaks one block of 4000 B in leak_one and peaks at 3 MiB + 4000 B (three
# 1 MiB blocks of grow_step, freed before exit).  Checked: the exit status
# (0 all hold, 1 one broken, 2 could not check), the exact figures and the
# stacks that broke it in the report, a run under the hook (-- CMD), per
# function and per module, allocation counts and bytes, --diff growth in
# bytes and in %, the JUnit file (well formed, one testcase per term), and
# bad input refused in one line.
. "$(dirname "$0")/../lib.sh"
hook_prog ba "$TOP/test/progs/budget_app.c"
export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"

# line N: line N of the last report.
line() { printf '%s\n' "$OUT" | sed -n "$1p"; }

# A run under the hook: its profile at exit.
cd "$TMP" || exit 2
run_status "$MPROF" --budget 'leaks<=0' -- ./ba
expect_eq "-- CMD, leaks<=0: broken, exit 1" "$STATUS" 1
expect_eq "-- CMD, leaks<=0: the figure against the limit" "$(line 1)" \
	"BROKEN leaks<=0: 3.91 KiB (4000 B, 1 object) in use at exit, over 0 B"
expect_match "-- CMD, leaks<=0: the stack that leaked" "$(line 2)" \
	"^ +3\.91 KiB \(4000 B, 1 object\)  leak_one < main( <|$)"
expect_eq "-- CMD, leaks<=0: one stack, then the summary" "$(line 3)" "budget: 1 of 1 broken"
expect_eq "-- CMD: nothing on stderr" "$ERR" ""
run_status "$MPROF" --budget 'leaks<=4000,objects<=1' -- ./ba
expect_eq "-- CMD, leaks<=4000: holds, exit 0" "$STATUS" 0
expect_eq "-- CMD, leaks<=4000: the figure" "$(line 1)" \
	"ok     leaks<=4000: 3.91 KiB (4000 B, 1 object) in use at exit, within 3.91 KiB (4000 B)"
run_status "$MPROF" --budget 'leaks<=4000' -- ./ba 3 free 3
expect_eq "-- CMD that exits 3: exit 1 though its budget holds" "$STATUS" 1
expect_eq "-- CMD that exits 3: said in one line" "$ERR" \
	"mprof-tui: ./ba exited with status 3 (its budgets are checked; the exit status is 1)"
# A wrapper: what it execs into is checked, not the children it ran before.
run_status "$MPROF" --budget 'peak<=2M' -- sh -c './ba 3 free; exec ./ba 1'
expect_eq "-- sh -c '...; exec ./ba 1': the exec'd program's peak, not its child's" "$STATUS:$(line 1)" \
	"0:ok     peak<=2M: 1.00 MiB (1052576 B, 2 objects) at the peak, within 2.00 MiB (2097152 B)"
# --ignore REGEX (pprof's -ignore): the stacks through a matching function
# are left out of every figure, and stderr says how many.
run_status "$MPROF" --budget 'leaks<=0' --ignore leak_one -- ./ba
expect_eq "--ignore leak_one: leaks<=0 holds, exit 0" "$STATUS:$(line 1)" \
	"0:ok     leaks<=0: 0 B (0 objects) in use at exit, within 0 B"
expect_eq "--ignore: says how many stacks it left out" "$ERR" "mprof-tui: --ignore 'leak_one': 1 stack left out"
run_status "$MPROF" --budget 'leaks<=0,peak<=3M' --ignore 'nothing_by_this_name' -- ./ba
expect_eq "--ignore matching nothing: leaks<=0 still broken" "$STATUS:$(line 1)" \
	"1:BROKEN leaks<=0: 3.91 KiB (4000 B, 1 object) in use at exit, over 0 B"
run_status "$MPROF" --budget 'leaks<=0' --ignore '(' -- ./ba
expect_eq "--ignore with a bad regex: exit 2, one line" "$STATUS:$ERR" \
	"2:mprof-tui: --ignore takes a regex of function names: bad regex '(': Unmatched ( or \\("
# A real program writing to a redirected stdout: coreutils' echo keeps its
# locale data to the end; the report names its unresolved frames as
# module+offset (the same in every run), and --ignore takes the locale out.
run_status "$MPROF" --budget 'leaks<=0' -- /bin/echo hi
expect_eq "echo, leaks<=0: broken" "$STATUS" 1
expect_match "echo: its stacks are in the report" "$OUT" "setlocale"
expect_eq "echo: no run-dependent address in the report" "$(printf '%s\n' "$OUT" | grep -c '\[0x')" 0
expect_match "echo: its unresolved frames as module+offset" "$OUT" " < echo\+0x[0-9a-f]+ < "
run_status "$MPROF" --budget 'leaks<=0' --ignore 'setlocale|textdomain' -- /bin/echo hi
expect_eq "echo, leaks<=0 --ignore 'setlocale|textdomain': holds" "$STATUS:$(line 2)" \
	"0:ok     leaks<=0: 0 B (0 objects) in use at exit, within 0 B"
run_status "$MPROF" --budget 'leaks<=0' -- ./no-such-program
expect_eq "-- CMD that cannot run: exit 2" "$STATUS" 2
expect_eq "-- CMD that cannot run: one line" "$ERR" "mprof-tui: cannot run ./no-such-program: No such file or directory"
expect_eq "-- CMD: the run's dump is removed" "$(ls -A "$TMPDIR")" ""

# A dump: the peak, in use, per function, per module, allocations.
MPROF_OUT=$TMP/ba.pro LD_PRELOAD=$HOOK ./ba
# --ignore on a report and an export: the stack is gone from every figure.
run_status "$MPROF" --top=flat --format=tsv --alloc --ignore leak_one ba.pro
expect_eq "--top --ignore leak_one: exit 0, no leak_one row, grow_step's 3 MiB stay" \
	"$STATUS:$(printf '%s\n' "$OUT" | awk -F'\t' '$5 == "leak_one" || $5 == "grow_step" { print $5, $1 }')" "0:grow_step 3145728"
run_status "$MPROF" --export=folded --alloc --ignore grow_step -o "$TMP/ig.folded" ba.pro
expect_eq "--export=folded --ignore grow_step: only leak_one's 4000 B" "$STATUS:$(awk '{ t += $NF } END { print t }' "$TMP/ig.folded")" "0:4000"
run_status "$MPROF" --budget 'peak<=64M,inuse<=1M' ba.pro
expect_eq "peak<=64M,inuse<=1M: hold, exit 0" "$STATUS" 0
expect_eq "peak<=64M: the peak the dump kept" "$(line 1)" \
	"ok     peak<=64M: 3.00 MiB (3149728 B, 4 objects) at the peak, within 64.0 MiB (67108864 B)"
expect_eq "inuse<=1M: in use at exit" "$(line 2)" \
	"ok     inuse<=1M: 3.91 KiB (4000 B, 1 object) in use, within 1.00 MiB (1048576 B)"
expect_eq "all hold: the summary" "$(line 3)" "budget: all 2 hold"
run_status "$MPROF" --budget 'inuse<=1M,peak<=3M' ba.pro
expect_eq "peak<=3M: broken, exit 1" "$STATUS" 1
expect_eq "peak<=3M: the figure against the limit" "$(line 2)" \
	"BROKEN peak<=3M: 3.00 MiB (3149728 B, 4 objects) at the peak, over 3.00 MiB (3145728 B)"
expect_match "peak<=3M: grow_step's stack first" "$(line 3)" \
	"^ +3\.00 MiB \(3145728 B, 3 objects\)  grow_step < main( <|$)"
expect_match "peak<=3M: then leak_one's" "$(line 4)" "^ +3\.91 KiB \(4000 B, 1 object\)  leak_one < main( <|$)"
run_status "$MPROF" --budget 'peak<=3M' -n 1 ba.pro
expect_eq "-n 1: one stack under a broken budget" "$(printf '%s\n' "$OUT" | grep -c ' < main')" 1
run_status "$MPROF" --budget 'grow_step:peak<=3M,leak_one:peak<=4000' ba.pro
expect_eq "grow_step:peak<=3M: a function's peak holds, exit 0" "$STATUS" 0
expect_eq "grow_step:peak<=3M: its figure" "$(line 1)" \
	"ok     grow_step:peak<=3M: 3.00 MiB (3145728 B, 3 objects) at the peak, within 3.00 MiB (3145728 B)"
run_status "$MPROF" --budget 'grow_step:peak<=2M' ba.pro
expect_eq "grow_step:peak<=2M: broken, exit 1" "$STATUS" 1
expect_eq "grow_step:peak<=2M: only grow_step's stack" "$(printf '%s\n' "$OUT" | grep -c ' < main')" 1
run_status "$MPROF" --budget 'grow_step:inuse<=0' ba.pro
expect_eq "grow_step:inuse<=0: freed before exit, holds" "$STATUS" 0
run_status "$MPROF" --budget 'ba:inuse<=4000' ba.pro
expect_eq "ba:inuse<=4000: a module by its file name, holds" "$(line 1)" \
	"ok     ba:inuse<=4000: 3.91 KiB (4000 B, 1 object) in use, within 3.91 KiB (4000 B)"
run_status "$MPROF" --budget 'ba:inuse<=3999' ba.pro
expect_eq "ba:inuse<=3999: the module's budget broken, exit 1" "$STATUS" 1
run_status "$MPROF" --budget 'allocs<=4,alloc<=3M' ba.pro
expect_eq "allocs<=4: the count holds" "$(line 1)" "ok     allocs<=4: 4 allocations made, within 4"
expect_eq "alloc<=3M: bytes allocated, broken" "$(line 2)" \
	"BROKEN alloc<=3M: 3.00 MiB (3149728 B, 4 objects) allocated, over 3.00 MiB (3145728 B)"
expect_eq "alloc<=3M: exit 1" "$STATUS" 1
run_status "$MPROF" --budget 'nosuch_fn:inuse<=0' ba.pro
expect_eq "a scope that names nothing: 0, said in the report" "$(line 1)" \
	"ok     nosuch_fn:inuse<=0: 0 B (0 objects) in use, within 0 B (no function or module 'nosuch_fn' in the profile)"

# The JUnit report.
run_status "$MPROF" --budget 'peak<=64M,leaks<=0' --format=junit -o "$TMP/r.xml" ba.pro
expect_eq "junit: exit 1" "$STATUS" 1
expect_eq "junit: the text report still on stdout" "$(line 2)" \
	"BROKEN leaks<=0: 3.91 KiB (4000 B, 1 object) in use at exit, over 0 B"
if command -v xmllint > /dev/null; then
	xmllint --noout "$TMP/r.xml" 2> "$TMP/xml.err"
	expect_eq "junit: well formed (xmllint)" "$?:$(cat "$TMP/xml.err")" "0:"
else
	python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$TMP/r.xml" 2> "$TMP/xml.err"
	expect_eq "junit: well formed (python3)" "$?:$(cat "$TMP/xml.err")" "0:"
fi
expect_match "junit: a suite of 2 tests, 1 failure" "$(cat "$TMP/r.xml")" \
	'<testsuite name="ba\.pro" tests="2" failures="1" errors="0">'
expect_eq "junit: one testcase per term" "$(grep -c '<testcase ' "$TMP/r.xml")" 2
expect_match "junit: the failure's message" "$(cat "$TMP/r.xml")" \
	'<failure type="budget" message="leaks&lt;=0: 3\.91 KiB \(4000 B, 1 object\) in use at exit, over 0 B">'
expect_match "junit: the failure names the stack" "$(sed -n '/<failure/,/<\/failure>/p' "$TMP/r.xml")" \
	"^3\.91 KiB \(4000 B, 1 object\)  leak_one &lt; main"
expect_eq "junit: the term that holds has no failure" \
	"$(sed -n '/name="peak&lt;=64M"/,/<\/testcase>/p' "$TMP/r.xml" | grep -c '<failure')" 0

# --diff: growth, in bytes and in % of BASE.
MPROF_OUT=$TMP/base.pro LD_PRELOAD=$HOOK ./ba 2 hold
MPROF_OUT=$TMP/new.pro LD_PRELOAD=$HOOK ./ba 3 hold
run_status "$MPROF" --budget 'growth<=5%' --diff base.pro new.pro
expect_eq "growth<=5%: broken, exit 1" "$STATUS" 1
expect_eq "growth<=5%: the growth against BASE" "$(line 1)" \
	"BROKEN growth<=5%: +1.00 MiB (+1048576 B, 1 object) in use beyond BASE, +49.9% of BASE's 2.00 MiB (2101152 B), over 5%"
expect_match "growth<=5%: grow_step's stack grew" "$(line 2)" \
	"^ +\+1\.00 MiB \(\+1048576 B, 1 object\)  grow_step < main( <|$)"
run_status "$MPROF" --budget 'growth<=50%,growth<=1M,leak_one:growth<=0' --diff base.pro new.pro
expect_eq "growth<=50%,growth<=1M,leak_one:growth<=0: hold, exit 0" "$STATUS" 0
run_status "$MPROF" --budget 'grow_step:growth<=49%' base.pro new.pro
expect_eq "grow_step:growth<=49% (BASE NEW): broken, exit 1" "$STATUS" 1
expect_eq "grow_step:growth<=49%: in % of grow_step's own in BASE" "$(line 1)" \
	"BROKEN grow_step:growth<=49%: +1.00 MiB (+1048576 B, 1 object) in use beyond BASE, +50.0% of BASE's 2.00 MiB (2097152 B), over 49%"

# Bad input: exit 2, one line, no report.
bad() {
	run_status "$MPROF" --budget "$1" ba.pro
	expect_eq "'$1': exit 2" "$STATUS" 2
	expect_eq "'$1': one line naming the term" "$ERR" "$2"
	expect_eq "'$1': no report" "$OUT" ""
}
bad 'peak<=64Q' "mprof-tui: --budget: 'peak<=64Q': the limit is bytes (digits, then K, M or G: 1024s), not '64Q'"
bad 'inuse<=1M,peek<=1M' \
	"mprof-tui: --budget: 'peek<=1M': unknown measure 'peek' (inuse, objects, leaks, peak, alloc, allocs, growth)"
bad 'inuse<1M' "mprof-tui: --budget: 'inuse<1M': no '<=' (a term is [FUNCTION:]MEASURE<=LIMIT)"
bad 'growth<=5%' "mprof-tui: --budget: 'growth<=5%': growth compares two profiles (--diff BASE FILE)"
run_status "$MPROF" --budget 'peak<=1M' "$DATA/test_mem.pro"
expect_eq "a peak budget on a dump without a peak: exit 2" "$STATUS" 2
expect_eq "a peak budget on a dump without a peak: one line" "$ERR" \
	"mprof-tui: $DATA/test_mem.pro: no peak in this profile (budget 'peak<=1M' needs a dump of libmprof.so that kept one)"
run_status "$MPROF" --budget 'inuse<=1M' --format=junit ba.pro
expect_eq "--format=junit without -o: exit 2, one line" "$STATUS:$ERR" "2:mprof-tui: --format=junit needs -o FILE"
run_status "$MPROF" --top=flat --format=junit ba.pro
expect_eq "--format=junit without --budget: exit 2, one line" "$STATUS:$ERR" \
	"2:mprof-tui: --format=junit is --budget's report; give --budget TERMS"
