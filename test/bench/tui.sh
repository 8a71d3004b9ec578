#!/bin/sh
# TUI: time from key to redrawn screen on the 1,000,000-bucket profile.
cd "$(dirname "$0")/../.." || exit 2
. test/bench/bigpro.inc
f=$BIG
[ -x build/tools/bench_tui ] || make -s build/tools/bench_tui || exit 1
build/tools/bench_tui "$f"
