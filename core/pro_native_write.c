/* pro_native_write.c - mprof's own format: the writer.  It never allocates
 * (the hook's dumps use it from inside the allocator, and from a signal
 * handler): output goes through an mmap'd buffer.  The layout is in
 * man/mprof-pro.5. */
#include "core/load.h"
#include "core/pro_native.h"
#include "core/wbuf.h"

#include <errno.h>
#include <string.h>

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
		wbuf_le64(w, s->c.alloc_objs);
		wbuf_le64(w, s->c.alloc_bytes);
		wbuf_le64(w, s->c.free_objs);
		wbuf_le64(w, s->c.free_bytes);
	}
	if (p->meta.peak.time_ns) {   /* after SMPL: one entry per sample */
		section(w, T_PEAK, 36 + 16ull * p->samples.len);
		wbuf_le64(w, (uint64_t)p->meta.peak.time_ns);
		wbuf_le64(w, (uint64_t)p->meta.peak.start_ns);
		wbuf_le64(w, p->meta.peak.bytes);
		wbuf_le64(w, p->meta.peak.objs);
		wbuf_le32(w, (uint32_t)p->samples.len);
		for (size_t i = 0; i < p->samples.len; i++) {
			wbuf_le64(w, p->samples.v[i].peak_objs);
			wbuf_le64(w, p->samples.v[i].peak_bytes);
		}
	}
	section(w, T_END, 0);
	int e = wbuf_close(w);
	if (e) {
		prof_errorf(err, "write failed: %s", strerror(e));
		errno = e;   /* for callers that say it themselves (the hook's dumps) */
		return -1;
	}
	return 0;
}
