/* callgraph.c - callers/callees of a node in one pass over the samples
 * (two halves on two threads for big profiles); only the stacks that hold
 * the node are expanded. */
#include "core/callgraph.h"
#include "core/parts.h"
#include "core/u64map.h"

#include <stdlib.h>
#include <string.h>

/* stack_nodes, and into *fbuf (when fbuf) the frame each node is in. */
static long stack_expand(const prof *p, const prof_nodemap *m, uint32_t stack, uint32_t **buf, size_t *cap,
			 uint32_t **fbuf, size_t *fcap)
{
	const prof_stack *st = &p->stacks.v[stack];
	const uint32_t *fr = p->stack_frames.v + st->off;
	size_t n = 0;
	for (uint32_t d = 0; d < st->depth; d++) {
		uint32_t f = fr[d];
		size_t k0 = m->off[f], k1 = m->off[f + 1];
		if (vec_grow((void **)buf, cap, n + (k1 - k0), sizeof(**buf)) ||
		    (fbuf && vec_grow((void **)fbuf, fcap, n + (k1 - k0), sizeof(**fbuf))))
			return -1;
		for (size_t k = k0; k < k1; k++) {
			if (fbuf)
				(*fbuf)[n] = f;
			(*buf)[n++] = m->nodes[k];
		}
	}
	return (long)n;
}

long stack_nodes(const prof *p, const prof_nodemap *m, uint32_t stack, uint32_t **buf, size_t *cap)
{
	return stack_expand(p, m, stack, buf, cap, NULL, NULL);
}

/* What one frame carries on one edge: the candidates for its site. */
typedef struct cg_site {
	uint32_t node, frame;   /* the edge's node; the frame the edge is made in */
	uint32_t stamp;         /* last sample counted (once per stack) */
	int64_t v[AGG_NMETRIC];
} cg_site;

/* Dense accumulator for one side (callers or callees): node -> edge slot. */
typedef struct side {
	uint32_t *slot;     /* node -> index + 1 into e, 0 = none */
	uint32_t *stamp;    /* node -> last sample counted (once per stack) */
	cg_edge *e;
	size_t n, cap;
	u64map at;          /* node << 32 | frame -> index into site */
	cg_site *site;
	size_t nsite, site_cap;
	uint64_t last_key;  /* the key site_add saw last, at index last */
	uint32_t last;
} side;

/* Adds v and seen to the edge to node, made (last) when new. 0 or -1. */
static int side_put(side *s, uint32_t node, const int64_t v[AGG_NMETRIC], uint8_t seen)
{
	if (!s->slot[node]) {
		if (vec_grow((void **)&s->e, &s->cap, s->n + 1, sizeof(*s->e)))
			return -1;
		memset(&s->e[s->n], 0, sizeof(s->e[0]));
		s->e[s->n].node = node;
		memset(s->e[s->n].site, 0xff, sizeof(s->e[0].site));
		s->slot[node] = (uint32_t)++s->n;
	}
	cg_edge *e = &s->e[s->slot[node] - 1];
	e->seen |= seen;
	for (int k = 0; k < AGG_NMETRIC; k++)
		agg_add(&e->v[k], v[k]);
	return 0;
}

/* The same once per stack (mark: the sample's). */
static int side_add(side *s, uint32_t node, uint32_t mark, const int64_t v[AGG_NMETRIC], uint8_t seen)
{
	if (s->stamp[node] == mark)
		return 0;
	s->stamp[node] = mark;
	return side_put(s, node, v, seen);
}

/* Adds v to what frame carries on the edge to node, once per stack (mark;
 * 0: always, a merge). 0 or -1. */
static int site_add(side *s, uint32_t node, uint32_t frame, uint32_t mark, const int64_t v[AGG_NMETRIC])
{
	uint64_t key = (uint64_t)node << 32 | frame;
	/* Stacks in a row often share the edge and frame: no probe then. */
	size_t i = 0;
	uint32_t j = s->nsite && key == s->last_key ? s->last : U64MAP_NONE;
	if (j == U64MAP_NONE && s->at.vals)
		j = s->at.vals[i = u64map_slot(&s->at, key)];
	if (j == U64MAP_NONE) {
		if (vec_grow((void **)&s->site, &s->site_cap, s->nsite + 1, sizeof(*s->site)))
			return -1;
		j = (uint32_t)s->nsite;
		if (s->at.vals ? u64map_add_at(&s->at, i, key, j) : u64map_put(&s->at, key, j))
			return -1;
		s->site[s->nsite++] = (cg_site){ node, frame, 0, { 0 } };
	}
	s->last_key = key;
	s->last = j;
	cg_site *c = &s->site[j];
	if (mark && c->stamp == mark)
		return 0;
	c->stamp = mark;
	for (int k = 0; k < AGG_NMETRIC; k++)
		agg_add(&c->v[k], v[k]);
	return 0;
}

/* Each edge's site per metric from the candidates; at address granularity
 * (no candidates kept) the frame is the node: the caller's own, or at, the
 * centre's. 0 or -1 (ENOMEM). */
static int side_pick_sites(side *s, int identity, uint32_t at)
{
	if (identity) {
		for (size_t j = 0; j < s->n; j++)
			for (int k = 0; k < AGG_NMETRIC; k++)
				s->e[j].site[k] = at == UINT32_MAX ? s->e[j].node : at;
		return 0;
	}
	uint32_t (*best)[AGG_NMETRIC] = malloc((s->n ? s->n : 1) * sizeof(*best));
	if (!best)
		return -1;
	memset(best, 0xff, (s->n ? s->n : 1) * sizeof(*best));
	for (size_t j = 0; j < s->nsite; j++) {
		const cg_site *c = &s->site[j];
		size_t ei = s->slot[c->node] - 1;
		for (int k = 0; k < AGG_NMETRIC; k++) {
			const cg_site *b = best[ei][k] == UINT32_MAX ? NULL : &s->site[best[ei][k]];
			uint64_t mc = agg_magnitude(c->v[k]), mb = b ? agg_magnitude(b->v[k]) : 0;
			if (!b || mc > mb || (mc == mb && c->frame < b->frame)) {
				best[ei][k] = (uint32_t)j;
				s->e[ei].site[k] = c->frame;
			}
		}
	}
	free(best);
	return 0;
}

/* Per frame, 1 when the frame stands for node: most stacks lack the node
 * and are passed over without expanding them. NULL on ENOMEM. */
static uint8_t *frames_with(const prof_nodemap *m, uint32_t node)
{
	uint8_t *hit = calloc(m->nframes ? m->nframes : 1, 1);
	if (!hit)
		return NULL;
	for (uint32_t f = 0; f < m->nframes; f++)
		for (uint32_t k = m->off[f]; k < m->off[f + 1]; k++)
			if (m->nodes[k] == node)
				hit[f] = 1;
	return hit;
}

/* The first frame of stack that stands for the node (see frames_with),
 * or -1. */
static long stack_find(const prof *p, const uint8_t *hit, uint32_t stack)
{
	const prof_stack *st = &p->stacks.v[stack];
	const uint32_t *fr = p->stack_frames.v + st->off;
	for (uint32_t d = 0; d < st->depth; d++)
		if (hit[fr[d]])
			return d;
	return -1;
}

/* One slice of the samples with its own accumulators, merged after. */
typedef struct cg_part {
	const prof *p;
	const prof_nodemap *m;
	const uint8_t *hit;
	uint32_t node;
	size_t from, to;
	side s[2];          /* [0] callers, [1] callees */
	uint8_t seen;
	int64_t flat[AGG_NMETRIC], cum[AGG_NMETRIC];
	int rc;
} cg_part;

static void *cg_run(void *arg)
{
	cg_part *t = arg;
	const prof *p = t->p;
	const prof_nodemap *m = t->m;
	uint32_t node = t->node, *buf = NULL, *fbuf = NULL;
	size_t cap = 0, fcap = 0;
	t->rc = -1;
	for (size_t i = t->from; i < t->to; i++) {
		const prof_sample *sm = &p->samples.v[i];
		long at = stack_find(p, t->hit, sm->stack), n;
		if (at < 0)
			continue;
		const uint32_t *nodes, *frames;   /* frames[d]: the frame nodes[d] is in */
		if (m->identity) {   /* node == frame: the stack as it is */
			nodes = frames = prof_stack_frames(p, sm->stack);
			n = p->stacks.v[sm->stack].depth;
		} else {
			if ((n = stack_expand(p, m, sm->stack, &buf, &cap, &fbuf, &fcap)) < 0)
				goto out;
			nodes = buf;
			frames = fbuf;
			for (at = 0; at < n && nodes[at] != node; at++)
				;
		}
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(sm, v);
		uint8_t seen = AGG_SEEN_ALLOC | ((v[AGG_INUSE_BYTES] || v[AGG_INUSE_OBJS]) ? AGG_SEEN_INUSE : 0);
		uint32_t mark = (uint32_t)i + 1;
		t->seen |= seen;
		for (int k = 0; k < AGG_NMETRIC; k++) {
			agg_add(&t->cum[k], v[k]);
			if (at == 0)
				agg_add(&t->flat[k], v[k]);
		}
		/* Recursion: every occurrence adds its edges, each edge once per stack. */
		for (long d = at; d < n; d++) {
			if (nodes[d] != node)
				continue;
			/* A caller's site is in the caller, a callee's in the centre
			 * (by address, the frame is the node: nothing to weigh). */
			if (d + 1 < n && (side_add(&t->s[0], nodes[d + 1], mark, v, seen) ||
					  (!m->identity && site_add(&t->s[0], nodes[d + 1], frames[d + 1], mark, v))))
				goto out;
			if (d > 0 && (side_add(&t->s[1], nodes[d - 1], mark, v, seen) ||
				      (!m->identity && site_add(&t->s[1], nodes[d - 1], frames[d], mark, v))))
				goto out;
		}
	}
	t->rc = 0;
out:
	free(buf);
	free(fbuf);
	return NULL;
}

/* Adds the edges of b to a; b's new ones go after a's, in b's order, as
 * one pass over both slices would have found them. */
static int side_merge(side *a, const side *b)
{
	for (size_t j = 0; j < b->n; j++)
		if (side_put(a, b->e[j].node, b->e[j].v, b->e[j].seen))
			return -1;
	for (size_t j = 0; j < b->nsite; j++)
		if (site_add(a, b->site[j].node, b->site[j].frame, 0, b->site[j].v))
			return -1;
	return 0;
}

int callgraph_compute(callgraph *cg, const prof *p, const prof_nodemap *m, uint32_t node)
{
	memset(cg, 0, sizeof(*cg));
	cg->node = node;
	size_t nn = m->nnodes ? m->nnodes : 1;
	/* Big profiles are scanned in two halves on two threads, as agg does. */
	int nt = parts_for(p->samples.len), rc = -1;
	cg_part t[PARTS_MAX] = { { 0 } };
	uint8_t *hit = NULL;
	for (int i = 0; i < nt; i++)
		for (int k = 0; k < 2; k++) {
			t[i].s[k].slot = calloc(nn, sizeof(uint32_t));
			t[i].s[k].stamp = calloc(nn, sizeof(uint32_t));
			if (!t[i].s[k].slot || !t[i].s[k].stamp)
				goto out;
		}
	if (node >= m->nnodes) {
		rc = 0;
		goto out;
	}
	if (!(hit = frames_with(m, node)))
		goto out;
	for (int i = 0; i < nt; i++) {
		t[i].p = p;
		t[i].m = m;
		t[i].hit = hit;
		t[i].node = node;
		t[i].from = p->samples.len * (size_t)i / (size_t)nt;
		t[i].to = p->samples.len * (size_t)(i + 1) / (size_t)nt;
	}
	parts_run(cg_run, t, sizeof(t[0]), nt);
	for (int i = 0; i < nt; i++)
		if (t[i].rc)
			goto out;
	for (int i = 1; i < nt; i++) {
		t[0].seen |= t[i].seen;
		for (int k = 0; k < AGG_NMETRIC; k++) {
			agg_add(&t[0].cum[k], t[i].cum[k]);
			agg_add(&t[0].flat[k], t[i].flat[k]);
		}
		if (side_merge(&t[0].s[0], &t[i].s[0]) || side_merge(&t[0].s[1], &t[i].s[1]))
			goto out;
	}
	if (side_pick_sites(&t[0].s[0], m->identity, UINT32_MAX) || side_pick_sites(&t[0].s[1], m->identity, node))
		goto out;
	cg->seen = t[0].seen;
	memcpy(cg->cum, t[0].cum, sizeof(cg->cum));
	memcpy(cg->flat, t[0].flat, sizeof(cg->flat));
	cg->callers = t[0].s[0].e;
	cg->ncallers = cg->ncallers_shown = t[0].s[0].n;
	cg->callees = t[0].s[1].e;
	cg->ncallees = cg->ncallees_shown = t[0].s[1].n;
	t[0].s[0].e = t[0].s[1].e = NULL;
	rc = 0;
out:
	free(hit);
	for (int i = 0; i < nt; i++)
		for (int k = 0; k < 2; k++) {
			free(t[i].s[k].slot);
			free(t[i].s[k].stamp);
			free(t[i].s[k].e);
			u64map_free(&t[i].s[k].at);
			free(t[i].s[k].site);
		}
	if (rc)
		memset(cg, 0, sizeof(*cg));
	return rc;
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
