/* pro_native.c - mprof's own format: the reader (pro_native_write.c
 * writes it).
 * Little-endian. "MPROFNAT", u32 version, u32 flags, then sections
 * {u32 tag, u32 reserved, u64 length, payload} ending with an END section;
 * unknown tags are skipped so later versions stay readable. The layout of
 * each section is in man/mprof-pro.5. */
#include "core/load.h"
#include "core/pro_native.h"

#include <string.h>


/* A bounds-checked cursor over one section. */
typedef struct cur {
	const uint8_t *d;
	size_t len, off, base;  /* base: file offset of d, for messages */
	int bad;
} cur;

static int need(cur *c, size_t n)
{
	if (c->bad || c->len - c->off < n) {
		c->bad = 1;
		return 0;
	}
	return 1;
}

static uint64_t get_le(cur *c, int n)
{
	if (!need(c, (size_t)n))
		return 0;
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | c->d[c->off + i];
	c->off += (size_t)n;
	return v;
}

static const char *get_bytes(cur *c, size_t n)
{
	if (!need(c, n))
		return NULL;
	const char *s = (const char *)c->d + c->off;
	c->off += n;
	return s;
}

static int read_meta(prof *p, cur *c)
{
	p->meta.pid = (int64_t)get_le(c, 8);
	p->meta.time = (int64_t)get_le(c, 8);
	uint64_t sc = get_le(c, 8);
	memcpy(&p->meta.scale, &sc, sizeof(sc));
	p->meta.dropped = get_le(c, 8);
	p->meta.unknown_frees = get_le(c, 8);
	p->meta.unknown_free_bytes = get_le(c, 8);
	uint32_t n = (uint32_t)get_le(c, 4);
	const char *s = get_bytes(c, n);
	if (c->bad)
		return -1;
	if (n && (p->meta.cmdline = prof_str(p, s, n)) == PROF_NONE)
		return -2;
	if (!(p->meta.scale > 0))
		p->meta.scale = 1.0;
	return 0;
}

static int read_mods(prof *p, cur *c)
{
	uint32_t n = (uint32_t)get_le(c, 4);
	if (!need(c, (size_t)n * 28))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t base = get_le(c, 8), size = get_le(c, 8), foff = get_le(c, 8);
		uint16_t pl = (uint16_t)get_le(c, 2);
		const char *path = get_bytes(c, pl);
		uint16_t bl = (uint16_t)get_le(c, 2);
		const char *bid = get_bytes(c, bl);
		if (c->bad)
			return -1;
		char pbuf[65536], bbuf[65536];
		memcpy(pbuf, path, pl);
		pbuf[pl] = 0;
		memcpy(bbuf, bid, bl);
		bbuf[bl] = 0;
		if (prof_module_add(p, pbuf, bbuf, base, size, foff) == PROF_NONE)
			return -2;
	}
	return 0;
}

static int read_frames(prof *p, cur *c)
{
	uint32_t n = (uint32_t)get_le(c, 4);
	if (!need(c, (size_t)n * 14))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t addr = get_le(c, 8);
		uint32_t mod = (uint32_t)get_le(c, 4);
		uint16_t nl = (uint16_t)get_le(c, 2);
		const char *name = nl == 0xffff ? NULL : get_bytes(c, nl);
		if (c->bad || (mod != PROF_NONE && mod >= p->modules.len))
			return -1;
		uint32_t f = prof_frame_intern(p, addr);
		if (f == PROF_NONE)
			return -2;
		if (f != i)
			return -1;   /* duplicate address: frame indices would shift */
		p->frames.v[f].module = mod;
		if (name && (p->frames.v[f].name = prof_str(p, name, nl)) == PROF_NONE)
			return -2;
	}
	return 0;
}

static int read_stacks(prof *p, cur *c)
{
	uint32_t n = (uint32_t)get_le(c, 4);
	if (!need(c, (size_t)n * 4))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t depth = (uint32_t)get_le(c, 4);
		if (!need(c, (size_t)depth * 4))
			return -1;
		uint32_t *dst = prof_stack_begin(p, depth);
		if (!dst)
			return -2;
		for (uint32_t k = 0; k < depth; k++) {
			dst[k] = (uint32_t)get_le(c, 4);
			if (dst[k] >= p->frames.len)
				return -1;
		}
		if (prof_stack_commit(p, depth) == PROF_NONE)
			return -2;
	}
	return 0;
}

static int read_samples(prof *p, cur *c)
{
	uint32_t n = (uint32_t)get_le(c, 4);
	if (!need(c, (size_t)n * 44))
		return -1;
	if (prof_vec_reserve(p->samples, n))
		return -2;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t st = (uint32_t)get_le(c, 4);
		uint64_t size = get_le(c, 8), ao = get_le(c, 8), ab = get_le(c, 8);
		uint64_t fo = get_le(c, 8), fb = get_le(c, 8);
		if (st >= p->stacks.len)
			return -1;
		if (prof_sample_add(p, st, size, ao, ab, fo, fb))
			return -2;
	}
	return 0;
}

/* PEAK follows SMPL: one (objects, bytes) per sample, in its order. */
static int read_peak(prof *p, cur *c)
{
	prof_peak pk;
	pk.time_ns = (int64_t)get_le(c, 8);
	pk.start_ns = (int64_t)get_le(c, 8);
	pk.bytes = get_le(c, 8);
	pk.objs = get_le(c, 8);
	uint32_t n = (uint32_t)get_le(c, 4);
	if (c->bad || n != p->samples.len || !pk.time_ns || !need(c, (size_t)n * 16))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		p->samples.v[i].peak_objs = get_le(c, 8);
		p->samples.v[i].peak_bytes = get_le(c, 8);
	}
	p->meta.peak = pk;
	return 0;
}

int pro_native_read(prof *p, const prof_src *src, prof_error *err)
{
	const uint8_t *d = src->data;
	size_t len = src->len, off = 16;
	p->meta.format = PROF_FMT_NATIVE;
	if (len < 16 || memcmp(d, PRO_NATIVE_MAGIC, 8)) {
		prof_errorf(err, "%s: offset 0: not an mprof native profile", src->name);
		return -1;
	}
	uint32_t ver = d[8] | d[9] << 8 | d[10] << 16 | (uint32_t)d[11] << 24;
	if (ver != PRO_NATIVE_VERSION) {
		prof_errorf(err, "%s: offset 8: native format version %u, this mprof reads version %u",
			    src->name, ver, PRO_NATIVE_VERSION);
		return -1;
	}
	for (;;) {
		cur h = { .d = d, .len = len, .off = off };
		uint32_t tag = (uint32_t)get_le(&h, 4);
		get_le(&h, 4);
		uint64_t slen = get_le(&h, 8);
		if (h.bad) {
			prof_errorf(err, "%s: offset %zu: truncated (no end section)", src->name, off);
			return -1;
		}
		for (int k = 0; k < 4; k++) {
			uint8_t ch = (uint8_t)(tag >> (8 * k));
			if (!((ch >= 'A' && ch <= 'Z') || ch == ' ')) {
				prof_errorf(err, "%s: offset %zu: not a section header", src->name, off);
				return -1;
			}
		}
		if (slen > len - h.off) {
			prof_errorf(err, "%s: offset %zu: section of %llu bytes runs past the end",
				    src->name, off, (unsigned long long)slen);
			return -1;
		}
		cur c = { .d = d + h.off, .len = (size_t)slen, .base = h.off };
		int r = 0;
		switch (tag) {
		case T_META: r = read_meta(p, &c); break;
		case T_MODS: r = read_mods(p, &c); break;
		case T_FRMS: r = read_frames(p, &c); break;
		case T_STKS: r = read_stacks(p, &c); break;
		case T_SMPL: r = read_samples(p, &c); break;
		case T_PEAK: r = read_peak(p, &c); break;
		case T_END: return 0;
		default: break;
		}
		if (r == -2) {
			prof_errorf(err, "%s: offset %zu: out of memory", src->name, c.base + c.off);
			return -1;
		}
		if (r || c.bad) {
			prof_errorf(err, "%s: offset %zu: corrupt section '%.4s'", src->name,
				    c.base + c.off, (const char *)d + off);
			return -1;
		}
		prof_src_drop(src, off, h.off + (size_t)slen);
		off = h.off + (size_t)slen;
	}
}
