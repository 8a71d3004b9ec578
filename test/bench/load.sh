#!/bin/sh
# Analyzer: load + flat + cum of a 1,000,000-bucket v1 profile.
cd "$(dirname "$0")/../.." || exit 2
. test/bench/bigpro.inc
f=$BIG
build/tools/bench_load "$f"
build/tools/bench_load "$f" | sed -n 2,3p | sed 's/^/(warm) /'
