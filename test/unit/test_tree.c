/* test_tree.c - the lazy call tree and the callers/callees of a node
 * against a plain recomputation from every sample's expanded stack: random
 * profiles with recursion, inline chains, empty stacks, hidden frames and a
 * root chain every stack shares, at address granularity and through a map;
 * a profile big enough for the two-thread scan. Every value, flag, sample
 * list and order must be equal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg.h"
#include "core/callgraph.h"
#include "core/filter.h"
#include "core/tree.h"
#include "test/unit/helpers/randprof.h"

/* Every sample's nodes, root first, and the frame each is in. */
typedef struct expanded {
	uint32_t **nodes, **frames;
	long *n;
	size_t len;
} expanded;

static void expand_all(expanded *x, const prof *p, const prof_nodemap *m)
{
	x->len = p->samples.len;
	x->nodes = calloc(x->len ? x->len : 1, sizeof(*x->nodes));
	x->frames = calloc(x->len ? x->len : 1, sizeof(*x->frames));
	x->n = calloc(x->len ? x->len : 1, sizeof(*x->n));
	assert_non_null(x->nodes);
	assert_non_null(x->frames);
	assert_non_null(x->n);
	for (size_t i = 0; i < x->len; i++) {
		uint32_t *buf = NULL;
		size_t cap = 0;
		long n = stack_nodes(p, m, p->samples.v[i].stack, &buf, &cap);
		assert_true(n >= 0);
		for (long a = 0, b = n - 1; a < b; a++, b--) {
			uint32_t t = buf[a];
			buf[a] = buf[b];
			buf[b] = t;
		}
		/* The frames straight from the stack, root first. */
		const prof_stack *st = &p->stacks.v[p->samples.v[i].stack];
		const uint32_t *fr = prof_stack_frames(p, p->samples.v[i].stack);
		uint32_t *fb = malloc((n ? (size_t)n : 1) * sizeof(*fb));
		assert_non_null(fb);
		long at = n;
		for (uint32_t d = 0; d < st->depth; d++)
			for (uint32_t k = m->off[fr[d]]; k < m->off[fr[d] + 1]; k++) {
				assert_true(at > 0);
				assert_int_equal(buf[--at], m->nodes[k]);
				fb[at] = fr[d];
			}
		assert_int_equal(at, 0);
		x->nodes[i] = buf;
		x->frames[i] = fb;
		x->n[i] = n;
	}
}

static void expanded_free(expanded *x)
{
	for (size_t i = 0; i < x->len; i++) {
		free(x->nodes[i]);
		free(x->frames[i]);
	}
	free(x->nodes);
	free(x->frames);
	free(x->n);
}

static uint8_t seen_of(const int64_t v[AGG_NMETRIC])
{
	return AGG_SEEN_ALLOC | ((v[AGG_INUSE_BYTES] || v[AGG_INUSE_OBJS]) ? AGG_SEEN_INUSE : 0);
}

/* Tree node i against the samples whose root-first nodes start with its
 * path: cum, flat, seen, the sample list of a built node, and its
 * children in the order of their first sample. */
static void check_tree_node(const calltree *t, uint32_t i, const prof *p, const expanded *x)
{
	const tree_node *tn = &t->n[i];
	uint32_t path[64];
	long len = 0;
	for (uint32_t k = i; k != 0; k = t->n[k].parent) {
		assert_true(len < 64);
		path[len++] = t->n[k].node;
	}
	for (long a = 0, b = len - 1; a < b; a++, b--) {
		uint32_t s = path[a];
		path[a] = path[b];
		path[b] = s;
	}
	assert_int_equal(tn->depth, len ? (uint32_t)len - 1 : 0);
	int64_t cum[AGG_NMETRIC] = { 0 }, flat[AGG_NMETRIC] = { 0 };
	uint8_t seen = 0;
	uint32_t nin = 0, next[64];
	size_t nnext = 0;
	for (size_t s = 0; s < x->len; s++) {
		if (x->n[s] < len || memcmp(x->nodes[s], path, (size_t)len * sizeof(*path)))
			continue;
		if (tn->built)
			assert_int_equal(tn->samples ? tn->samples[nin] : nin, s);
		nin++;
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(&p->samples.v[s], v);
		if (len)
			seen |= seen_of(v);
		for (int k = 0; k < AGG_NMETRIC; k++) {
			agg_add(&cum[k], v[k]);
			if (len && x->n[s] == len)
				agg_add(&flat[k], v[k]);
		}
		if (x->n[s] > len) {
			size_t j = 0;
			while (j < nnext && next[j] != x->nodes[s][len])
				j++;
			if (j == nnext) {
				assert_true(nnext < 64);
				next[nnext++] = x->nodes[s][len];
			}
		}
	}
	assert_int_equal(tn->nsamples, nin);
	assert_memory_equal(tn->cum, cum, sizeof(cum));
	assert_memory_equal(tn->flat, flat, sizeof(flat));
	assert_int_equal(tn->seen, seen);
	if (!tn->built)
		return;
	/* Children were made in first-sample order: their tree indices say it. */
	assert_int_equal(tn->nkids, nnext);
	uint32_t kids[64];
	memcpy(kids, tn->kids, tn->nkids * sizeof(*kids));
	for (uint32_t a = 0; a < tn->nkids; a++)
		for (uint32_t b = a + 1; b < tn->nkids; b++)
			if (kids[b] < kids[a]) {
				uint32_t s = kids[a];
				kids[a] = kids[b];
				kids[b] = s;
			}
	for (uint32_t k = 0; k < tn->nkids; k++) {
		assert_int_equal(t->n[kids[k]].node, next[k]);
		assert_int_equal(t->n[kids[k]].parent, i);
	}
}

static void check_tree(const prof *p, const prof_nodemap *m, const expanded *x)
{
	calltree t;
	assert_int_equal(tree_build(&t, p, m), 0);
	check_tree_node(&t, 0, p, x);
	/* Expand in breadth order, checking each node before and after. */
	for (uint32_t i = 1; i < t.len; i++) {
		check_tree_node(&t, i, p, x);
		assert_int_equal(tree_expand(&t, i), 0);
		check_tree_node(&t, i, p, x);
	}
	tree_free(&t);
	/* The heaviest path alone builds the same nodes the same way. */
	assert_int_equal(tree_build(&t, p, m), 0);
	if (t.nvis) {
		uint32_t deep = tree_expand_heaviest(&t, t.vis[0]);
		assert_int_not_equal(deep, UINT32_MAX);
		for (uint32_t i = deep; i != UINT32_MAX; i = t.n[i].parent)
			check_tree_node(&t, i, p, x);
	}
	tree_free(&t);
}

static void ref_edge(cg_edge **e, size_t *n, uint32_t **stamp, uint32_t node, uint32_t mark,
		     const int64_t v[AGG_NMETRIC], uint8_t seen)
{
	if ((*stamp)[node] == mark)
		return;
	(*stamp)[node] = mark;
	size_t j = 0;
	while (j < *n && (*e)[j].node != node)
		j++;
	if (j == *n) {
		*e = realloc(*e, (*n + 1) * sizeof(**e));
		assert_non_null(*e);
		memset(&(*e)[j], 0, sizeof(**e));
		(*e)[j].node = node;
		(*n)++;
	}
	(*e)[j].seen |= seen;
	for (int k = 0; k < AGG_NMETRIC; k++)
		agg_add(&(*e)[j].v[k], v[k]);
}

/* What one frame carries on the edges to each node (a dense reference:
 * node * nframes + frame), each once per stack. */
typedef struct ref_sites {
	uint32_t *stamp;
	int64_t (*v)[AGG_NMETRIC];
	uint32_t nframes;
} ref_sites;

static void ref_site(ref_sites *r, uint32_t node, uint32_t frame, uint32_t mark, const int64_t v[AGG_NMETRIC])
{
	size_t i = (size_t)node * r->nframes + frame;
	if (r->stamp[i] == mark)
		return;
	r->stamp[i] = mark;
	for (int k = 0; k < AGG_NMETRIC; k++)
		agg_add(&r->v[i][k], v[k]);
}

/* The edges' sites: per metric the frame with the biggest magnitude,
 * the lowest on a tie, among the frames seen on the edge. */
static void ref_pick(const ref_sites *r, cg_edge *e, size_t n)
{
	for (size_t j = 0; j < n; j++)
		for (int k = 0; k < AGG_NMETRIC; k++) {
			uint64_t best = 0;
			e[j].site[k] = UINT32_MAX;
			for (uint32_t f = 0; f < r->nframes; f++) {
				size_t i = (size_t)e[j].node * r->nframes + f;
				int64_t x = r->v[i][k];
				uint64_t mag = x < 0 ? -(uint64_t)x : (uint64_t)x;
				if (r->stamp[i] && (e[j].site[k] == UINT32_MAX || mag > best)) {
					e[j].site[k] = f;
					best = mag;
				}
			}
		}
}

/* Callers/callees of node from every expanded stack, leaf first as the
 * edges are defined: each edge once per stack, recursion included. */
static void check_callgraph(const prof *p, const prof_nodemap *m, const expanded *x, uint32_t node)
{
	callgraph want, got;
	memset(&want, 0, sizeof(want));
	want.node = node;
	uint32_t *stamp[2] = { calloc(m->nnodes + 1, sizeof(uint32_t)), calloc(m->nnodes + 1, sizeof(uint32_t)) };
	assert_non_null(stamp[0]);
	assert_non_null(stamp[1]);
	ref_sites rs[2];
	for (int k = 0; k < 2; k++) {
		size_t cells = ((size_t)m->nnodes + 1) * (p->frames.len + 1);
		rs[k] = (ref_sites){ calloc(cells, sizeof(uint32_t)), calloc(cells, sizeof(*rs[k].v)),
				     (uint32_t)p->frames.len };
		assert_non_null(rs[k].stamp);
		assert_non_null(rs[k].v);
	}
	for (size_t s = 0; s < x->len; s++) {
		long n = x->n[s];
		const uint32_t *rf = x->nodes[s];   /* root first: leaf-first index d is rf[n - 1 - d] */
		const uint32_t *ff = x->frames[s];
		long at = -1;
		for (long d = 0; d < n && at < 0; d++)
			if (rf[n - 1 - d] == node)
				at = d;
		if (at < 0)
			continue;
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(&p->samples.v[s], v);
		uint8_t seen = seen_of(v);
		want.seen |= seen;
		for (int k = 0; k < AGG_NMETRIC; k++) {
			agg_add(&want.cum[k], v[k]);
			if (at == 0)
				agg_add(&want.flat[k], v[k]);
		}
		for (long d = at; d < n; d++) {
			if (rf[n - 1 - d] != node)
				continue;
			if (d + 1 < n) {
				ref_edge(&want.callers, &want.ncallers, &stamp[0], rf[n - 2 - d], (uint32_t)s + 1, v, seen);
				ref_site(&rs[0], rf[n - 2 - d], ff[n - 2 - d], (uint32_t)s + 1, v);
			}
			if (d > 0) {
				ref_edge(&want.callees, &want.ncallees, &stamp[1], rf[n - d], (uint32_t)s + 1, v, seen);
				ref_site(&rs[1], rf[n - d], ff[n - 1 - d], (uint32_t)s + 1, v);
			}
		}
	}
	ref_pick(&rs[0], want.callers, want.ncallers);
	ref_pick(&rs[1], want.callees, want.ncallees);
	for (int k = 0; k < 2; k++) {
		free(rs[k].stamp);
		free(rs[k].v);
	}
	assert_int_equal(callgraph_compute(&got, p, m, node), 0);
	assert_int_equal(got.node, node);
	assert_int_equal(got.seen, want.seen);
	assert_memory_equal(got.cum, want.cum, sizeof(want.cum));
	assert_memory_equal(got.flat, want.flat, sizeof(want.flat));
	/* Unsorted: first-seen order, the same with one thread or two. */
	assert_int_equal(got.ncallers, want.ncallers);
	assert_int_equal(got.ncallees, want.ncallees);
	for (size_t j = 0; j < want.ncallers; j++)
		assert_memory_equal(&got.callers[j], &want.callers[j], sizeof(cg_edge));
	for (size_t j = 0; j < want.ncallees; j++)
		assert_memory_equal(&got.callees[j], &want.callees[j], sizeof(cg_edge));
	free(stamp[0]);
	free(stamp[1]);
	callgraph_free(&want);
	callgraph_free(&got);
}

static void check_all(const prof *p, const prof_nodemap *m, int tree)
{
	expanded x;
	expand_all(&x, p, m);
	if (tree)
		check_tree(p, m, &x);
	for (uint32_t n = 0; n < m->nnodes; n++)
		check_callgraph(p, m, &x, n);
	expanded_free(&x);
}

static void random_profiles(void **state)
{
	(void)state;
	for (int seed = 1; seed <= 40; seed++) {
		randprof_seed(0x9e3779b97f4a7c15ULL * (uint64_t)seed);
		prof *p = randprof_new(300, 12, seed % 2);
		assert_non_null(p);
		prof_nodemap am, m, hm;
		assert_int_equal(nodemap_by_address(&am, p), 0);
		check_all(p, &am, 1);
		assert_int_equal(randprof_map(&m), 0);
		check_all(p, &m, 1);
		/* Hidden names leave frames with no node at all. */
		name_filter f;
		memset(&f, 0, sizeof(f));
		char err[200];
		assert_int_equal(filter_set(&f, seed % 3 ? "^n[0-3]$" : "^n([0-9]|1[01])$", err, sizeof(err)), 0);
		assert_int_equal(filter_hide_map(&hm, &m, &f), 0);
		check_all(p, &hm, 1);
		filter_clear(&f);
		nodemap_free(&hm);
		nodemap_free(&m);
		nodemap_free(&am);
		prof_free(p);
	}
}

/* Past the two-thread threshold: the halves merge into one pass's result. */
static void big_profile(void **state)
{
	(void)state;
	randprof_seed(0x2545f4914f6cdd1dULL);
	prof *p = randprof_new(250000, 6, 1);
	assert_non_null(p);
	prof_nodemap am, m;
	assert_int_equal(nodemap_by_address(&am, p), 0);
	assert_int_equal(randprof_map(&m), 0);
	expanded x;
	expand_all(&x, p, &am);
	for (uint32_t n = 0; n < am.nnodes; n += 7)
		check_callgraph(p, &am, &x, n);
	expanded_free(&x);
	expand_all(&x, p, &m);
	for (uint32_t n = 0; n < m.nnodes; n += 3)
		check_callgraph(p, &m, &x, n);
	expanded_free(&x);
	nodemap_free(&m);
	nodemap_free(&am);
	prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_profiles),
		cmocka_unit_test(big_profile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
