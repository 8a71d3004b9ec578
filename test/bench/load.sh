#!/bin/sh
# Analyzer: load + flat + cum of a 1,000,000-bucket v1 profile.
cd "$(dirname "$0")/../.." || exit 2
f=build/bench/big.pro
mkdir -p build/bench
[ -f "$f" ] || build/tools/gen_v1 "$f" 1000000 20000 11 || exit 1
build/tools/bench_load "$f"
build/tools/bench_load "$f" | sed -n 2,3p | sed 's/^/(warm) /'
