/* graph.h - the call graph of a whole profile as a picture (pprof's -dot,
 * -svg): nodes at the map's granularity (inline nodes their own) with flat
 * and cum, edges caller -> callee carrying the metric that flows through
 * them, each counted once per stack (recursion too: a self-edge); nodes and
 * edges below a fraction of the total dropped, and counted. Written as
 * graphviz dot by mprof itself, or rendered by graphviz's dot program. */
#ifndef MPROF_GRAPH_H
#define MPROF_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/agg.h"
#include "core/load.h"

/* pprof's defaults for graphs (-nodefraction, -edgefraction, -nodecount). */
#define GRAPH_NODE_FRACTION 0.005
#define GRAPH_EDGE_FRACTION 0.001
#define GRAPH_NODE_COUNT 80

typedef struct graph_opts {
	enum agg_metric metric;
	int diff;                /* p holds deltas (diff_build): signed labels */
	double node_fraction;    /* drop nodes with |cum| below this share of the total */
	double edge_fraction;    /* drop edges with |weight| below this share */
	unsigned node_count;     /* then keep at most this many nodes (by |cum|); 0: all */
	const char *title;       /* the legend's "File:" line; may be NULL */
} graph_opts;

/* pprof's defaults for metric. */
static inline graph_opts graph_defaults(enum agg_metric metric, int diff, const char *title)
{
	return (graph_opts){ metric, diff, GRAPH_NODE_FRACTION, GRAPH_EDGE_FRACTION, GRAPH_NODE_COUNT, title };
}

typedef struct graph_node {
	uint32_t node;           /* id in the map */
	int64_t flat, cum;       /* cum: once per stack, however often the node recurs */
} graph_node;

typedef struct graph_edge {
	uint32_t from, to;       /* indices into graph.nodes; from == to: recursion */
	int64_t w;               /* once per stack */
	uint8_t is_inline;       /* every stack makes it inside one frame (an inlined call) */
	uint8_t residual;        /* some stack skips dropped nodes on it (drawn dotted) */
} graph_edge;

typedef struct graph {
	graph_node *nodes;       /* kept, biggest |cum| first; owned */
	graph_edge *edges;       /* kept, heaviest first; owned */
	size_t nnodes, nedges;
	int64_t total;           /* sum over call paths (node sequences) of |net metric|: what shares are of */
	int64_t shown;           /* flat summed over the kept nodes */
	int64_t node_cut, edge_cut;   /* the cutoffs, in the metric */
	size_t all_nodes;        /* nodes in the profile before dropping */
	size_t dropped_nodes;    /* below node_cut */
	size_t dropped_edges;    /* between kept nodes, below edge_cut */
	size_t capped;           /* over node_count after the fraction */
} graph;

/* Builds g over p's samples (two passes). 0, or -1 on ENOMEM; free with graph_free. */
int graph_build(graph *g, const prof *p, const prof_nodemap *m, const graph_opts *o);
void graph_free(graph *g);

/* Writes g as graphviz dot: node labels name, flat and cum with their
 * shares, sized by flat and coloured by cum as pprof does; tooltips hold
 * the exact values. 0, or -1 on a write error. */
int graph_write_dot(FILE *out, const graph *g, const prof *p, const prof_nodemap *m, const graph_opts *o);

/* The format the name of path asks for: "dot" (.dot, .gv), "svg", "png",
 * "pdf"; NULL for any other. */
const char *graph_format(const char *path);
/* 1 when graphviz's dot program is on PATH (needed for all but .dot). */
int graph_can_render(void);
/* Builds and writes the graph to path in the format of its name (replaced
 * atomically): dot by mprof, the others rendered by graphviz's dot.
 * 0, or -1 with err filled ("PATH: reason"); *st (may be NULL) gets the
 * graph's counts, its arrays freed. */
int graph_save(const prof *p, const prof_nodemap *m, const graph_opts *o, const char *path, graph *st,
	       prof_error *err);

#endif
