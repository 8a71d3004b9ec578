#!/usr/bin/env python3
# evil_pprof.py OUT: a gzipped pprof profile whose function, module and file
# names hold terminal control sequences (OSC title, SGR colour, erase
# screen), for names_safe.sh. 2 objects of 1 KiB at evil, 1 of 512 B at red.
import gzip, sys
def varint(n):
    out = b''
    while True:
        b = n & 0x7f; n >>= 7
        if n: out += bytes([b | 0x80])
        else: return out + bytes([b])
def field(num, wt, payload):
    key = varint(num << 3 | wt)
    if wt == 0: return key + varint(payload)
    return key + varint(len(payload)) + payload
def msg(*fs): return b''.join(fs)
strs = [b'', b'alloc_objects', b'count', b'alloc_space', b'bytes', b'inuse_objects', b'inuse_space',
        b'evil\x1b]0;PWNED\x07fn', b'red\x1b[31mfn', b'/lib/ev\x1b[2Jil.so', b'main', b'src\x1b[1m.c']
def s(x): return strs.index(x)
p = b''
for t, u in [(b'alloc_objects', b'count'), (b'alloc_space', b'bytes'), (b'inuse_objects', b'count'), (b'inuse_space', b'bytes')]:
    p += field(1, 2, msg(field(1, 0, s(t)), field(2, 0, s(u))))
def packed(vals): return b''.join(varint(v) for v in vals)
p += field(2, 2, msg(field(1, 2, packed([1, 3])), field(2, 2, packed([2, 2048, 2, 2048]))))
p += field(2, 2, msg(field(1, 2, packed([2, 3])), field(2, 2, packed([1, 512, 1, 512]))))
p += field(3, 2, msg(field(1, 0, 1), field(2, 0, 0x400000), field(3, 0, 0x500000), field(5, 0, s(b'/lib/ev\x1b[2Jil.so'))))
for lid, fid, addr in [(1, 1, 0x401000), (2, 2, 0x402000), (3, 3, 0x403000)]:
    p += field(4, 2, msg(field(1, 0, lid), field(2, 0, 1), field(3, 0, addr), field(4, 2, msg(field(1, 0, fid), field(2, 0, 7)))))
for fid, name in [(1, b'evil\x1b]0;PWNED\x07fn'), (2, b'red\x1b[31mfn'), (3, b'main')]:
    p += field(5, 2, msg(field(1, 0, fid), field(2, 0, s(name)), field(3, 0, s(name)), field(4, 0, s(b'src\x1b[1m.c'))))
for x in strs: p += field(6, 2, x)
open(sys.argv[1], 'wb').write(gzip.compress(p))
