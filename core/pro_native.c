/* pro_native.c - mprof's own format: reader and writer.
 * Little-endian. "MPROFNAT", u32 version, u32 flags, then sections
 * {u32 tag, u32 reserved, u64 length, payload} ending with an END section;
 * unknown tags are skipped so later versions stay readable. The layout of
 * each section is in man/mprof-pro.5. */
#include "core/load.h"
#include "core/wbuf.h"

#include <string.h>

#define TAG(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define T_META TAG('M', 'E', 'T', 'A')
#define T_MODS TAG('M', 'O', 'D', 'S')
#define T_FRMS TAG('F', 'R', 'M', 'S')
#define T_STKS TAG('S', 'T', 'K', 'S')
#define T_SMPL TAG('S', 'M', 'P', 'L')
#define T_END  TAG('E', 'N', 'D', ' ')

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

static void section(wbuf *w, uint32_t tag, uint64_t len)
{
	wbuf_le32(w, tag);
	wbuf_le32(w, 0);
	wbuf_le64(w, len);
}

static size_t slen(const prof *p, uint32_t off)
{
	return off == PROF_NONE ? 0 : strlen(p->strs.v + off);
}

/* Names are stored with a u16 length; 0xffff means "no name". */
static size_t name_len(const prof *p, uint32_t off)
{
	size_t n = slen(p, off);
	return n > 0xfffe ? 0xfffe : n;
}

int pro_native_write(const prof *p, int fd, prof_error *err)
{
	wbuf *w = wbuf_open(fd);
	if (!w) {
		prof_errorf(err, "out of memory for the write buffer");
		return -1;
	}
	wbuf_put(w, PRO_NATIVE_MAGIC, 8);
	wbuf_le32(w, PRO_NATIVE_VERSION);
	wbuf_le32(w, 0);

	size_t cl = slen(p, p->meta.cmdline);
	section(w, T_META, 48 + 4 + cl);
	uint64_t sc;
	memcpy(&sc, &p->meta.scale, sizeof(sc));
	wbuf_le64(w, (uint64_t)p->meta.pid);
	wbuf_le64(w, (uint64_t)p->meta.time);
	wbuf_le64(w, sc);
	wbuf_le64(w, p->meta.dropped);
	wbuf_le64(w, p->meta.unknown_frees);
	wbuf_le64(w, p->meta.unknown_free_bytes);
	wbuf_le32(w, (uint32_t)cl);
	if (cl)
		wbuf_put(w, p->strs.v + p->meta.cmdline, cl);

	uint64_t n = 4;
	for (size_t i = 0; i < p->modules.len; i++) {
		const prof_module *m = &p->modules.v[i];
		n += 28 + (slen(p, m->path) & 0xffff) + (slen(p, m->build_id) & 0xffff);
	}
	section(w, T_MODS, n);
	wbuf_le32(w, (uint32_t)p->modules.len);
	for (size_t i = 0; i < p->modules.len; i++) {
		const prof_module *m = &p->modules.v[i];
		size_t pl = slen(p, m->path) & 0xffff, bl = slen(p, m->build_id) & 0xffff;
		wbuf_le64(w, m->base);
		wbuf_le64(w, m->size);
		wbuf_le64(w, m->offset);
		wbuf_le16(w, (uint16_t)pl);
		wbuf_put(w, p->strs.v + m->path, pl);
		wbuf_le16(w, (uint16_t)bl);
		if (bl)
			wbuf_put(w, p->strs.v + m->build_id, bl);
	}

	n = 4;
	for (size_t i = 0; i < p->frames.len; i++)
		n += 14 + (p->frames.v[i].name == PROF_NONE ? 0 : name_len(p, p->frames.v[i].name));
	section(w, T_FRMS, n);
	wbuf_le32(w, (uint32_t)p->frames.len);
	for (size_t i = 0; i < p->frames.len; i++) {
		const prof_frame *f = &p->frames.v[i];
		wbuf_le64(w, f->addr);
		wbuf_le32(w, f->module);
		if (f->name == PROF_NONE) {
			wbuf_le16(w, 0xffff);
		} else {
			size_t nl = name_len(p, f->name);
			wbuf_le16(w, (uint16_t)nl);
			wbuf_put(w, p->strs.v + f->name, nl);
		}
	}

	section(w, T_STKS, 4 + 4ull * p->stacks.len + 4ull * p->stack_frames.len);
	wbuf_le32(w, (uint32_t)p->stacks.len);
	for (size_t i = 0; i < p->stacks.len; i++) {
		const prof_stack *st = &p->stacks.v[i];
		wbuf_le32(w, st->depth);
		for (uint32_t k = 0; k < st->depth; k++)
			wbuf_le32(w, p->stack_frames.v[st->off + k]);
	}

	section(w, T_SMPL, 4 + 44ull * p->samples.len);
	wbuf_le32(w, (uint32_t)p->samples.len);
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *s = &p->samples.v[i];
		wbuf_le32(w, s->stack);
		wbuf_le64(w, s->size);
		wbuf_le64(w, s->alloc_objs);
		wbuf_le64(w, s->alloc_bytes);
		wbuf_le64(w, s->free_objs);
		wbuf_le64(w, s->free_bytes);
	}
	section(w, T_END, 0);
	int e = wbuf_close(w);
	if (e) {
		prof_errorf(err, "write failed: %s", strerror(e));
		return -1;
	}
	return 0;
}
