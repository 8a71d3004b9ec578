/* serve_heap.c - a hooked process's heap as Go's /debug/pprof/heap serves
 * one: gzipped pprof (or debug=1 text), now or grown over a window. */
#include "attach/serve/serve_heap.h"
#include "attach/live/listing.h"
#include "attach/proc/procfs.h"
#include "attach/live/segment_read.h"
#include "core/diff.h"
#include "core/export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void err_set(serve_err *err, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err_set(serve_err *err, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->e.msg, sizeof(err->e.msg), fmt, ap);
	va_end(ap);
	err->status = status;
}

prof *serve_heap_take(const char *dir, int pid, serve_err *err)
{
	listing_entry *e = malloc(sizeof(*e));
	if (!e) {
		err_set(err, 500, "out of memory");
		return NULL;
	}
	prof *p = NULL;
	if (listing_entry_open(e, dir, pid)) {
		char proc[32];
		snprintf(proc, sizeof(proc), "/proc/%d", pid);
		if (access(proc, F_OK))
			err_set(err, 404, "no process %d", pid);
		else if (proc_gone(pid))   /* a zombie: its hook removed the segment at exit */
			err_set(err, 404, "process %d has exited", pid);
		else
			err_set(err, 404, "process %d does not run under libmprof.so (no %s)", pid, e->path);
	} else if (!e->mine) {
		err_set(err, 403, "process %d: %s belongs to another user", pid, e->path);
	} else if (!e->alive) {
		err_set(err, 404, "process %d %s (%s is what its hook left)", pid, e->why, e->path);
	} else if (!e->ok) {
		err_set(err, 500, "process %d: %s", pid, e->err.msg);
	} else if (!(p = seg_to_prof(e->m.h, e->m.len, e->m.name, &err->e))) {
		err->status = 500;
	}
	listing_entry_close(e);
	free(e);
	return p;
}

prof *serve_heap_delta(const prof *p0, const prof *p1, serve_err *err)
{
	prof *d = diff_build(p0, p1, &err->e);
	if (!d) {
		err->status = 500;
		return NULL;
	}
	/* A sample none of whose counters moved is no growth: leave it out, as
	 * pprof's merge of the two does. */
	size_t k = 0;
	for (size_t i = 0; i < d->samples.len; i++) {
		const mp_counts *c = &d->samples.v[i].c;
		if (c->alloc_objs || c->alloc_bytes || c->free_objs || c->free_bytes)
			d->samples.v[k++] = d->samples.v[i];
	}
	d->samples.len = k;
	return d;
}

/* A resolver over p against pid's modules; NULL (err 500) on ENOMEM. */
static sym *heap_sym(const prof *p, int pid, const sym_opts *so, serve_err *err)
{
	sym_opts o = *so;
	o.pid = pid;
	sym *s = sym_open(p, &o);
	if (!s)
		err_set(err, 500, "out of memory");
	return s;
}

int serve_heap_pprof(const prof *p, int pid, serve_syms *syms, const char *dflt, serve_err *err)
{
	int fd = memfd_create("mprof-serve", MFD_CLOEXEC);
	if (fd < 0) {
		err_set(err, 500, "memfd_create: %s", strerror(errno));
		return -1;
	}
	sym *s;
	export_lines lines;
	serve_sym_use *u = serve_syms_get(syms, p, pid, &s, &lines);
	if (!u) {
		err_set(err, 500, "out of memory");
		close(fd);
		return -1;
	}
	/* Frames the symbols do not know keep their recorded names. */
	int rc = export_pprof_as(fd, p, NULL, &lines, dflt, &err->e);
	serve_syms_release(syms, u);
	if (rc || lseek(fd, 0, SEEK_SET) < 0) {
		err->status = 500;
		close(fd);
		return -1;
	}
	return fd;
}

/* One stack's "#" lines: per frame, its inline chain innermost first, as
 * "#\t0xPC\tfunc+0xOFF\tfile:line" (Go prints pc - 1 of return addresses). */
static void text_stack(FILE *out, const prof *p, sym *s, uint32_t st)
{
	const uint32_t *fr = prof_stack_frames(p, st);
	for (uint32_t d = 0; d < p->stacks.v[st].depth; d++) {
		const sym_info *si = sym_frame(s, fr[d]);
		if (!si)
			continue;
		uint64_t pc = si->addr ? si->addr - 1 : 0, off = 0;
		const char *name;
		size_t nlen;
		int have_off = !sym_frame_symbol(s, fr[d], &name, &nlen, &off);
		for (uint32_t k = 0; k < si->nchain; k++) {
			const sym_loc *l = &si->chain[k];
			const char *fn = l->func ? l->func : sym_func_name(si);
			fprintf(out, "#\t%#" PRIx64 "\t%s", pc, fn);
			if (have_off && k + 1 == si->nchain)
				fprintf(out, "+%#" PRIx64, off ? off - 1 : 0);
			fprintf(out, "\t%s:%d\n", l->file ? l->file : "?", l->line);
		}
	}
}

int serve_heap_text(const prof *p, int pid, const sym_opts *so, char **out, size_t *len, serve_err *err)
{
	sym *s = heap_sym(p, pid, so, err);
	if (!s)
		return -1;
	FILE *f = open_memstream(out, len);
	if (!f) {
		sym_close(s);
		err_set(err, 500, "out of memory");
		return -1;
	}
	int64_t t[AGG_NMETRIC] = { 0 };
	for (size_t i = 0; i < p->samples.len; i++) {
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(&p->samples.v[i], v);
		for (int k = 0; k < AGG_NMETRIC; k++)
			t[k] += v[k];
	}
	/* heap/2: Go's 2 x MemProfileRate with a rate of 1, so that readers
	 * take the counts as they are (already estimates when sampled). */
	fprintf(f, "heap profile: %" PRId64 ": %" PRId64 " [%" PRId64 ": %" PRId64 "] @ heap/2\n", t[AGG_INUSE_OBJS],
		t[AGG_INUSE_BYTES], t[AGG_ALLOC_OBJS], t[AGG_ALLOC_BYTES]);
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *sa = &p->samples.v[i];
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(sa, v);
		fprintf(f, "%" PRId64 ": %" PRId64 " [%" PRId64 ": %" PRId64 "] @", v[AGG_INUSE_OBJS], v[AGG_INUSE_BYTES],
			v[AGG_ALLOC_OBJS], v[AGG_ALLOC_BYTES]);
		const uint32_t *fr = prof_stack_frames(p, sa->stack);
		for (uint32_t d = 0; d < p->stacks.v[sa->stack].depth; d++)
			fprintf(f, " %#" PRIx64, p->frames.v[fr[d]].addr);
		fputc('\n', f);
		text_stack(f, p, s, sa->stack);
		fputc('\n', f);
	}
	fprintf(f, "# mprof: process %d, %zu samples", pid, p->samples.len);
	if (p->meta.scale > 1)
		fprintf(f, ", sampled every %.0f bytes (counts are estimates)", p->meta.scale);
	fputc('\n', f);
	sym_close(s);
	if (fclose(f)) {
		free(*out);
		*out = NULL;
		err_set(err, 500, "out of memory");
		return -1;
	}
	return 0;
}
