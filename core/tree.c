/* tree.c - the top-down call tree with lazy expansion. */
#include "core/tree.h"

#include <stdlib.h>
#include <string.h>

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

/* The node k steps from the root end of stack (0: the outermost), or
 * UINT32_MAX when the stack has no more than k nodes; *last says whether it
 * is the stack's leaf node. Walks from the root, so no stack is expanded. */
static uint32_t node_from_root(const prof *p, const prof_nodemap *m, uint32_t stack, uint32_t k, int *last)
{
	const prof_stack *st = &p->stacks.v[stack];
	const uint32_t *fr = p->stack_frames.v + st->off;
	if (m->identity) {
		if (k >= st->depth)
			return UINT32_MAX;
		*last = k == st->depth - 1;
		return fr[st->depth - 1 - k];
	}
	for (uint32_t d = st->depth; d-- > 0;) {
		uint32_t f = fr[d], n = m->off[f + 1] - m->off[f];
		if (k >= n) {
			k -= n;
			continue;
		}
		/* A frame's nodes are innermost first: from the root, last first. */
		*last = k == n - 1;
		for (uint32_t e = d; *last && e-- > 0;)
			*last = m->off[fr[e]] == m->off[fr[e] + 1];
		return m->nodes[m->off[f + 1] - 1 - k];
	}
	return UINT32_MAX;
}

/* Sample j of a node's list: the root's list is every sample. */
static inline uint32_t list_at(const uint32_t *list, uint32_t j)
{
	return list ? list[j] : j;
}

/* Children of i: the node at position depth (from the root) of each of
 * its samples' stacks. The samples of i are listed here, from its
 * parent's (those whose stack has i's node at i's depth), in the same pass:
 * one pass over the parent's samples, in order, so children appear in the
 * order of their first sample. */
static int tree_build_kids(calltree *t, uint32_t i)
{
	tree_node *x = &t->n[i];
	if (x->built)
		return 0;
	int root = x->parent == UINT32_MAX;
	uint32_t depth = root ? 0 : x->depth + 1, self = x->node, own = x->depth;
	const uint32_t *from = root ? NULL : t->n[x->parent].samples;
	uint32_t nfrom = root ? x->nsamples : t->n[x->parent].nsamples, nlist = 0;
	/* A path every sample of its parent goes through (main under _start)
	 * has its parent's list. */
	int all = root || x->nsamples == nfrom;
	uint32_t want = x->nsamples;   /* x moves when tree_new grows t->n */
	uint32_t *list = NULL;
	if (!all && !(list = malloc((want ? want : 1) * sizeof(*list))))
		return -1;
	uint32_t first = (uint32_t)t->len, nk = 0;
	for (uint32_t j = 0; j < nfrom; j++) {
		uint32_t si = list_at(from, j);
		const prof_sample *s = &t->p->samples.v[si];
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(s, v);
		int last = 0;
		if (root) {
			for (int m = 0; m < AGG_NMETRIC; m++)
				agg_add(&t->n[i].cum[m], v[m]);
		} else if (!all) {
			if (node_from_root(t->p, t->m, s->stack, own, &last) != self)
				continue;
			if (nlist < want)
				list[nlist++] = si;
		}
		uint32_t node = node_from_root(t->p, t->m, s->stack, depth, &last);
		if (node == UINT32_MAX)
			continue;          /* the path ends here: flat of i */
		if (!t->slot[node]) {
			if (tree_new(t, node, i, depth) == UINT32_MAX)
				goto fail;
			t->slot[node] = ++nk;
		}
		tree_node *c = &t->n[first + t->slot[node] - 1];
		c->nsamples++;
		c->seen |= AGG_SEEN_ALLOC | ((v[AGG_INUSE_BYTES] || v[AGG_INUSE_OBJS]) ? AGG_SEEN_INUSE : 0);
		for (int m = 0; m < AGG_NMETRIC; m++) {
			agg_add(&c->cum[m], v[m]);
			if (last)
				agg_add(&c->flat[m], v[m]);
		}
	}
	for (uint32_t k = first; k < first + nk; k++)
		t->slot[t->n[k].node] = 0;
	x = &t->n[i];
	x->kids = malloc((nk ? nk : 1) * sizeof(*x->kids));
	if (!x->kids)
		goto fail;
	for (uint32_t k = 0; k < nk; k++)
		x->kids[k] = first + k;
	x->nkids = nk;
	x->samples = all ? (uint32_t *)from : list;
	x->borrowed = all;
	x->nsamples = all ? nfrom : nlist;
	x->built = 1;
	return 0;
fail:
	for (uint32_t k = first; k < t->len; k++)
		t->slot[t->n[k].node] = 0;
	t->len = first;
	free(list);
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
	t->slot = calloc(m->nnodes ? m->nnodes : 1, sizeof(*t->slot));
	if (!t->slot) {
		tree_free(t);
		return -1;
	}
	t->n[0].nsamples = (uint32_t)p->samples.len;   /* its cum is summed with its kids */
	t->n[0].expanded = 1;
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
		if (!t->n[i].borrowed)
			free(t->n[i].samples);
	}
	free(t->n);
	free(t->vis);
	free(t->slot);
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
