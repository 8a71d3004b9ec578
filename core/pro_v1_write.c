/* pro_v1_write.c - skynet-mprof's .pro format (v1): the writer.  It never
 * allocates (the hook's dumps use it from inside the allocator, and from a
 * signal handler): output goes through an mmap'd buffer.  The format is in
 * pro_v1.c's header and man/mprof-pro.5. */
#include "core/load.h"
#include "core/v1name.h"
#include "core/wbuf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A backtrace_symbols-style name for a frame that has none, so the
 * original tool can show where the address lives. */
static size_t v1_name(const prof *p, const prof_frame *f, char *buf, size_t cap)
{
	size_t n;
	if (f->name != PROF_NONE) {
		int k = snprintf(buf, cap, "%s", p->strs.v + f->name);
		n = k < 0 ? 0 : (size_t)k;
	} else if (f->module != PROF_NONE && f->module < p->modules.len) {
		const prof_module *m = &p->modules.v[f->module];
		n = v1name_format(buf, cap, p->strs.v + m->path, NULL, 0, f->addr - m->base + m->offset, f->addr);
	} else {
		n = v1name_format(buf, cap, NULL, NULL, 0, 0, f->addr);
	}
	return n < cap ? n : cap - 1;
}

int pro_v1_write(const prof *p, int fd, prof_error *err)
{
	wbuf *w = wbuf_open(fd);   /* mmap'd: the hook's threads have small stacks */
	char name[512];
	uint64_t body = 4;

	for (size_t i = 0; i < p->frames.len; i++) {
		size_t nl = v1_name(p, &p->frames.v[i], name, sizeof(name));
		body += 1 + (nl > PRO_V1_NAME_MAX ? PRO_V1_NAME_MAX : nl) + 8;
	}
	for (size_t i = 0; i < p->samples.len; i++)
		body += 20 + 8ull * p->stacks.v[p->samples.v[i].stack].depth;
	if (body > UINT32_MAX) {
		prof_errorf(err, "skynet v1 cannot hold %llu bytes (its length field is 32-bit)",
			    (unsigned long long)body);
		return -1;
	}
	if (!w) {
		prof_errorf(err, "out of memory for the write buffer");
		return -1;
	}
	wbuf_be32(w, (uint32_t)body);
	wbuf_be32(w, (uint32_t)p->frames.len);
	for (size_t i = 0; i < p->frames.len; i++) {
		size_t nl = v1_name(p, &p->frames.v[i], name, sizeof(name));
		if (nl > PRO_V1_NAME_MAX)
			nl = PRO_V1_NAME_MAX;   /* the original truncates the same way */
		uint8_t l = (uint8_t)nl;
		wbuf_put(w, &l, 1);
		wbuf_put(w, name, nl);
		wbuf_be64(w, p->frames.v[i].addr);
	}
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *s = &p->samples.v[i];
		const prof_stack *st = &p->stacks.v[s->stack];
		/* v1 counters are 32-bit and wrap, exactly as the original's do. */
		wbuf_be32(w, (uint32_t)s->c.alloc_objs);
		wbuf_be32(w, (uint32_t)s->c.alloc_bytes);
		wbuf_be32(w, (uint32_t)s->c.free_objs);
		wbuf_be32(w, (uint32_t)s->c.free_bytes);
		wbuf_be32(w, st->depth);
		for (uint32_t k = 0; k < st->depth; k++)
			wbuf_be64(w, p->frames.v[p->stack_frames.v[st->off + k]].addr);
	}
	int e = wbuf_close(w);
	if (e) {
		prof_errorf(err, "write failed: %s", strerror(e));
		errno = e;   /* for callers that say it themselves (the hook's dumps) */
		return -1;
	}
	return 0;
}
