#!/bin/sh
# Every fuzz target for a few seconds (make fuzz runs them longer), and every
# input that ever crashed one, replayed.
. "$(dirname "$0")/../lib.sh"
sh "$TOP/test/fuzz/run.sh" smoke "${FUZZ_SMOKE_SECONDS:-4}"
