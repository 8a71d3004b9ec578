/* callgraph.c - callers/callees of a node in one pass over the samples. */
#include "core/callgraph.h"

#include <stdlib.h>
#include <string.h>

long stack_nodes(const prof *p, const prof_nodemap *m, uint32_t stack, uint32_t **buf, size_t *cap)
{
	const prof_stack *st = &p->stacks.v[stack];
	const uint32_t *fr = p->stack_frames.v + st->off;
	size_t n = 0;
	for (uint32_t d = 0; d < st->depth; d++) {
		uint32_t f = fr[d];
		size_t k0 = m->off[f], k1 = m->off[f + 1];
		if (vec_grow((void **)buf, cap, n + (k1 - k0), sizeof(**buf)))
			return -1;
		for (size_t k = k0; k < k1; k++)
			(*buf)[n++] = m->nodes[k];
	}
	return (long)n;
}

/* Dense accumulator for one side (callers or callees): node -> edge slot. */
typedef struct side {
	uint32_t *slot;     /* node -> index + 1 into e, 0 = none */
	uint32_t *stamp;    /* node -> last sample counted (once per stack) */
	cg_edge *e;
	size_t n, cap;
} side;

static int side_add(side *s, uint32_t node, uint32_t mark, const int64_t v[AGG_NMETRIC], uint8_t seen)
{
	if (s->stamp[node] == mark)
		return 0;
	s->stamp[node] = mark;
	if (!s->slot[node]) {
		if (vec_grow((void **)&s->e, &s->cap, s->n + 1, sizeof(*s->e)))
			return -1;
		memset(&s->e[s->n], 0, sizeof(s->e[0]));
		s->e[s->n].node = node;
		s->slot[node] = (uint32_t)++s->n;
	}
	cg_edge *e = &s->e[s->slot[node] - 1];
	e->seen |= seen;
	for (int k = 0; k < AGG_NMETRIC; k++)
		agg_add(&e->v[k], v[k]);
	return 0;
}

int callgraph_compute(callgraph *cg, const prof *p, const prof_nodemap *m, uint32_t node)
{
	memset(cg, 0, sizeof(*cg));
	cg->node = node;
	size_t nn = m->nnodes ? m->nnodes : 1;
	side s[2] = { { 0 } };   /* [0] callers, [1] callees */
	uint32_t *buf = NULL;
	size_t cap = 0;
	int rc = -1;
	for (int i = 0; i < 2; i++) {
		s[i].slot = calloc(nn, sizeof(uint32_t));
		s[i].stamp = calloc(nn, sizeof(uint32_t));
		if (!s[i].slot || !s[i].stamp)
			goto out;
	}
	if (node >= m->nnodes) {
		rc = 0;
		goto out;
	}
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *sm = &p->samples.v[i];
		long n = stack_nodes(p, m, sm->stack, &buf, &cap);
		if (n < 0)
			goto out;
		long at = -1;
		for (long d = 0; d < n; d++)
			if (buf[d] == node) {
				at = d;
				break;
			}
		if (at < 0)
			continue;
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(sm, v);
		uint8_t seen = AGG_SEEN_ALLOC | ((v[AGG_INUSE_BYTES] || v[AGG_INUSE_OBJS]) ? AGG_SEEN_INUSE : 0);
		uint32_t mark = (uint32_t)i + 1;
		cg->seen |= seen;
		for (int k = 0; k < AGG_NMETRIC; k++) {
			agg_add(&cg->cum[k], v[k]);
			if (at == 0)
				agg_add(&cg->flat[k], v[k]);
		}
		/* Recursion: every occurrence adds its edges, each edge once per stack. */
		for (long d = at; d < n; d++) {
			if (buf[d] != node)
				continue;
			if (d + 1 < n && side_add(&s[0], buf[d + 1], mark, v, seen))
				goto out;
			if (d > 0 && side_add(&s[1], buf[d - 1], mark, v, seen))
				goto out;
		}
	}
	rc = 0;
out:
	free(buf);
	for (int i = 0; i < 2; i++) {
		free(s[i].slot);
		free(s[i].stamp);
	}
	if (rc) {
		free(s[0].e);
		free(s[1].e);
		memset(cg, 0, sizeof(*cg));
		return -1;
	}
	cg->callers = s[0].e;
	cg->ncallers = cg->ncallers_shown = s[0].n;
	cg->callees = s[1].e;
	cg->ncallees = cg->ncallees_shown = s[1].n;
	return 0;
}

static int sort_metric;
static uint8_t sort_mask;

static int edge_cmp(const void *pa, const void *pb)
{
	const cg_edge *x = pa, *y = pb;
	int sx = !!(x->seen & sort_mask), sy = !!(y->seen & sort_mask);
	if (sx != sy)
		return sy - sx;
	int64_t a = x->v[sort_metric], b = y->v[sort_metric];
	if (a != b)
		return a < b ? 1 : -1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static size_t count_seen(const cg_edge *e, size_t n, uint8_t mask)
{
	size_t k = 0;
	while (k < n && (e[k].seen & mask))
		k++;
	return k;
}

void callgraph_sort(callgraph *cg, enum agg_metric metric, uint8_t seen_mask)
{
	sort_metric = metric;
	sort_mask = seen_mask;
	if (cg->ncallers)
		qsort(cg->callers, cg->ncallers, sizeof(cg_edge), edge_cmp);
	if (cg->ncallees)
		qsort(cg->callees, cg->ncallees, sizeof(cg_edge), edge_cmp);
	cg->ncallers_shown = count_seen(cg->callers, cg->ncallers, seen_mask);
	cg->ncallees_shown = count_seen(cg->callees, cg->ncallees, seen_mask);
}

void callgraph_free(callgraph *cg)
{
	free(cg->callers);
	free(cg->callees);
	memset(cg, 0, sizeof(*cg));
}
