/* snapdiff.c - snapshots and their per-sample differences; see snapdiff.h. */
#include "core/snapdiff.h"
#include "core/callgraph.h"

#include <stdlib.h>
#include <string.h>

int snap_take(snap *s, const prof *p, int number, int64_t wall, int64_t mono_ns)
{
	memset(s, 0, sizeof(*s));
	s->number = number;
	s->wall = wall;
	s->mono_ns = mono_ns;
	s->n = p->samples.len;
	s->c = malloc((s->n ? s->n : 1) * sizeof(*s->c));
	if (!s->c)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		const prof_sample *x = &p->samples.v[i];
		s->c[i] = x->c;
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(x, v);
		for (int m = 0; m < AGG_NMETRIC; m++)
			agg_add(&s->total[m], v[m]);
	}
	return 0;
}

void snap_free(snap *s)
{
	free(s->c);
	memset(s, 0, sizeof(*s));
}

/* Copies a PROF_VEC's elements into an empty one of the same type. */
#define VEC_COPY(dst, src) \
	(prof_vec_reserve(dst, (src).len) ? -1 \
	 : ((src).len ? (void)memcpy((dst).v, (src).v, (src).len * sizeof(*(src).v)) : (void)0, \
	    (dst).len = (src).len, 0))

static mp_counts counts_at(const prof *p, const snap *s, size_t i)
{
	if (!s) {
		const prof_sample *x = &p->samples.v[i];
		return x->c;
	}
	return i < s->n ? s->c[i] : (mp_counts){ 0, 0, 0, 0 };
}

/* Something of the sample is in use at that moment. */
static int counts_held(mp_counts c)
{
	return c.alloc_objs > c.free_objs || c.alloc_bytes > c.free_bytes;
}

prof *snap_delta(const prof *p, const snap *from, const snap *to, uint8_t **flags, prof_error *err)
{
	size_t n_to = to ? to->n : p->samples.len, n_from = from ? from->n : 0;
	if (flags)
		*flags = NULL;
	if (n_from > n_to || n_to > p->samples.len) {
		prof_errorf(err, "snapshot #%d is older than #%d", to ? to->number : 0, from ? from->number : 0);
		return NULL;
	}
	prof *d = prof_new();
	if (!d)
		goto nomem;
	d->meta = p->meta;
	d->meta.peak = (prof_peak){ 0 };   /* a difference has no moment of its own */
	/* Same frames, strings, modules and stacks: indices stay valid. */
	if (VEC_COPY(d->frames, p->frames) || VEC_COPY(d->stack_frames, p->stack_frames) ||
	    VEC_COPY(d->stacks, p->stacks) || VEC_COPY(d->modules, p->modules) || VEC_COPY(d->strs, p->strs))
		goto nomem;
	uint8_t *fl = NULL;
	if (flags) {
		fl = malloc(p->stacks.len ? p->stacks.len : 1);
		if (!fl)
			goto nomem;
		memset(fl, SNAP_STACK_NEW, p->stacks.len);
		*flags = fl;
	}
	for (size_t i = 0; i < n_to; i++) {
		const prof_sample *x = &p->samples.v[i];
		mp_counts a = from ? counts_at(p, from, i) : (mp_counts){ 0, 0, 0, 0 };
		mp_counts b = counts_at(p, to, i);
		if (fl && x->stack < p->stacks.len) {
			if (a.alloc_objs)
				fl[x->stack] &= (uint8_t)~SNAP_STACK_NEW;
			fl[x->stack] |= (counts_held(a) ? SNAP_STACK_HELD_FROM : 0) | (counts_held(b) ? SNAP_STACK_HELD_TO : 0);
		}
		if (b.alloc_objs == a.alloc_objs && b.free_objs == a.free_objs && b.alloc_bytes == a.alloc_bytes &&
		    b.free_bytes == a.free_bytes)
			continue;
		/* Counters only rise; a lower later value means a wrapped or
		 * reset source: count it as no change rather than 2^64. */
		uint64_t ao = b.alloc_objs >= a.alloc_objs ? b.alloc_objs - a.alloc_objs : 0;
		uint64_t ab = b.alloc_bytes >= a.alloc_bytes ? b.alloc_bytes - a.alloc_bytes : 0;
		uint64_t fo = b.free_objs >= a.free_objs ? b.free_objs - a.free_objs : 0;
		uint64_t fb = b.free_bytes >= a.free_bytes ? b.free_bytes - a.free_bytes : 0;
		if (prof_sample_add(d, x->stack, x->size, ao, ab, fo, fb))
			goto nomem;
	}
	d->meta.time = to ? to->wall : p->meta.time;
	return d;
nomem:
	if (flags) {
		free(*flags);
		*flags = NULL;
	}
	prof_free(d);
	prof_errorf(err, "snapshot diff: out of memory");
	return NULL;
}

/* Node bits gathered over the stacks through it. */
enum { ON_OLD = 1, ON_HELD_FROM = 2, ON_HELD_TO = 4 };

int snap_marks_nodes(const prof *d, const prof_nodemap *m, const uint8_t *flags, uint8_t *out)
{
	memset(out, 0, m->nnodes);
	uint32_t *buf = NULL;
	size_t cap = 0;
	for (uint32_t s = 0; s < d->stacks.len; s++) {
		uint8_t on = (flags[s] & SNAP_STACK_NEW ? 0 : ON_OLD) | (flags[s] & SNAP_STACK_HELD_FROM ? ON_HELD_FROM : 0) |
			     (flags[s] & SNAP_STACK_HELD_TO ? ON_HELD_TO : 0);
		if (!on)
			continue;
		long n = stack_nodes(d, m, s, &buf, &cap);
		if (n < 0) {
			free(buf);
			return -1;
		}
		for (long i = 0; i < n; i++)
			if (buf[i] < m->nnodes)
				out[buf[i]] |= on;
	}
	free(buf);
	for (uint32_t n = 0; n < m->nnodes; n++)
		out[n] = !(out[n] & ON_OLD) ? DIFF_MARK_NEW
			: (out[n] & (ON_HELD_FROM | ON_HELD_TO)) == ON_HELD_FROM ? DIFF_MARK_GONE : DIFF_MARK_NONE;
	return 0;
}
