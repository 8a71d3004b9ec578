/* graph.c - the call graph of a whole profile, as pprof builds it for -dot:
 * a first pass sums flat and cum per node (a node once per stack), the
 * nodes under the cutoff are dropped, then a second pass walks each stack
 * root first over the kept nodes only, so an edge that skips dropped nodes
 * is a residual one; each edge counts once per stack. */
#include "core/graph.h"
#include "core/hash.h"
#include "core/u64map.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* The builder's scratch, per map node and per edge. */
typedef struct gbuild {
	const prof *p;
	const prof_nodemap *m;
	enum agg_metric metric;
	int64_t *flat, *cum;     /* per map node */
	uint32_t *stamp;         /* per map node: last sample counted, + 1 */
	uint8_t *present;        /* per map node: in a sample with a value */
	uint32_t *idx;           /* per map node: index into g->nodes, or NONE */
	uint32_t *estamp;        /* per edge: last sample counted, + 1 */
	size_t ecap, escap;
	u64map at;               /* from << 32 | to -> edge */
} gbuild;

/* Sample i's value of the metric in *v and its frames, leaf first, in
 * *fr; returns the depth, or -1 when the value is 0 (left out). */
static long sample_at(const gbuild *b, size_t i, int64_t *v, const uint32_t **fr)
{
	int64_t all[AGG_NMETRIC];
	const prof_sample *s = &b->p->samples.v[i];
	agg_sample_vals(s, all);
	if (!(*v = all[b->metric]))
		return -1;
	*fr = prof_stack_frames(b->p, s->stack);
	return b->p->stacks.v[s->stack].depth;
}

/* Pass 1: flat, cum and presence per map node, the sum of |metric|; 1
 * when some sample is negative (a diff), else 0. */
static int sum_nodes(gbuild *b, graph *g)
{
	const prof *p = b->p;
	const prof_nodemap *m = b->m;
	int neg = 0;
	for (size_t i = 0; i < p->samples.len; i++) {
		int64_t v;
		const uint32_t *fr;
		long depth = sample_at(b, i, &v, &fr);
		if (depth < 0)
			continue;
		neg |= v < 0;
		agg_add(&g->total, (int64_t)agg_magnitude(v));
		uint32_t mark = (uint32_t)i + 1, leaf = NONE;
		for (long d = 0; d < depth; d++)
			for (uint32_t k = m->off[fr[d]]; k < m->off[fr[d] + 1]; k++) {
				uint32_t x = m->nodes[k];
				if (leaf == NONE)
					leaf = x;   /* the innermost node left in the map (hidden frames have none) */
				if (b->stamp[x] == mark)
					continue;   /* recursion: once per stack */
				b->stamp[x] = mark;
				b->present[x] = 1;
				agg_add(&b->cum[x], v);
			}
		if (leaf != NONE)
			agg_add(&b->flat[leaf], v);
	}
	return neg;
}

/* With negative samples, the total is over call paths at the granularity,
 * each path's net value: in a diff, BASE's and NEW's samples of one path
 * (at other addresses when the code moved) cancel instead of adding up.
 * (With none, that is the sum of |metric| already there.) 0 or -1. */
static int sum_paths(gbuild *b, graph *g)
{
	const prof *p = b->p;
	const prof_nodemap *m = b->m;
	u64map paths = { 0 };   /* hash of the path's nodes -> index into net */
	int64_t *net = NULL;
	size_t npaths = 0, netcap = 0;
	int rc = -1;
	if (u64map_init(&paths, 256))
		return -1;
	for (size_t i = 0; i < p->samples.len; i++) {
		int64_t v;
		const uint32_t *fr;
		long depth = sample_at(b, i, &v, &fr);
		if (depth < 0)
			continue;
		uint64_t h = 0x9e3779b97f4a7c15ULL;
		for (long d = 0; d < depth; d++)
			for (uint32_t k = m->off[fr[d]]; k < m->off[fr[d] + 1]; k++)
				h = hash_mix64(h ^ m->nodes[k]) + 0x632be59bd9b4e019ULL;
		size_t slot = u64map_slot(&paths, h);
		uint32_t j = paths.vals[slot];
		if (j == U64MAP_NONE) {
			if (vec_grow((void **)&net, &netcap, npaths + 1, sizeof(*net)) ||
			    u64map_add_at(&paths, slot, h, (uint32_t)npaths))
				goto out;
			net[j = (uint32_t)npaths++] = 0;
		}
		agg_add(&net[j], v);
	}
	g->total = 0;
	for (size_t j = 0; j < npaths; j++)
		agg_add(&g->total, (int64_t)agg_magnitude(net[j]));
	rc = 0;
out:
	u64map_free(&paths);
	free(net);
	return rc;
}

/* qsort has no context argument in C11: the comparisons read this. */
static const gbuild *sort_b;

static int node_cmp(const void *pa, const void *pb)
{
	const graph_node *x = pa, *y = pb;
	int r;
	if ((r = agg_order((int64_t)agg_magnitude(x->cum), (int64_t)agg_magnitude(y->cum), 0)) ||
	    (r = agg_order((int64_t)agg_magnitude(x->flat), (int64_t)agg_magnitude(y->flat), 0)))
		return r;
	if ((r = strcmp(nodemap_name(sort_b->m, x->node), nodemap_name(sort_b->m, y->node))))
		return r;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int edge_cmp(const void *pa, const void *pb)
{
	const graph_edge *x = pa, *y = pb;
	int r = agg_order((int64_t)agg_magnitude(x->w), (int64_t)agg_magnitude(y->w), 0);
	if (r)
		return r;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* The nodes at or over the cutoff, the node_count biggest of them. 0 or -1. */
static int pick_nodes(gbuild *b, graph *g, const graph_opts *o)
{
	uint32_t nn = b->m->nnodes;
	g->nodes = malloc((nn ? nn : 1) * sizeof(*g->nodes));
	if (!g->nodes)
		return -1;
	g->node_cut = (int64_t)((double)g->total * o->node_fraction);
	for (uint32_t x = 0; x < nn; x++) {
		if (!b->present[x])
			continue;
		g->all_nodes++;
		if (agg_magnitude(b->cum[x]) < (uint64_t)g->node_cut) {
			g->dropped_nodes++;
			continue;
		}
		g->nodes[g->nnodes++] = (graph_node){ x, b->flat[x], b->cum[x] };
	}
	sort_b = b;
	qsort(g->nodes, g->nnodes, sizeof(*g->nodes), node_cmp);
	if (o->node_count && g->nnodes > o->node_count) {
		g->capped = g->nnodes - o->node_count;
		g->nnodes = o->node_count;
	}
	for (size_t i = 0; i < g->nnodes; i++) {
		b->idx[g->nodes[i].node] = (uint32_t)i;
		agg_add(&g->shown, g->nodes[i].flat);
	}
	return 0;
}

/* Adds v to the edge from -> to once per stack (mark). 0 or -1. */
static int edge_add(gbuild *b, graph *g, uint32_t from, uint32_t to, uint32_t mark, int64_t v, int residual,
		    int in_frame)
{
	uint64_t key = (uint64_t)from << 32 | to;
	size_t slot = u64map_slot(&b->at, key);
	uint32_t e = b->at.vals[slot];
	if (e == U64MAP_NONE) {
		if (vec_grow((void **)&g->edges, &b->ecap, g->nedges + 1, sizeof(*g->edges)) ||
		    vec_grow((void **)&b->estamp, &b->escap, g->nedges + 1, sizeof(*b->estamp)) ||
		    u64map_add_at(&b->at, slot, key, (uint32_t)g->nedges))
			return -1;
		e = (uint32_t)g->nedges++;
		g->edges[e] = (graph_edge){ from, to, 0, 1, 0 };
		b->estamp[e] = 0;
	}
	graph_edge *ed = &g->edges[e];
	/* Residual or not inline on any stack: so on the picture. */
	ed->residual |= (uint8_t)residual;
	if (!in_frame)
		ed->is_inline = 0;
	if (b->estamp[e] == mark)
		return 0;
	b->estamp[e] = mark;
	agg_add(&ed->w, v);
	return 0;
}

/* Pass 2: the edges between kept nodes, walking each stack root first. */
static int sum_edges(gbuild *b, graph *g)
{
	const prof *p = b->p;
	const prof_nodemap *m = b->m;
	if (u64map_init(&b->at, 256))
		return -1;
	for (size_t i = 0; i < p->samples.len; i++) {
		int64_t v;
		const uint32_t *fr;
		long depth = sample_at(b, i, &v, &fr);
		if (depth < 0)
			continue;
		uint32_t mark = (uint32_t)i + 1, parent = NONE;
		long pframe = -1;
		int residual = 0;
		for (long d = depth; d-- > 0;)
			for (uint32_t k = m->off[fr[d] + 1]; k-- > m->off[fr[d]];) {
				uint32_t gi = b->idx[m->nodes[k]];
				if (gi == NONE) {
					residual = 1;
					continue;
				}
				/* An inline node's caller is the next node out in the same frame. */
				if (parent != NONE && edge_add(b, g, parent, gi, mark, v, residual, d == pframe))
					return -1;
				parent = gi;
				pframe = d;
				residual = 0;
			}
	}
	return 0;
}

/* Drops the edges under the cutoff, then sorts the rest. */
static void pick_edges(graph *g, const graph_opts *o)
{
	g->edge_cut = (int64_t)((double)g->total * o->edge_fraction);
	size_t n = 0;
	for (size_t j = 0; j < g->nedges; j++) {
		if (agg_magnitude(g->edges[j].w) < (uint64_t)g->edge_cut) {
			g->dropped_edges++;
			continue;
		}
		g->edges[n++] = g->edges[j];
	}
	g->nedges = n;
	if (n)
		qsort(g->edges, n, sizeof(*g->edges), edge_cmp);
}

int graph_build(graph *g, const prof *p, const prof_nodemap *m, const graph_opts *o)
{
	memset(g, 0, sizeof(*g));
	size_t nn = m->nnodes ? m->nnodes : 1;
	gbuild b = { .p = p, .m = m, .metric = o->metric };
	int rc = -1;
	b.flat = calloc(nn, sizeof(*b.flat));
	b.cum = calloc(nn, sizeof(*b.cum));
	b.stamp = calloc(nn, sizeof(*b.stamp));
	b.present = calloc(nn, 1);
	b.idx = malloc(nn * sizeof(*b.idx));
	if (!b.flat || !b.cum || !b.stamp || !b.present || !b.idx)
		goto out;
	memset(b.idx, 0xff, nn * sizeof(*b.idx));
	if ((sum_nodes(&b, g) && sum_paths(&b, g)) || pick_nodes(&b, g, o) || sum_edges(&b, g))
		goto out;
	pick_edges(g, o);
	rc = 0;
out:
	free(b.flat);
	free(b.cum);
	free(b.stamp);
	free(b.present);
	free(b.idx);
	free(b.estamp);
	u64map_free(&b.at);
	if (rc)
		graph_free(g);
	return rc;
}

void graph_free(graph *g)
{
	free(g->nodes);
	free(g->edges);
	g->nodes = NULL;
	g->edges = NULL;
	g->nnodes = g->nedges = 0;
}
