#!/bin/sh
# Hostile and huge input: refused quickly with one line, never a crash or an
# out-of-memory kill. The 10 GB files are sparse: they take no disk.
. "$(dirname "$0")/../lib.sh"
f=$TMP/huge.pro
truncate -s 10G "$f"
printf '\0\0\0\0\0\0\0\0' | dd of="$f" conv=notrunc status=none
run_status timeout 20 "$MPROF" --top=flat "$f"
expect_eq "10 GB v1-looking file: exit 2" "$STATUS" 2
expect_match "10 GB v1-looking file: says why" "$ERR" "$f: offset 0: (length field says 4 bytes|not a profile format)"
printf 'MPROFNAT\001\0\0\0\0\0\0\0' | dd of="$f" conv=notrunc status=none
run_status timeout 20 "$MPROF" --top=flat "$f"
expect_eq "10 GB native file of zeros: exit 2" "$STATUS" 2
expect_match "10 GB native file of zeros: refused at the first section" "$ERR" "$f: offset 16: not a section header"
# 1 GiB read before the refusal: slow under the sanitizers on a busy machine.
run_status timeout 90 "$MPROF" --top=flat /dev/zero
expect_eq "/dev/zero: refused (exit 2)" "$STATUS" 2
expect_match "/dev/zero: says why" "$ERR" "/dev/zero: offset [0-9]+: streamed input over 1024 MiB refused"
# Counts that claim more than the file holds.
printf 'MPROFNAT\001\0\0\0\0\0\0\0SMPL\0\0\0\0\004\0\0\0\0\0\0\0\377\377\377\377END \0\0\0\0\0\0\0\0\0\0\0\0' > "$f"
run_status "$MPROF" --top=flat "$f"
expect_eq "native: 2^32 samples claimed in 4 bytes: exit 2" "$STATUS" 2
expect_match "native: corrupt section named" "$ERR" "offset [0-9]+: corrupt section 'SMPL'"
