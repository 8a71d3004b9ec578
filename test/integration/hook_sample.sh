#!/bin/sh
# hook_sample.sh - sampling (MPROF_SAMPLE, mprof-tui --sample-rate) on
# programs with known allocations (test/progs/sample_known.c):
#  - the estimates of each site lie within 4 standard deviations of the
#    truth.  Each allocation of s bytes is recorded with probability
#    p = 1 - exp(-s/R), independently (Poisson by bytes), and counts 1/p
#    objects and s/p bytes, so an estimate's variance is the sum over the
#    site's allocations of (1-p)/p for objects, s^2 (1-p)/p for bytes
#    (computed below from the known sizes).  The seed is fixed
#    (MPROF_SAMPLE_SEED): the run is the same every time, and a biased
#    estimator fails: one site mixes 1,000,000 blocks of 64 B and 64 of
#    256 KiB, where scaling its counts by their mean size (as pprof does
#    for a legacy heap profile) gives about 5,000 objects for 1,000,064;
#  - frees of sampled blocks always cancel: sites that free all they
#    allocate show exactly 0 in use, also across realloc between small and
#    big, memalign, aligned_alloc, posix_memalign, calloc and threads;
#  - a running process re-rated with --sample-rate: off records nothing,
#    all records every allocation (exact counts), a rate gives estimates,
#    and blocks freed under another rate than their allocation's cancel;
#  - jemalloc and tcmalloc (C and C++) under sampling: MPROF_SAMPLE=1
#    samples every block with p = 1 - exp(-s) (weight 1 for s >= 1): the
#    exact leaks; and a churn of every allocation call under 4 KiB
#    sampling leaves every block intact.
. "$(dirname "$0")/../lib.sh"
HOOK=$TOP/libmprof.so
P=$TOP/test/progs
CFL="-O1 -g -fno-omit-frame-pointer -pthread"
cc $CFL -o "$TMP/sk" "$P/sample_known.c" || { not_ok "build sample_known"; exit 0; }

R=65536
# sigma_of "n:s n:s ...": "objects_sigma bytes_sigma" at rate R.
sigma_of() {
	awk -v r=$R -v spec="$1" 'BEGIN {
		k = split(spec, a, " ")
		for (i = 1; i <= k; i++) {
			split(a[i], f, ":"); q = 1 / (exp(f[2] / r) - 1)
			vo += f[1] * q; vb += f[1] * f[2] * f[2] * q
		}
		printf "%.0f %.0f\n", sqrt(vo), sqrt(vb) }'
}
# within NAME "GOT_B GOT_O" "WANT_B WANT_O" "SIGMA_O SIGMA_B"
within() {
	if awk -v g="$2" -v w="$3" -v s="$4" 'BEGIN { split(g, x); split(w, y); split(s, z)
		exit !((x[1] - y[1])^2 <= 16 * z[2]^2 && (x[2] - y[2])^2 <= 16 * z[1]^2) }'; then
		ok "$1: $2 within 4 sigma ($4) of $3"
	else
		not_ok "$1" "got (bytes objects): $2" "want: $3, 4 sigma of (objects bytes) $4"
	fi
}
# alloc FILE FUNC: "bytes objects" allocated by FUNC (flat).
alloc() {
	"$MPROF" --top=flat --alloc --format=tsv --no-symbols --granularity=address "$1" 2> /dev/null |
	awk -F '\t' -v f="($2+" 'NR > 1 && index($5, f) { b += $1; o += $2 } END { printf "%.0f %.0f\n", b, o }'
}

# ---- a sampled run, dumped at exit -------------------------------------------
MPROF_SAMPLE=$R MPROF_SAMPLE_SEED=7 MPROF_OUT=$TMP/s.pro LD_PRELOAD=$HOOK "$TMP/sk" > "$TMP/out" 2> "$TMP/err"
expect_eq "sampled run: exit 0, nothing on stderr" "$? $(cat "$TMP/err")" "0 "
mixed=$(sigma_of "1000000:64 64:262144")
within "mixed sizes at one site: in use" "$(sumf "$TMP/s.pro" mixed_site flat)" "80777216 1000064" "$mixed"
within "big blocks: in use" "$(sumf "$TMP/s.pro" big_site flat)" "20000000 200" "$(sigma_of "200:100000")"
churn=$(awk 'BEGIN { for (i = 0; i < 2000; i++) printf "300:%d ", 1000 + i }')
within "2 threads' churn: allocated" "$(alloc "$TMP/s.pro" churn_site)" "1199700000 600000" "$(sigma_of "$churn")"
expect_eq "2 threads' churn: every sampled free found (0 in use)" "$(sumf "$TMP/s.pro" churn_site flat)" "0 0"
mix=$(awk 'BEGIN { for (i = 0; i < 300; i++) printf "333.33:%d ", 3 * (100 + i)
	for (i = 0; i < 14; i++) printf "7142.86:%d ", 2 ^ (4 + i)
	print "100000:2048 100000:4096 100000:300 100000:16 100000:24" }')
within "calloc, aligned, realloc small <-> big: allocated" "$(alloc "$TMP/s.pro" churn_mix)" "2595403696 700000" "$(sigma_of "$mix")"
expect_eq "calloc, aligned, realloc small <-> big: 0 in use" "$(sumf "$TMP/s.pro" churn_mix flat)" "0 0"
run_status "$MPROF" --top=flat "$TMP/s.pro"
expect_match "a sampled dump's report says it holds estimates, and the rate" "$ERR" "estimates from sampling \(1 allocation per 64 KiB"
# The same run without sampling: the exact counts the estimates are of.
MPROF_OUT=$TMP/x.pro LD_PRELOAD=$HOOK "$TMP/sk" > /dev/null 2>&1
expect_eq "every allocation: the truth, exactly" "$(sumf "$TMP/x.pro" mixed_site flat) $(alloc "$TMP/x.pro" churn_mix)" \
	"80777216 1000064 2595403696 700000"

# ---- a running process, re-rated -----------------------------------------------
mkfifo "$TMP/in"
LD_PRELOAD=$HOOK MPROF_SAMPLE=$R MPROF_SAMPLE_SEED=3 "$TMP/sk" wait < "$TMP/in" > "$TMP/w.out" 2> "$TMP/w.err" &
WPID=$!
exec 3> "$TMP/in"
trap 'exec 3>&-; kill -KILL $WPID 2> /dev/null; rm -rf "$TMP"' EXIT
n=0
# step CMD: one command to the program; waits (60 s at most) for its "done".
step() {
	n=$((n + 1))
	echo "$1" >&3
	_w=0
	while ! grep -q "^done $n\$" "$TMP/w.out" && [ $_w -lt 1200 ] && kill -0 $WPID 2> /dev/null; do
		sleep 0.05; _w=$((_w + 1))
	done
}
snap() { "$MPROF" --snapshot "$WPID" -o "$TMP/$1.pro" 2> "$TMP/$1.err"; }
sleep 0.2
run_status "$MPROF" --info --attach "$WPID"
expect_match "--info --attach says the rate" "$OUT" "^recording: 1 sample per 64 KiB$"
run_status "$MPROF" --sample-rate=off "$WPID"
expect_match "--sample-rate=off: taken (within the next 64 KiB an idle process allocates)" "$STATUS $OUT" \
	"^0 process $WPID: sampling off .*from its next 64 KiB of allocations"
step r
snap off
expect_eq "off: nothing recorded" "$(alloc "$TMP/off.pro" mixed_site)" "0 0"
run_status "$MPROF" --sample-rate=all "$WPID"
step r
snap all
expect_eq "all: every allocation, exactly" "$(alloc "$TMP/all.pro" mixed_site) $(sumf "$TMP/all.pro" mixed_site flat)" \
	"80777216 1000064 0 0"
step k
run_status "$MPROF" --sample-rate=64K "$WPID"
expect_match "--sample-rate=64K: said" "$STATUS $OUT" "^0 process $WPID: 1 sample per 64 KiB"
step f
snap cross
expect_eq "kept under all, freed at 64 KiB: 0 in use" "$(sumf "$TMP/cross.pro" mixed_site flat)" "0 0"
expect_match "a snapshot of a sampled process says so" "$(cat "$TMP/cross.err")" \
	"process $WPID records 1 sample per 64 KiB, rate changed 3 times: .* holds estimates"
base=$(alloc "$TMP/cross.pro" mixed_site)
step k
run_status "$MPROF" --sample-rate=all "$WPID"
step f
snap cross2
expect_eq "kept at 64 KiB, freed under all: 0 in use" "$(sumf "$TMP/cross2.pro" mixed_site flat)" "0 0"
got=$(alloc "$TMP/cross2.pro" mixed_site)
within "64 KiB: one phase's estimate" "$(echo "$got $base" | awk '{ printf "%.0f %.0f\n", $1 - $3, $2 - $4 }')" \
	"80777216 1000064" "$mixed"
run_status "$MPROF" --sample-rate=12X "$WPID"
expect_eq "--sample-rate=12X: bad input, exit 2, said" "$STATUS $ERR" \
	"2 mprof-tui: --sample-rate takes bytes (524288, 512K, 1M; at most 1T), all or off, not '12X'"
run_status "$MPROF" --sample-rate=512K 999999999
expect_match "--sample-rate on no such process: exit 2, said" "$STATUS $ERR" "^2 mprof-tui: .*999999999"
step q
wait $WPID
expect_eq "the re-rated program exits 0, nothing on stderr" "$? $(cat "$TMP/w.err")" "0 "

# ---- jemalloc and tcmalloc, C and C++ ------------------------------------------
C_LEAKS="leak_malloc:1000_10 leak_calloc:240_5 leak_realloc:4000_2 leak_memalign:400_2
leak_posix_memalign:288_3 leak_aligned_alloc:512_2"
CXX_LEAKS="_Z8leak_newv:320_8 _Z14leak_new_arrayv:400_4 _Z16leak_new_nothrowv:144_6 _Z16leak_new_alignedv:960_4"
c++ -O1 -g -std=c++17 -fsized-deallocation -fno-omit-frame-pointer -pthread -c -o "$TMP/acx.o" "$P/alloc_check_cxx.cpp" 2> /dev/null
for a in jemalloc tcmalloc_minimal; do
	for lang in c cxx; do
		bin=$TMP/${lang}_$a
		if [ $lang = c ]; then
			cc $CFL -o "$bin" "$P/alloc_check.c" -l$a 2> /dev/null
			leaks=$C_LEAKS; how=flat; prog=alloc_check
		else
			c++ -pthread -o "$bin" "$TMP/acx.o" -l$a 2> /dev/null
			leaks=$CXX_LEAKS; how=cum; prog=alloc_check_cxx
		fi
		if [ ! -x "$bin" ]; then
			not_ok "$lang+$a: cannot build (test/deps.sh installs libjemalloc-dev, libgoogle-perftools-dev)"
			continue
		fi
		# Rate 1: every block is sampled with weight 1 (p = 1 - exp(-s)): exact leaks.
		timeout 60 env MPROF_SAMPLE=1 MPROF_OUT="$TMP/a.pro" LD_PRELOAD="$HOOK" "$bin" exact > "$TMP/a.out" 2> "$TMP/a.err"
		expect_eq "$lang+$a, MPROF_SAMPLE=1: exit 0, ok" "$? $(tail -1 "$TMP/a.out") $(head -c 300 "$TMP/a.err")" \
			"0 $prog: ok "
		got= want=
		for l in $leaks; do
			got="$got ${l%%:*}=$(sumf "$TMP/a.pro" "${l%%:*}" $how 2> /dev/null | tr ' ' _)"
			want="$want ${l%%:*}=${l#*:}"
		done
		expect_eq "$lang+$a, MPROF_SAMPLE=1: every leak exact" "$got" "$want"
		# 4 KiB: three threads churn every allocation call for a second; every block intact.
		timeout 60 env MPROF_SAMPLE=4096 LD_PRELOAD="$HOOK" "$bin" run 1 > "$TMP/r.out" 2> "$TMP/r.err"
		expect_match "$lang+$a, MPROF_SAMPLE=4096: churn, every block intact" "$? $(tail -1 "$TMP/r.out")" "^0 alloc_check(_cxx)?: ok$"
	done
done

# ---- a recording runs: the rate stays ------------------------------------------
MPROF_RECORD=$TMP/rec MPROF_SAMPLE=$R LD_PRELOAD=$HOOK "$TMP/c_jemalloc" run 4 > "$TMP/rec.out" 2> /dev/null &
RPID=$!
w=0
while [ ! -s "$TMP/rec.out" ] && [ $w -lt 200 ]; do sleep 0.05; w=$((w + 1)); done
sleep 0.5
run_status "$MPROF" --sample-rate=all "$(head -1 "$TMP/rec.out")"
expect_match "--sample-rate while a recording runs: refused, exit 1" "$STATUS $ERR" \
	"^1 mprof-tui: process [0-9]+: refused while a recording runs .*still 1 sample per 64 KiB"
wait $RPID
expect_eq "the recorded program exits 0" "$?" 0

# ---- fork: the child samples on, with its own segment ---------------------------
cc $CFL -o "$TMP/fork" "$P/hook_fork.c"
MPROF_SAMPLE=1 MPROF_FORKS=1 MPROF_OUT=$TMP/fork.pro LD_PRELOAD=$HOOK "$TMP/fork" > "$TMP/fork.out"
cpid=$(sed -n 's/^child //p' "$TMP/fork.out")
expect_eq "fork under sampling: each side's leak exact in its own dump" \
	"$(sumf "$TMP/fork.pro" parent_leak flat) $(sumf "$TMP/fork.fork.$cpid.pro" child_leak flat 2> /dev/null)" "1000 2 900 3"

# ---- injected into a running process, then sampled ------------------------------
# Blocks allocated before the injection (never in the table) and blocks
# recorded under every-allocation are freed after sampling starts; the
# program checks every block itself.
if [ "$(uname -m)" = x86_64 ]; then
	"$TMP/c_jemalloc" run 60 "$TMP/stop" > "$TMP/inj.out" 2> "$TMP/inj.err" &
	IPID=$!
	w=0
	while [ ! -s "$TMP/inj.out" ] && [ $w -lt 200 ]; do sleep 0.05; w=$((w + 1)); done
	sleep 0.3
	run_status "$MPROF" --inject "$IPID"
	expect_eq "inject: exit status 0" "$STATUS" 0
	sleep 0.5
	run_status "$MPROF" --sample-rate=16K "$IPID"
	expect_match "injected, then --sample-rate=16K: taken" "$STATUS $OUT" "^0 process $IPID: 1 sample per 16 KiB, rate changed 1 time \(was every allocation"
	sleep 1
	run_status "$MPROF" --snapshot "$IPID" -o "$TMP/inj.pro"
	expect_match "injected and sampled: its snapshot says the rate" "$STATUS $ERR" "^0 .*records 1 sample per 16 KiB"
	run_status "$MPROF" --detach "$IPID"
	expect_eq "detach: exit status 0" "$STATUS" 0
	touch "$TMP/stop"
	wait $IPID
	expect_eq "injected, sampled, detached: every block intact, exit 0" "$? $(tail -1 "$TMP/inj.out")" "0 alloc_check: ok"
fi
