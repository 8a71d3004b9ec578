/* test_graph.c - the call graph picture's numbers against the table and the
 * peek: every node's flat and cum against agg_compute, every edge against
 * the callees callgraph_compute finds for its caller (all four metrics,
 * recursion, inline chains, hidden frames, a diff); with pprof's cutoffs,
 * the kept and dropped nodes and edges, residual and inline flags against a
 * plain walk of every stack written here. */
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
#include "core/diff.h"
#include "core/filter.h"
#include "core/graph.h"
#include "core/load.h"
#include "test/unit/helpers/randprof.h"

static long find_node(const graph *g, uint32_t node)
{
	for (size_t i = 0; i < g->nnodes; i++)
		if (g->nodes[i].node == node)
			return (long)i;
	return -1;
}

static const graph_edge *find_edge(const graph *g, uint32_t from, uint32_t to)
{
	for (size_t j = 0; j < g->nedges; j++)
		if (g->edges[j].from == from && g->edges[j].to == to)
			return &g->edges[j];
	return NULL;
}

/* Nothing dropped: the graph is the table and the peek of every node. */
static void check_all(const prof *p, const prof_nodemap *m, int diff)
{
	agg a;
	assert_int_equal(agg_compute(&a, p, m), 0);
	for (int k = 0; k < AGG_NMETRIC; k++) {
		graph_opts o = { (enum agg_metric)k, diff, 0, 0, 0, NULL };
		graph g;
		assert_int_equal(graph_build(&g, p, m, &o), 0);
		assert_int_equal(g.dropped_nodes + g.dropped_edges + g.capped, 0);
		assert_int_equal(g.nnodes, g.all_nodes);
		for (uint32_t x = 0; x < m->nnodes; x++) {
			long i = find_node(&g, x);
			if (i < 0) {   /* in no sample with a value */
				assert_int_equal(a.v[x].cum[k], 0);
				assert_int_equal(a.v[x].flat[k], 0);
				continue;
			}
			assert_int_equal(g.nodes[i].flat, a.v[x].flat[k]);
			assert_int_equal(g.nodes[i].cum, a.v[x].cum[k]);
			callgraph cg;
			assert_int_equal(callgraph_compute(&cg, p, m, x), 0);
			size_t nonzero = 0;
			for (size_t c = 0; c < cg.ncallees; c++) {
				long t = find_node(&g, cg.callees[c].node);
				const graph_edge *e = t < 0 ? NULL : find_edge(&g, (uint32_t)i, (uint32_t)t);
				if (cg.callees[c].v[k]) {
					assert_non_null(e);
					assert_int_equal(e->w, cg.callees[c].v[k]);
					nonzero++;
				}
			}
			size_t out = 0;
			for (size_t j = 0; j < g.nedges; j++)
				out += g.edges[j].from == (uint32_t)i && g.edges[j].w;
			assert_int_equal(out, nonzero);
			callgraph_free(&cg);
		}
		graph_free(&g);
	}
	agg_free(&a);
}

#define PATH_MAX_NODES 256

/* The walk pprof does, written plainly: per sample the nodes root first
 * with their frames; kept ones joined, a gap makes the edge residual. */
typedef struct ref_edge {
	uint32_t from, to;   /* map nodes */
	int64_t w;
	int inl, res;
	size_t stamp;
} ref_edge;

/* Sample i's nodes root first into seq (fseq: the depth of each one's
 * frame, may be NULL) and its value in *val; -1 when the value is 0. */
static long sample_path(const prof *p, const prof_nodemap *m, size_t i, enum agg_metric k, uint32_t *seq,
			uint32_t *fseq, int64_t *val)
{
	int64_t v[AGG_NMETRIC];
	agg_sample_vals(&p->samples.v[i], v);
	if (!(*val = v[k]))
		return -1;
	const prof_stack *st = &p->stacks.v[p->samples.v[i].stack];
	const uint32_t *fr = prof_stack_frames(p, p->samples.v[i].stack);
	long n = 0;
	for (uint32_t d = st->depth; d-- > 0;)
		for (uint32_t j = m->off[fr[d] + 1]; j-- > m->off[fr[d]];) {
			assert_true(n < PATH_MAX_NODES);
			if (fseq)
				fseq[n] = d;
			seq[n++] = m->nodes[j];
		}
	return n;
}

/* The sum over distinct node sequences of |their net value|. */
static int64_t path_total(const prof *p, const prof_nodemap *m, enum agg_metric k)
{
	uint32_t (*seqs)[PATH_MAX_NODES] = calloc(p->samples.len + 1, sizeof(*seqs));
	long *lens = calloc(p->samples.len + 1, sizeof(*lens));
	int64_t *net = calloc(p->samples.len + 1, sizeof(*net)), total = 0, v;
	size_t n = 0;
	assert_non_null(seqs);
	assert_non_null(lens);
	assert_non_null(net);
	for (size_t i = 0; i < p->samples.len; i++) {
		long len = sample_path(p, m, i, k, seqs[n], NULL, &v);
		if (len < 0)
			continue;
		size_t e = 0;
		while (e < n && !(lens[e] == len && !memcmp(seqs[e], seqs[n], (size_t)len * sizeof(uint32_t))))
			e++;
		lens[e] = len;
		net[e] += v;
		n += e == n;
	}
	for (size_t e = 0; e < n; e++)
		total += net[e] < 0 ? -net[e] : net[e];
	free(seqs);
	free(lens);
	free(net);
	return total;
}

static void check_cutoffs(const prof *p, const prof_nodemap *m, enum agg_metric k, unsigned count)
{
	graph_opts o = graph_defaults(k, 0, "t");
	o.node_count = count;
	graph g;
	assert_int_equal(graph_build(&g, p, m, &o), 0);
	agg a;
	assert_int_equal(agg_compute(&a, p, m), 0);
	assert_int_equal(g.total, path_total(p, m, k));
	int64_t total = g.total;
	int64_t cut = (int64_t)((double)total * GRAPH_NODE_FRACTION);
	assert_int_equal(g.node_cut, cut);
	/* Kept: the biggest |cum| at or over the cut, at most count. */
	size_t over = 0;
	for (size_t i = 0; i < g.nnodes; i++) {
		int64_t c = g.nodes[i].cum < 0 ? -g.nodes[i].cum : g.nodes[i].cum;
		assert_true(c >= cut);
		if (i) {
			int64_t pc = g.nodes[i - 1].cum < 0 ? -g.nodes[i - 1].cum : g.nodes[i - 1].cum;
			assert_true(pc >= c);
		}
	}
	/* Edges between the kept nodes. */
	ref_edge *re = NULL;
	size_t nre = 0;
	uint32_t seq[PATH_MAX_NODES], fseq[PATH_MAX_NODES];
	uint8_t *present = calloc(m->nnodes + 1, 1);
	assert_non_null(present);
	for (size_t i = 0; i < p->samples.len; i++) {
		int64_t v;
		long n = sample_path(p, m, i, k, seq, fseq, &v);
		for (long s = 0; s < n; s++)
			present[seq[s]] = 1;
		long prev = -1;
		int gap = 0;
		for (long s = 0; s < n; s++) {
			if (find_node(&g, seq[s]) < 0) {
				gap = 1;
				continue;
			}
			if (prev >= 0) {
				size_t e = 0;
				while (e < nre && !(re[e].from == seq[prev] && re[e].to == seq[s]))
					e++;
				if (e == nre) {
					re = realloc(re, (nre + 1) * sizeof(*re));
					re[nre++] = (ref_edge){ seq[prev], seq[s], 0, 1, 0, 0 };
				}
				re[e].res |= gap;
				re[e].inl &= fseq[prev] == fseq[s];
				if (re[e].stamp != i + 1) {
					re[e].stamp = i + 1;
					re[e].w += v;
				}
			}
			prev = (long)s;
			gap = 0;
		}
	}
	for (uint32_t x = 0; x < m->nnodes; x++) {
		int64_t c = a.v[x].cum[k] < 0 ? -a.v[x].cum[k] : a.v[x].cum[k];
		over += present[x] && c >= cut && find_node(&g, x) < 0;
	}
	assert_int_equal(over, g.capped);
	assert_true(!count || g.nnodes <= count);
	free(present);
	int64_t ecut = (int64_t)((double)total * GRAPH_EDGE_FRACTION);
	size_t kept = 0, dropped = 0;
	for (size_t e = 0; e < nre; e++) {
		int64_t w = re[e].w < 0 ? -re[e].w : re[e].w;
		const graph_edge *ge = find_edge(&g, (uint32_t)find_node(&g, re[e].from), (uint32_t)find_node(&g, re[e].to));
		if (w < ecut) {
			assert_null(ge);
			dropped++;
			continue;
		}
		assert_non_null(ge);
		kept++;
		assert_int_equal(ge->w, re[e].w);
		assert_int_equal(ge->residual, re[e].res);
		assert_int_equal(ge->is_inline, re[e].inl);
	}
	assert_int_equal(kept, g.nedges);
	assert_int_equal(dropped, g.dropped_edges);
	free(re);
	agg_free(&a);
	graph_free(&g);
}

/* Random profiles: recursion, inline chains (names repeat inside a
 * frame), frames whose nodes are all hidden, samples freed entirely. */
static void random_profiles(void **state)
{
	(void)state;
	for (int seed = 1; seed <= 40; seed++) {
		randprof_seed(0x2545f4914f6cdd1dULL * (uint64_t)seed);
		prof *p = randprof_new(200, 12, seed & 1);
		assert_non_null(p);
		prof_nodemap m, hm;
		assert_int_equal(randprof_map(&m), 0);
		check_all(p, &m, 0);
		for (int k = 0; k < AGG_NMETRIC; k++)
			check_cutoffs(p, &m, (enum agg_metric)k, k == 1 ? 3 : GRAPH_NODE_COUNT);
		name_filter f;
		memset(&f, 0, sizeof(f));
		char err[200];
		assert_int_equal(filter_set(&f, "^n[0-3]$", err, sizeof(err)), 0);
		assert_int_equal(filter_hide_map(&hm, &m, &f), 0);
		check_all(p, &hm, 0);
		check_cutoffs(p, &hm, AGG_ALLOC_BYTES, GRAPH_NODE_COUNT);
		nodemap_free(&hm);
		filter_clear(&f);
		nodemap_free(&m);
		prof_free(p);
	}
}

/* A real skynet dump (Lua's recursion through the C stack) and the diff of
 * two of its runs (signed deltas), by address. */
static void real_dump_and_diff(void **state)
{
	(void)state;
	prof_error err;
	prof *base = prof_load("test/data/test_mem_fixed.pro", &err), *cur = prof_load("test/data/test_mem.pro", &err);
	assert_non_null(base);
	assert_non_null(cur);
	prof *d = diff_build(base, cur, &err);
	assert_non_null(d);
	prof_nodemap m;
	assert_int_equal(nodemap_by_address(&m, cur), 0);
	check_all(cur, &m, 0);
	check_cutoffs(cur, &m, AGG_INUSE_BYTES, GRAPH_NODE_COUNT);
	nodemap_free(&m);
	assert_int_equal(nodemap_by_address(&m, d), 0);
	check_all(d, &m, 1);
	check_cutoffs(d, &m, AGG_INUSE_BYTES, GRAPH_NODE_COUNT);
	check_cutoffs(d, &m, AGG_ALLOC_OBJS, 5);
	nodemap_free(&m);
	prof_free(d);
	prof_free(base);
	prof_free(cur);
}

/* No samples: an empty graph, written and well formed. */
static void empty_profile(void **state)
{
	(void)state;
	prof *p = prof_new();
	prof_nodemap m;
	assert_int_equal(nodemap_by_address(&m, p), 0);
	graph_opts o = graph_defaults(AGG_INUSE_BYTES, 0, NULL);
	graph g;
	assert_int_equal(graph_build(&g, p, &m, &o), 0);
	assert_int_equal(g.nnodes + g.nedges + g.total, 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_int_equal(graph_write_dot(out, &g, p, &m, &o), 0);
	fclose(out);
	assert_non_null(strstr(buf, "Dropped 0 nodes"));
	assert_string_equal(buf + len - 2, "}\n");
	free(buf);
	graph_free(&g);
	nodemap_free(&m);
	prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_profiles),
		cmocka_unit_test(real_dump_and_diff),
		cmocka_unit_test(empty_profile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
