/* agg.c - node maps and the flat/cum aggregation. */
#include "core/agg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parts.h"
#include "core/safetext.h"
#include "core/strix.h"

/* Node names are what every screen, report and export shows: control
 * bytes in them are escaped here, once (safetext.h). */
static uint32_t str_add(prof_nodemap *m, const char *s)
{
	size_t len = strlen(s);
	int safe = text_is_safe(s, len);
	size_t n = (safe ? len : text_escape(NULL, 0, s, len)) + 1;
	if (m->strs_len + n > UINT32_MAX - 1 || vec_grow((void **)&m->strs, &m->strs_cap, m->strs_len + n, 1))
		return UINT32_MAX;
	uint32_t off = (uint32_t)m->strs_len;
	if (safe)
		memcpy(m->strs + off, s, n);
	else
		text_escape(m->strs + off, n, s, len);
	m->strs_len += n;
	return off;
}

static const char *node_name(const void *m, uint32_t node)
{
	return nodemap_name(m, node);
}

int nodemap_begin(prof_nodemap *m, uint32_t nframes)
{
	memset(m, 0, sizeof(*m));
	m->nframes = nframes;
	m->off = calloc((size_t)nframes + 1, sizeof(*m->off));
	m->index = calloc(1, sizeof(strix));
	if (!m->off || !m->index || strix_init(m->index, 0, node_name, m)) {
		nodemap_free(m);
		return -1;
	}
	return 0;
}

uint32_t nodemap_node(prof_nodemap *m, const char *name, uint8_t flags)
{
	strix *ix = m->index;
	if (!ix)
		return UINT32_MAX;
	size_t len = strlen(name);
	if (!text_is_safe(name, len)) {
		/* Keyed by the name as shown, so one node whichever form it came in. */
		size_t n = text_escape(NULL, 0, name, len) + 1;
		char *esc = malloc(n);
		if (!esc)
			return UINT32_MAX;
		text_escape(esc, n, name, len);
		uint32_t id = nodemap_node(m, esc, flags);
		free(esc);
		return id;
	}
	size_t at;
	uint32_t found = strix_find(ix, name, strlen(name), &at);
	if (found != STRIX_NONE)
		return found;
	size_t cap = m->nnodes_cap;
	if (vec_grow((void **)&m->name, &cap, (size_t)m->nnodes + 1, sizeof(*m->name)))
		return UINT32_MAX;
	if (cap != m->nnodes_cap) {
		uint8_t *nf = realloc(m->flags, cap);
		if (!nf)
			return UINT32_MAX;
		m->flags = nf;
		m->nnodes_cap = cap;
	}
	uint32_t s = str_add(m, name);
	if (s == UINT32_MAX)
		return UINT32_MAX;
	uint32_t id = m->nnodes++;
	m->name[id] = s;
	m->flags[id] = flags;
	if (strix_add(ix, at, id))
		return UINT32_MAX;
	return id;
}

int nodemap_push(prof_nodemap *m, uint32_t node)
{
	if (vec_grow((void **)&m->nodes, &m->nodes_cap, m->nodes_len + 1, sizeof(*m->nodes)))
		return -1;
	m->nodes[m->nodes_len++] = node;
	return 0;
}

void nodemap_end_frame(prof_nodemap *m)
{
	if (m->cur < m->nframes)
		m->off[++m->cur] = (uint32_t)m->nodes_len;
}

void nodemap_free(prof_nodemap *m)
{
	if (m->index)
		strix_free(m->index);
	free(m->index);
	free(m->off);
	free(m->nodes);
	if (!m->names_borrowed) {
		free(m->name);
		free(m->flags);
		free(m->strs);
	}
	memset(m, 0, sizeof(*m));
}

int nodemap_stack_any(const prof_nodemap *m, const prof *p, uint32_t s, int (*hit)(const void *arg, uint32_t node),
		      const void *arg)
{
	const uint32_t *fr = prof_stack_frames(p, s);
	for (uint32_t d = 0; d < p->stacks.v[s].depth; d++)
		for (uint32_t k = m->off[fr[d]]; k < m->off[fr[d] + 1]; k++)
			if (hit(arg, m->nodes[k]))
				return 1;
	return 0;
}

int nodemap_by_address(prof_nodemap *m, const prof *p)
{
	char buf[32];
	if (nodemap_begin(m, (uint32_t)p->frames.len))
		return -1;
	/* Frames are distinct addresses, so one node each; names may repeat
	 * (v1 truncation), so nodes are not keyed by name here. */
	m->name = malloc((p->frames.len ? p->frames.len : 1) * sizeof(*m->name));
	m->flags = calloc(p->frames.len ? p->frames.len : 1, 1);
	m->nodes = malloc((p->frames.len ? p->frames.len : 1) * sizeof(*m->nodes));
	if (!m->name || !m->flags || !m->nodes) {
		nodemap_free(m);
		return -1;
	}
	m->nnodes_cap = m->nodes_cap = p->frames.len;
	for (uint32_t f = 0; f < p->frames.len; f++) {
		uint32_t s = str_add(m, prof_frame_name(p, f, buf, sizeof(buf)));
		if (s == UINT32_MAX) {
			nodemap_free(m);
			return -1;
		}
		m->name[f] = s;
		m->nodes[f] = f;
		m->off[f + 1] = f + 1;
	}
	m->nnodes = (uint32_t)p->frames.len;
	m->nodes_len = p->frames.len;
	m->cur = m->nframes;
	m->identity = 1;
	return 0;
}

/* One slice of the samples, summed into its own arrays. */
typedef struct agg_part {
	const prof *p;
	const prof_nodemap *m;
	size_t from, to;
	int64_t (*cum)[AGG_NMETRIC];   /* hot: touched per frame, kept apart from flat */
	int64_t (*flat)[AGG_NMETRIC];
	uint8_t *flags;
	uint32_t *stamp;       /* last sample that touched the node, + 1 */
	int64_t total[AGG_NMETRIC];
	uint64_t nsamples[2];
} agg_part;

static inline void add_cum(agg_part *t, uint32_t node, uint32_t mark, uint8_t seen, const int64_t *v)
{
	/* The stamp counts a node once per stack without a set per stack. */
	if (t->stamp[node] == mark)
		return;
	t->stamp[node] = mark;
	t->flags[node] |= seen;
	int64_t *c = t->cum[node];
	for (int k = 0; k < AGG_NMETRIC; k++)
		agg_add(&c[k], v[k]);
}

static void *agg_run(void *arg)
{
	agg_part *t = arg;
	const prof *p = t->p;
	const prof_nodemap *m = t->m;
	for (size_t i = t->from; i < t->to; i++) {
		const prof_sample *s = &p->samples.v[i];
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(s, v);
		/* The reference drops samples with nothing in use from inuse views. */
		int inuse = v[AGG_INUSE_BYTES] != 0 || v[AGG_INUSE_OBJS] != 0;
		uint8_t seen = AGG_SEEN_ALLOC | (inuse ? AGG_SEEN_INUSE : 0);
		uint8_t leaf = AGG_LEAF_ALLOC | (inuse ? AGG_LEAF_INUSE : 0);
		t->nsamples[0] += inuse;
		t->nsamples[1]++;
		for (int k = 0; k < AGG_NMETRIC; k++)
			agg_add(&t->total[k], v[k]);
		const prof_stack *st = &p->stacks.v[s->stack];
		if (!st->depth)
			continue;
		const uint32_t *fr = p->stack_frames.v + st->off;
		uint32_t mark = (uint32_t)i + 1;
		uint32_t lnode;
		if (m->identity) {
			for (uint32_t d = 0; d < st->depth; d++)
				add_cum(t, fr[d], mark, seen, v);
			lnode = fr[0];
		} else {
			lnode = UINT32_MAX;
			for (uint32_t d = 0; d < st->depth; d++) {
				uint32_t f = fr[d];
				for (uint32_t k = m->off[f]; k < m->off[f + 1]; k++) {
					if (lnode == UINT32_MAX)
						lnode = m->nodes[k];
					add_cum(t, m->nodes[k], mark, seen, v);
				}
			}
			if (lnode == UINT32_MAX)
				continue;
		}
		t->flags[lnode] |= leaf;
		for (int k = 0; k < AGG_NMETRIC; k++)
			agg_add(&t->flat[lnode][k], v[k]);
	}
	return NULL;
}

static int part_init(agg_part *t, size_t n)
{
	t->cum = calloc(n, sizeof(*t->cum));
	t->flat = calloc(n, sizeof(*t->flat));
	t->flags = calloc(n, 1);
	t->stamp = calloc(n, sizeof(*t->stamp));
	return t->cum && t->flat && t->flags && t->stamp ? 0 : -1;
}

int agg_compute(agg *a, const prof *p, const prof_nodemap *m)
{
	memset(a, 0, sizeof(*a));
	a->nnodes = m->nnodes;
	size_t n = m->nnodes ? m->nnodes : 1;
	/* Big profiles are summed in two halves on two threads, then merged. */
	int nt = parts_for(p->samples.len);
	agg_part t[PARTS_MAX] = { { 0 } };
	int rc = 0;
	for (int i = 0; i < nt; i++) {
		t[i].p = p;
		t[i].m = m;
		t[i].from = p->samples.len * (size_t)i / (size_t)nt;
		t[i].to = p->samples.len * (size_t)(i + 1) / (size_t)nt;
		if (part_init(&t[i], n))
			rc = -1;
	}
	if (!rc) {
		parts_run(agg_run, t, sizeof(t[0]), nt);
		a->v = malloc(n * sizeof(*a->v));
		a->flags = t[0].flags;
		t[0].flags = NULL;
		if (!a->v)
			rc = -1;
		for (int k = 0; k < AGG_NMETRIC; k++)
			a->total[k] = t[0].total[k];
		a->nsamples[0] = t[0].nsamples[0];
		a->nsamples[1] = t[0].nsamples[1];
		for (size_t x = 0; !rc && x < n; x++) {
			memcpy(a->v[x].flat, t[0].flat[x], sizeof(a->v[x].flat));
			memcpy(a->v[x].cum, t[0].cum[x], sizeof(a->v[x].cum));
		}
		for (int i = 1; !rc && i < nt; i++) {
			for (size_t x = 0; x < n; x++) {
				a->flags[x] |= t[i].flags[x];
				for (int k = 0; k < AGG_NMETRIC; k++) {
					agg_add(&a->v[x].flat[k], t[i].flat[x][k]);
					agg_add(&a->v[x].cum[k], t[i].cum[x][k]);
				}
			}
			for (int k = 0; k < AGG_NMETRIC; k++)
				agg_add(&a->total[k], t[i].total[k]);
			a->nsamples[0] += t[i].nsamples[0];
			a->nsamples[1] += t[i].nsamples[1];
		}
	}
	for (int i = 0; i < nt; i++) {
		free(t[i].cum);
		free(t[i].flat);
		free(t[i].flags);
		free(t[i].stamp);
	}
	if (rc)
		agg_free(a);
	return rc;
}

int agg_hide(agg *a, const agg *base, const prof *p, const prof_nodemap *hm)
{
	memset(a, 0, sizeof(*a));
	a->nnodes = base->nnodes;
	size_t n = base->nnodes ? base->nnodes : 1;
	a->v = calloc(n, sizeof(*a->v));
	a->flags = calloc(n, 1);
	uint8_t *kept = calloc(n, 1);
	if (!a->v || !a->flags || !kept) {
		free(kept);
		agg_free(a);
		return -1;
	}
	for (size_t k = 0; k < hm->nodes_len; k++)
		if (hm->nodes[k] < base->nnodes)
			kept[hm->nodes[k]] = 1;
	/* A kept node is in the same stacks as before: its cum is unchanged. */
	for (uint32_t x = 0; x < base->nnodes; x++)
		if (kept[x]) {
			memcpy(a->v[x].cum, base->v[x].cum, sizeof(a->v[x].cum));
			a->flags[x] = base->flags[x] & (AGG_SEEN_ALLOC | AGG_SEEN_INUSE);
		}
	free(kept);
	memcpy(a->total, base->total, sizeof(a->total));
	memcpy(a->nsamples, base->nsamples, sizeof(a->nsamples));
	/* Flat moves to the first kept node from the leaf. */
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *s = &p->samples.v[i];
		const prof_stack *st = &p->stacks.v[s->stack];
		const uint32_t *fr = p->stack_frames.v + st->off;
		uint32_t d = 0;
		while (d < st->depth && hm->off[fr[d]] == hm->off[fr[d] + 1])
			d++;
		if (d == st->depth)
			continue;
		uint32_t lnode = hm->nodes[hm->off[fr[d]]];
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(s, v);
		int inuse = v[AGG_INUSE_BYTES] != 0 || v[AGG_INUSE_OBJS] != 0;
		a->flags[lnode] |= AGG_LEAF_ALLOC | (inuse ? AGG_LEAF_INUSE : 0);
		for (int k = 0; k < AGG_NMETRIC; k++)
			agg_add(&a->v[lnode].flat[k], v[k]);
	}
	return 0;
}

void agg_free(agg *a)
{
	free(a->v);
	free(a->flags);
	memset(a, 0, sizeof(*a));
}
