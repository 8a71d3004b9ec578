#!/bin/sh
# Symbols: 100,000 distinct addresses over the .text of 3 modules with
# debug info where the machine has it (libc with libc6-dbg, mprof-tui built
# -O2 -g, libstdc++), resolved cold and warm. Target: under 1 s cold.
cd "$(dirname "$0")/../.." || exit 2
text() {  # FILE -> FILE:VADDR:SIZE of its .text
	f=$(readlink -f "$1")
	readelf -SW "$f" | awk -v f="$f" '$2 == ".text" {print f ":" $4 ":" $6; exit}
		$3 == ".text" {print f ":" $5 ":" $7; exit}'
}
libc=$(ldd ./mprof-tui | awk '/libc\.so/ {print $3}')
cxx=$(gcc -print-file-name=libstdc++.so)
build/tools/bench_sym 100000 "$(text "$libc")" "$(text ./mprof-tui)" "$(text "$cxx")"
