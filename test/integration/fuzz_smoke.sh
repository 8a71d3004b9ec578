#!/bin/sh
# Every fuzz target for a few seconds (make fuzz runs them longer), and every
# input that ever crashed one, replayed.
. "$(dirname "$0")/../lib.sh"
# The sanitized suite (B=build/san) has nothing to add: fuzzing is sanitized.
case "${B:-build}" in
*san*) echo "ok - fuzz # SKIP already run in the plain suite"; exit 0 ;;
esac
sh "$TOP/test/fuzz/run.sh" smoke "${FUZZ_SMOKE_SECONDS:-3}"
