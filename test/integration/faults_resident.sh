#!/bin/sh
# faults_resident: --faults' in use is what the process holds now, its
# allocated every page a fault made.  faults_giveback gives pages back in
# every way (madvise DONTNEED, munmap then a new mapping at the same
# address, a shrunk brk, mremap to one page) and keeps 16 MiB: in use is
# exactly the kept pages under the stacks that touched them last, its total
# within 5 % of the RSS growth the program measured itself, allocated every
# fault; launched (read at its exit stop) and on a PID for --duration.
. "$(dirname "$0")/../lib.sh"

cc -O0 -g -fno-omit-frame-pointer -o "$TMP/gb" "$TOP/test/progs/faults_giveback.c" || { not_ok "build faults_giveback"; exit 0; }
faults_or_skip

MIB=1048576
# under FILE METRIC CHAIN: bytes of METRIC (inuse, alloc) of the stacks holding CHAIN.
under() {
	"$MPROF" --export=folded "--$2" -o "$TMP/f.folded" "$1" > /dev/null &&
		awk -v c="$3" 'index($0, c) { b += $NF } END { printf "%.0f\n", b }' "$TMP/f.folded"
}
# near NAME GOT WANT PCT: GOT within PCT % of WANT.
near() {
	if awk -v g="$2" -v w="$3" -v p="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d * 100 <= w * p) }'; then
		ok "$1 ($2 B)"
	else
		not_ok "$1" "got $2 B, want $3 B within $4 %"
	fi
}
# exact_views NAME FILE RSS_KIB: the checks of both runs on one profile.
exact_views() {
	expect_eq "$1: in use 16 MiB under keep_sixteen" "$(under "$2" inuse ';main;keep_sixteen;touch ')" $((16 * MIB))
	expect_eq "$1: in use 8 MiB under keep_reused (mapped where churn_unmap's pages were)" \
		"$(under "$2" inuse ';main;keep_reused;touch ')" $((8 * MIB))
	expect_eq "$1: nothing in use under the madvise, munmap and brk churns" \
		"$(under "$2" inuse ';main;churn_dontneed;') $(under "$2" inuse ';main;churn_unmap;') $(under "$2" inuse ';main;churn_brk;')" "0 0 0"
	expect_eq "$1: one page in use under churn_mremap (8 MiB shrunk to a page)" "$(under "$2" inuse ';main;churn_mremap;')" 4096
	near "$1: in use under main within 5 % of the RSS growth it measured" "$(under "$2" inuse ';main;')" $(($3 * 1024)) 5
}

# --- launched: read at its exit stop ------------------------------------------------------
run_status "$MPROF" --faults -o "$TMP/l.pro" -- "$TMP/gb"
expect_eq "launch: exit status 0" "$STATUS" 0
rss=$(echo "$OUT" | sed -n 's/^rss grew \([0-9]*\) KiB$/\1/p')
expect_match "launch: the program measured its RSS growth" "$rss" "^[0-9]+$"
expect_match "launch: the figures say allocated and in use, no sample lost" "$ERR" \
	"pid [0-9]+: [0-9]+ page faults \([0-9]+ minor, 0 major\): [0-9]+ KiB allocated, [0-9]+ KiB in use \(resident at the last of [0-9]+ readings\), [0-9]+ faults on pages held already, 0 samples lost"
exact_views launch "$TMP/l.pro" "${rss:-0}"
expect_eq "launch: allocated 64, 8, 8, 8, 8, 16 MiB: every fault, the given-back ones too" \
	"$(for f in churn_dontneed churn_unmap keep_reused churn_brk churn_mremap keep_sixteen; do under "$TMP/l.pro" alloc ";main;$f;touch "; done | tr '\n' ' ')" \
	"$((64 * MIB)) $((8 * MIB)) $((8 * MIB)) $((8 * MIB)) $((8 * MIB)) $((16 * MIB)) "

# --- a running process for --duration: read before the detach -----------------------------
faults_go "$TMP/gb" "$TMP/w.out" 5 "$TMP/d.pro"
expect_eq "--duration: exit status 0" "$FSTATUS" 0
rss=$(sed -n 's/^rss grew \([0-9]*\) KiB$/\1/p' "$TMP/w.out")
expect_match "--duration: the program was done before the duration's end" "$rss" "^[0-9]+$"
expect_eq "--duration: the process is still running after it" "$(kill -0 "$PID" 2> /dev/null && echo yes)" yes
exact_views "--duration" "$TMP/d.pro" "${rss:-0}"
kill "$PID" 2> /dev/null
