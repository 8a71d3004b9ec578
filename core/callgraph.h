/* callgraph.h - the callers and callees of one node (pprof's peek): how much
 * reaches the node through each caller, and the cum through each callee.
 * All four metrics at once, so switching inuse/alloc or bytes/objects only
 * re-sorts. No I/O. */
#ifndef MPROF_CALLGRAPH_H
#define MPROF_CALLGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "core/agg.h"

typedef struct cg_edge {
	uint32_t node;              /* the caller or callee */
	uint8_t seen;               /* AGG_SEEN_INUSE / AGG_SEEN_ALLOC */
	int64_t v[AGG_NMETRIC];     /* counted once per stack per edge */
	/* Per metric, the frame where the edge is made: the caller's on a
	 * caller edge, the centre's on a callee edge (its call site), the one
	 * carrying the most of the metric (the biggest change in a diff; ties:
	 * the lowest frame); UINT32_MAX when none. */
	uint32_t site[AGG_NMETRIC];
} cg_edge;

typedef struct callgraph {
	uint32_t node;              /* the centre */
	uint8_t seen;               /* AGG_SEEN_* of the centre */
	int64_t flat[AGG_NMETRIC], cum[AGG_NMETRIC];
	cg_edge *callers, *callees; /* owned; free with callgraph_free */
	size_t ncallers, ncallees;
	size_t ncallers_shown, ncallees_shown; /* after callgraph_sort: seen in the mode */
} callgraph;

/* The nodes of a stack, leaf first (frames expanded through the map, inline
 * nodes innermost first), into *buf (grown with realloc; the caller frees).
 * Returns the count, or -1 on ENOMEM. */
long stack_nodes(const prof *p, const prof_nodemap *m, uint32_t stack, uint32_t **buf, size_t *cap);

/* One scan over the samples. Returns 0 or -1 (ENOMEM). */
int callgraph_compute(callgraph *cg, const prof *p, const prof_nodemap *m, uint32_t node);
/* Orders both lists by metric, descending (ties: node id); edges not seen in
 * the mode (seen_mask) go last and are not counted in n*_shown. */
void callgraph_sort(callgraph *cg, enum agg_metric metric, uint8_t seen_mask);
void callgraph_free(callgraph *cg);

#endif
