/* tree.c - the top-down call tree with lazy expansion. */
#include "core/tree.h"

#include <stdlib.h>
#include <string.h>

#include "core/callgraph.h"

static uint32_t tree_new(calltree *t, uint32_t node, uint32_t parent, uint32_t depth)
{
	if (vec_grow((void **)&t->n, &t->cap, t->len + 1, sizeof(*t->n)))
		return UINT32_MAX;
	tree_node *x = &t->n[t->len];
	memset(x, 0, sizeof(*x));
	x->node = node;
	x->parent = parent;
	x->depth = depth;
	return (uint32_t)t->len++;
}

/* Children of i from its samples: the node at position depth (from the
 * root) of each sample's stack; sample lists are split between the kids. */
static int tree_build_kids(calltree *t, uint32_t i)
{
	tree_node *x = &t->n[i];
	if (x->built)
		return 0;
	uint32_t depth = x->parent == UINT32_MAX ? 0 : x->depth + 1;
	size_t ns = x->nsamples;
	uint32_t *kid_of = malloc((ns ? ns : 1) * sizeof(*kid_of));
	uint32_t *slot = calloc(t->m->nnodes ? t->m->nnodes : 1, sizeof(*slot));
	if (!kid_of || !slot)
		goto fail;
	uint32_t first = (uint32_t)t->len, nk = 0;
	for (size_t j = 0; j < ns; j++) {
		uint32_t si = t->n[i].samples[j];
		const prof_sample *s = &t->p->samples.v[si];
		long n = stack_nodes(t->p, t->m, s->stack, &t->buf, &t->bufcap);
		if (n < 0)
			goto fail;
		kid_of[j] = UINT32_MAX;
		if ((long)depth >= n)
			continue;          /* the path ends here: flat of i */
		uint32_t node = t->buf[n - 1 - depth];
		if (!slot[node]) {
			if (tree_new(t, node, i, depth) == UINT32_MAX)
				goto fail;
			slot[node] = ++nk;
		}
		uint32_t k = first + slot[node] - 1;
		kid_of[j] = k;
		tree_node *c = &t->n[k];
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(s, v);
		c->nsamples++;
		c->seen |= AGG_SEEN_ALLOC | ((v[AGG_INUSE_BYTES] || v[AGG_INUSE_OBJS]) ? AGG_SEEN_INUSE : 0);
		for (int m = 0; m < AGG_NMETRIC; m++) {
			agg_add(&c->cum[m], v[m]);
			if ((long)depth == n - 1)
				agg_add(&c->flat[m], v[m]);
		}
	}
	for (uint32_t k = first; k < first + nk; k++) {
		t->n[k].samples = malloc((t->n[k].nsamples ? t->n[k].nsamples : 1) * sizeof(uint32_t));
		if (!t->n[k].samples)
			goto fail;
		t->n[k].nsamples = 0;
	}
	for (size_t j = 0; j < ns; j++)
		if (kid_of[j] != UINT32_MAX) {
			tree_node *c = &t->n[kid_of[j]];
			c->samples[c->nsamples++] = t->n[i].samples[j];
		}
	x = &t->n[i];
	x->kids = malloc((nk ? nk : 1) * sizeof(*x->kids));
	if (!x->kids)
		goto fail;
	for (uint32_t k = 0; k < nk; k++)
		x->kids[k] = first + k;
	x->nkids = nk;
	x->built = 1;
	free(kid_of);
	free(slot);
	return 0;
fail:
	free(kid_of);
	free(slot);
	return -1;
}

int tree_build(calltree *t, const prof *p, const prof_nodemap *m)
{
	memset(t, 0, sizeof(*t));
	t->p = p;
	t->m = m;
	t->seen_mask = AGG_SEEN_INUSE;
	if (tree_new(t, UINT32_MAX, UINT32_MAX, 0) == UINT32_MAX)
		return -1;
	tree_node *r = &t->n[0];
	r->samples = malloc((p->samples.len ? p->samples.len : 1) * sizeof(uint32_t));
	if (!r->samples) {
		tree_free(t);
		return -1;
	}
	for (size_t i = 0; i < p->samples.len; i++) {
		r->samples[i] = (uint32_t)i;
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(&p->samples.v[i], v);
		for (int k = 0; k < AGG_NMETRIC; k++)
			agg_add(&r->cum[k], v[k]);
	}
	r->nsamples = p->samples.len;
	r->expanded = 1;
	if (tree_build_kids(t, 0) || tree_visible(t, AGG_INUSE_BYTES, AGG_SEEN_INUSE)) {
		tree_free(t);
		return -1;
	}
	return 0;
}

void tree_free(calltree *t)
{
	for (size_t i = 0; i < t->len; i++) {
		free(t->n[i].kids);
		free(t->n[i].samples);
	}
	free(t->n);
	free(t->vis);
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

int tree_expand(calltree *t, uint32_t i)
{
	if (i >= t->len)
		return 0;
	if (tree_build_kids(t, i))
		return -1;
	t->n[i].expanded = 1;
	return tree_visible(t, t->metric, t->seen_mask);
}

void tree_collapse(calltree *t, uint32_t i)
{
	if (i == 0 || i >= t->len)
		return;
	t->n[i].expanded = 0;
	tree_visible(t, t->metric, t->seen_mask);
}

static int64_t sort_key(const calltree *t, uint32_t i)
{
	return t->n[i].cum[t->metric];
}

/* Insertion-free sort of a sibling list: qsort with a file-static tree. */
static const calltree *sort_t;

static int kid_cmp(const void *pa, const void *pb)
{
	uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
	int sx = !!(sort_t->n[x].seen & sort_t->seen_mask), sy = !!(sort_t->n[y].seen & sort_t->seen_mask);
	if (sx != sy)
		return sy - sx;
	int64_t a = sort_key(sort_t, x), b = sort_key(sort_t, y);
	if (a != b)
		return a < b ? 1 : -1;
	return x < y ? -1 : x > y;
}

uint32_t tree_expand_heaviest(calltree *t, uint32_t i)
{
	if (i >= t->len)
		return UINT32_MAX;
	for (;;) {
		if (tree_build_kids(t, i))
			return UINT32_MAX;
		tree_node *x = &t->n[i];
		uint32_t best = UINT32_MAX;
		for (uint32_t k = 0; k < x->nkids; k++) {
			uint32_t c = x->kids[k];
			if (!(t->n[c].seen & t->seen_mask))
				continue;
			if (best == UINT32_MAX || sort_key(t, c) > sort_key(t, best))
				best = c;
		}
		if (best == UINT32_MAX)
			break;
		x->expanded = 1;
		i = best;
	}
	if (tree_visible(t, t->metric, t->seen_mask))
		return UINT32_MAX;
	return i;
}

static int vis_push(calltree *t, uint32_t i, size_t *cap)
{
	if (vec_grow((void **)&t->vis, cap, t->nvis + 1, sizeof(*t->vis)))
		return -1;
	t->vis[t->nvis++] = i;
	return 0;
}

static int vis_walk(calltree *t, uint32_t i, size_t *cap)
{
	tree_node *x = &t->n[i];
	if (x->nkids) {
		sort_t = t;
		qsort(x->kids, x->nkids, sizeof(uint32_t), kid_cmp);
	}
	for (uint32_t k = 0; k < t->n[i].nkids; k++) {
		uint32_t c = t->n[i].kids[k];
		if (!(t->n[c].seen & t->seen_mask))
			break;   /* sorted: the unseen ones are last */
		if (vis_push(t, c, cap))
			return -1;
		if (t->n[c].expanded && vis_walk(t, c, cap))
			return -1;
	}
	return 0;
}

int tree_visible(calltree *t, enum agg_metric metric, uint8_t seen_mask)
{
	t->metric = metric;
	t->seen_mask = seen_mask;
	t->nvis = 0;
	size_t cap = t->nvis;
	free(t->vis);
	t->vis = NULL;
	return vis_walk(t, 0, &cap);
}

long tree_row_of(const calltree *t, uint32_t i)
{
	for (size_t r = 0; r < t->nvis; r++)
		if (t->vis[r] == i)
			return (long)r;
	return -1;
}
