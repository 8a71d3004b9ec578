/* inline_edges.h - which caller/callee edges of a node map are inlined
 * calls: an inline frame expands into consecutive nodes of one frame's
 * list (innermost first), so inner -> outer there is an inlined call. No
 * I/O. */
#ifndef MPROF_INLINE_EDGES_H
#define MPROF_INLINE_EDGES_H

#include <stddef.h>
#include <stdint.h>

#include "core/agg.h"
#include "core/u64map.h"

typedef struct inline_edges {
	u64map pairs;     /* inner << 32 | outer, each once; pairs.used of them */
} inline_edges;

/* Collects the pairs of m into e (free with inline_edges_free). 0 or -1. */
int inline_edges_build(inline_edges *e, const prof_nodemap *m);
/* 1 when callee inner was inlined into caller outer in some frame. */
int inline_edges_has(const inline_edges *e, uint32_t inner, uint32_t outer);
void inline_edges_free(inline_edges *e);

#endif
