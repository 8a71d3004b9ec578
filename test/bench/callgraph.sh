#!/bin/sh
# Call graph: --callgraph of the 1,000,000-bucket profile (.dot, by address
# and by function), beside --top on the same file in the same sitting;
# medians of 3. Issue 16 sets no figure: the analyzer's (peak RSS under the
# file size) is held beside it.
cd "$(dirname "$0")/../.." || exit 2
. test/bench/bigpro.inc
f=$BIG
T=$(mktemp -d /tmp/mprof-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
# run3 ARGS: "seconds MB" medians of three runs of mprof-tui ARGS.
run3() {
	for i in 1 2 3; do
		/usr/bin/time -o "$T/time" -f '%e %M' ./mprof-tui --no-symbols "$@" "$f" > /dev/null 2>&1 || return 1
		tail -1 "$T/time"
	done | sort -n | sed -n 2p | awk '{ printf "%.2f s, %.0f MB\n", $1, $2 / 1024 }'
}
size=$(stat -c %s "$f" | awk '{ printf "%.0f", $1 / 1048576 }')
echo "callgraph .dot by address:   $(run3 --callgraph="$T/a.dot")   (peak RSS target: under the file's $size MB)"
echo "callgraph .dot by function:  $(run3 --granularity=function --callgraph="$T/f.dot")"
echo "--top=flat on the same file: $(run3 --top=flat -n 1)   (the graph adds a second pass over the samples)"
