#!/bin/sh
# TUI: time from key to redrawn screen on the 1,000,000-bucket profile.
cd "$(dirname "$0")/../.." || exit 2
f=build/bench/big.pro
mkdir -p build/bench
[ -f "$f" ] || build/tools/gen_v1 "$f" 1000000 20000 15 || exit 1
[ -x build/tools/bench_tui ] || make -s build/tools/bench_tui || exit 1
build/tools/bench_tui "$f"
