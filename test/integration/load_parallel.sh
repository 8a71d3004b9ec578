#!/bin/sh
# A big skynet (v1) dump is parsed by two threads, each from its own side of
# a record boundary found near the middle; the profile must be the one a
# single thread reads (MPROF_LOAD_THREADS=1), byte for byte, and hostile
# records at the split must get the single thread's answer too.
. "$(dirname "$0")/../lib.sh"
# gen KIND OUT: 120,000 buckets (~14 MB, over the 8 MB where the split
# starts), 3,000 named functions and some unnamed pcs in both halves;
# KIND puts a record of its kind across the middle of the sample section.
gen() {
	python3 - "$1" "$2" <<'PY'
import random, struct, sys
kind, out = sys.argv[1], sys.argv[2]
rnd = random.Random(37)
ids = [0x555500001000 + 16 * i for i in range(3000)]
table = b''.join(struct.pack('B', len(n)) + n + struct.pack('>Q', a)
                 for a, n in ((a, b'./bin/app(f%d+0x10) [0x%x]' % (i, a)) for i, a in enumerate(ids)))
def rec(ao, ab, fo, fb, pcs):
    return struct.pack('>5I', ao, ab, fo, fb, len(pcs)) + b''.join(struct.pack('>Q', p) for p in pcs)
recs = []
for i in range(120000):
    d = rnd.randint(1, 30)
    pcs = [rnd.choice(ids) if rnd.random() < 0.97 else 0x7f0000000000 + rnd.randint(0, 500) for _ in range(d)]
    ao = rnd.randint(1, 50); sz = rnd.choice((16, 32, 48, 64, 4096)); fo = rnd.randint(0, ao)
    recs.append(rec(ao, ao * sz, fo, fo * sz, pcs))
start = 8 + len(table)
def spanning():  # the record across the middle, and the middle
    body = sum(map(len, recs)); mid = start + body // 2; off = start
    for k, r in enumerate(recs):
        if off + len(r) > mid:
            return k, off, mid
        off += len(r)
if kind != 'plain':
    k, off, mid = spanning()
    # a deep record of unnamed pcs across the middle (the middle moves with it)
    recs[k] = rec(1, 64, 0, 0, [0x7e0000000000 + i for i in range(300)])
    k, off, mid = spanning()
    r = bytearray(recs[k])
    at = mid - off
    if kind == 'depth':      # its depth runs past the end of the file
        r[16:20] = struct.pack('>I', 0x7fffffff)
    elif kind == 'garbage':  # counts and pcs of nothing
        r[0:16] = b'\xff' * 16
        r[20:] = bytes(rnd.randrange(256) for _ in range(len(r) - 20))
    elif kind == 'false':    # inside it, from the middle on: records that look real
        assert 20 <= at and at + 8 * 36 <= len(r), (at, len(r))
        fake = b''.join(rec(1, 16, 0, 0, [ids[j], ids[j + 1]]) for j in range(8))
        r[at:at + len(fake)] = fake
    elif kind == 'zero':     # a record of depth 0 ends right at the middle
        r = bytearray(rec(3, 48, 1, 16, [ids[1]] * ((at - 20) // 8 - 3)))
        r += rec(2, 32, 0, 0, [])
    recs[k] = bytes(r)
body = table + b''.join(recs)
with open(out, 'wb') as f:
    f.write(struct.pack('>II', len(body) + 4, len(ids)) + body)
PY
}
# same NAME FILE: both loads give the same export, report, message and status.
same() {
	for t in 1 2; do
		MPROF_LOAD_THREADS=$t "$MPROF" --export=native -o "$TMP/$t.native" "$2" > /dev/null 2> "$TMP/$t.err"
		echo "status $?" >> "$TMP/$t.err"
		MPROF_LOAD_THREADS=$t "$MPROF" --no-symbols --top=flat --format=tsv "$2" > "$TMP/$t.tsv" 2>> "$TMP/$t.err"
	done
	expect_file_eq "$1: the same messages and status" "$TMP/2.err" "$TMP/1.err"
	expect_file_eq "$1: the same report" "$TMP/2.tsv" "$TMP/1.tsv"
	if [ -f "$TMP/1.native" ]; then
		cmp -s "$TMP/1.native" "$TMP/2.native"
		expect_eq "$1: the same profile, byte for byte (native export)" $? 0
	fi
	rm -f "$TMP/1.native" "$TMP/2.native"
}
gen plain "$TMP/plain.pro" || { not_ok "python3 could not write the dumps"; exit 0; }
same "120,000 buckets" "$TMP/plain.pro"
"$MPROF" --info "$TMP/plain.pro" | sed -n '/^AllocBytes/,$p' | tail -n +2 | wc -l > "$TMP/n"
expect_eq "120,000 buckets: every one read" "$(cat "$TMP/n")" 120000
expect_eq "120,000 buckets: exit 0" "$(grep -c 'status 0' "$TMP/1.err")" 1
gen depth "$TMP/depth.pro"
same "a depth past the end across the middle" "$TMP/depth.pro"
expect_match "a depth past the end across the middle: says so" "$(cat "$TMP/2.err")" "offset [0-9]+: sample depth 2147483647 runs past the end"
gen garbage "$TMP/garbage.pro"
same "a garbage record across the middle" "$TMP/garbage.pro"
gen false "$TMP/false.pro"
same "records that look real inside one across the middle" "$TMP/false.pro"
gen zero "$TMP/zero.pro"
same "a record of depth 0 at the middle" "$TMP/zero.pro"
