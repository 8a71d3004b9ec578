#!/bin/sh
# test/fuzz/run.sh MODE SECONDS - builds every test/fuzz/fuzz_*.c with clang's
# libFuzzer + ASan + UBSan, replays every kept crash in test/fuzz/regress/NAME/,
# then fuzzes each target for SECONDS from its seeds. A new crash is saved
# into test/fuzz/regress/NAME/ (kept as a regression input) and fails the run.
# A target's first comment names its seeds ("FUZZ_SEEDS: glob ...") and any
# sources beyond core/*.c ("FUZZ_EXTRA: file.c ...", "FUZZ_LIBS: -lx").
# FUZZ_ONLY="fuzz_a fuzz_b" limits the run to those targets. Prints TAP lines.
cd "$(dirname "$0")/../.." || exit 2
secs=${2:-5}
out=build/fuzz
mkdir -p "$out"
CLANG=${CLANG:-clang}
if ! command -v "$CLANG" >/dev/null 2>&1; then
	echo "not ok - fuzz: clang not found (make deps installs it)"
	exit 1
fi
# Seeds that need making: native copies of the v1 fixtures.
mkdir -p test/fuzz/seeds/native "$out/seeds/native"
if [ -x build/tools/pro_convert ]; then
	for f in test/data/*.pro; do
		build/tools/pro_convert "$f" "$out/seeds/native/$(basename "$f").nat" native 2>/dev/null
	done
fi
FLAGS="-g -O1 -std=c11 -D_GNU_SOURCE -I. -fsanitize=address,undefined -fno-sanitize-recover=undefined"
# core/*.c once for every target (was: compiled again into each of them,
# nine times the work, which ran past the test's time on a busy machine).
status=0
rm -rf "$out/core"
mkdir -p "$out/core"
if ! ls core/*.c | xargs -P 2 -I{} sh -c '$0 $1 -fsanitize=fuzzer-no-link -c -o "$2/$(basename {} .c).o" {}' \
	"$CLANG" "$FLAGS" "$out/core" > "$out/core.build.log" 2>&1; then
	echo "not ok - fuzz: core/*.c does not build for the fuzzers"
	sed 's/^/#   /' "$out/core.build.log" | head -20
	exit 1
fi
for src in test/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	case "${FUZZ_ONLY:-}" in ""|*"$name"*) ;; *) continue ;; esac
	extra=$(sed -n 's/.*FUZZ_EXTRA: *//p' "$src" | head -1)
	libs=$(sed -n 's/.*FUZZ_LIBS: *//p' "$src" | head -1)
	seeds=$(sed -n 's/.*FUZZ_SEEDS: *//p' "$src" | head -1 | sed 's|test/fuzz/seeds/|build/fuzz/seeds/|g')
	bin=$out/$name
	# shellcheck disable=SC2086
	if ! $CLANG $FLAGS -fsanitize=fuzzer -o "$bin" "$src" "$out"/core/*.o $extra -lz -lzstd -lpthread -lm $libs \
		> "$out/$name.build.log" 2>&1; then
		echo "not ok - fuzz $name: build failed"
		sed 's/^/#   /' "$out/$name.build.log" | head -20
		status=1
		continue
	fi
	reg=test/fuzz/regress/$name
	mkdir -p "$reg" "$out/corpus/$name"
	n=$(find "$reg" -type f | wc -l)
	if [ "$n" -gt 0 ]; then
		if "$bin" $(find "$reg" -type f) > "$out/$name.regress.log" 2>&1; then
			echo "ok - fuzz $name: $n kept crash inputs replay cleanly"
		else
			echo "not ok - fuzz $name: a kept crash input fails again"
			grep -a -m5 -E "ERROR|runtime error|Running" "$out/$name.regress.log" | sed 's/^/#   /'
			status=1
		fi
	fi
	for s in $seeds; do [ -f "$s" ] && cp "$s" "$out/corpus/$name/" 2>/dev/null; done
	if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$reg/" \
		"$out/corpus/$name" > "$out/$name.log" 2>&1; then
		runs=$(grep -a -o "Done [0-9]* runs" "$out/$name.log" | tail -1)
		echo "ok - fuzz $name: ${secs}s, ${runs:-no run count}, no crash"
	else
		echo "not ok - fuzz $name: crash (input kept in $reg/)"
		grep -a -m5 -E "ERROR|runtime error|SUMMARY" "$out/$name.log" | sed 's/^/#   /'
		status=1
	fi
done
exit $status
