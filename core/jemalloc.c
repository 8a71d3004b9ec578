/* jemalloc.c - jemalloc's heap_v2 dump (prof.dump, prof_final):
 *   heap_v2/PERIOD
 *     t*: objs: bytes [objs: bytes]        totals, then one tN: per thread
 *   @ pc pc ...                            one record per stack, leaf first
 *     t*: inuse_objs: inuse_bytes [alloc_objs: alloc_bytes]
 *     tN: ...                              per thread (the t*: line sums them)
 *   MAPPED_LIBRARIES:                      /proc/self/maps
 * jemalloc's own frames at the leaf are dropped, as jeprof does; we know them
 * by their module (libjemalloc*) rather than by jeprof's list of names. */
#include "core/foreign.h"

#include <stdlib.h>
#include <string.h>

#include "core/heap_scale.h"
#include "core/maps.h"

/* "t*: a: b [c: d]" after the "t*:" or "tN:" tag was consumed. */
static int counts(tspan *l, uint64_t v[4])
{
	return tspan_dec(l, &v[0], NULL) && tspan_lit(l, ":") && tspan_dec(l, &v[1], NULL) &&
	       tspan_lit(l, "[") && tspan_dec(l, &v[2], NULL) && tspan_lit(l, ":") &&
	       tspan_dec(l, &v[3], NULL) && tspan_lit(l, "]") && tspan_empty(*l);
}

static int is_jemalloc(const prof *p, uint64_t pc)
{
	uint32_t m = prof_module_find(p, pc);
	return m != PROF_NONE && maps_module_is(p, m, "libjemalloc");
}

int jemalloc_read(prof *p, const prof_src *src, prof_error *err)
{
	tscan t;
	tspan l;
	uint64_t rate, v[4];
	uint64_t *pcs = NULL;
	size_t npc = 0, cap = 0;
	int rc = -1, open = 0;
	size_t end = src->len;

	p->meta.format = PROF_FMT_JEMALLOC;
	tscan_init(&t, src->data, src->len);
	if (!tscan_line(&t, &l) || !tspan_lit(&l, "heap_v2/") || !tspan_dec(&l, &rate, NULL) || !tspan_empty(l)) {
		prof_errorf(err, "%s: line 1: expected 'heap_v2/PERIOD'", src->name);
		return -1;
	}
	if (rate > 1)
		p->meta.scale = (double)rate;
	/* Modules first: dropping jemalloc's frames needs them. */
	const char *mk = memmem(src->data, src->len, "\nMAPPED_LIBRARIES:", 18);
	if (mk) {
		end = (size_t)(mk - (const char *)src->data) + 1;
		tscan mt;
		tscan_init(&mt, src->data, src->len);
		mt.off = end;
		for (size_t i = 0; i < end; i++)
			mt.line += src->data[i] == '\n';
		tscan_line(&mt, &l);
		if (maps_read(p, &mt, src->name, err))
			return -1;
	}
	t.len = end;
	while (tscan_line(&t, &l)) {
		if (tspan_empty(l))
			continue;
		tspan_ws(&l);
		if (*l.s == '@') {
			if (open) {
				prof_errorf(err, "%s: line %lu: stack without a 't*:' line before it", src->name, t.line);
				goto out;
			}
			l.s++;
			npc = 0;
			uint64_t pc;
			while (!tspan_empty(l)) {
				if (!tspan_hex(&l, &pc) || (l.s < l.e && *l.s != ' ' && *l.s != '\t')) {
					prof_errorf(err, "%s: line %lu: bad address", src->name, t.line);
					goto out;
				}
				if (vec_grow((void **)&pcs, &cap, npc + 1, sizeof(*pcs)))
					goto nomem;
				pcs[npc++] = pc;
			}
			open = 1;
			continue;
		}
		if (*l.s != 't') {
			prof_errorf(err, "%s: line %lu: expected '@ addresses' or 'tN: counts'", src->name, t.line);
			goto out;
		}
		int star = tspan_lit(&l, "t*:");
		if (!star) {
			uint64_t tid;
			l.s++;
			if (!tspan_dec(&l, &tid, NULL) || !tspan_lit(&l, ":")) {
				prof_errorf(err, "%s: line %lu: expected 't*:' or 'tN:'", src->name, t.line);
				goto out;
			}
		}
		if (!counts(&l, v)) {
			prof_errorf(err, "%s: line %lu: expected 'N: N [N: N]'", src->name, t.line);
			goto out;
		}
		if (!star || !open)
			continue;   /* per-thread lines and the file's totals */
		open = 0;
		size_t first = 0;
		while (first < npc && is_jemalloc(p, pcs[first]))
			first++;
		uint32_t depth = (uint32_t)(npc - first);
		uint32_t st = PROF_NONE, *dst = depth ? prof_stack_begin(p, depth) : NULL;
		if (depth && !dst)
			goto nomem;
		for (uint32_t i = 0; i < depth; i++)
			if ((dst[i] = prof_frame_intern(p, pcs[first + i])) == PROF_NONE)
				goto nomem;
		st = depth ? prof_stack_commit(p, depth) : prof_stack_nostack(p);
		if (st == PROF_NONE)
			goto nomem;
		uint64_t size = v[2] ? v[3] / v[2] : v[0] ? v[1] / v[0] : 0;
		if (rate > 1) {
			heap_scale(&v[0], &v[1], rate);
			heap_scale(&v[2], &v[3], rate);
		}
		if (prof_sample_add(p, st, size, v[2], v[3], v[2] - v[0], v[3] - v[1]))
			goto nomem;
	}
	if (open) {
		prof_errorf(err, "%s: line %lu: the last stack has no 't*:' line", src->name, t.line);
		goto out;
	}
	maps_assign_frames(p);
	rc = 0;
	goto out;
nomem:
	prof_errorf(err, "%s: line %lu: out of memory", src->name, t.line);
out:
	free(pcs);
	return rc;
}
