/* nodeloc.h - one source location per node of a node map, for the row
 * labels and the source pane: where in the function (or line) the node's
 * memory goes, taken from the frame that carries the most of the metric
 * on screen through it. */
#ifndef MPROF_NODELOC_H
#define MPROF_NODELOC_H

#include <stdint.h>

#include "core/agg.h"
#include "symbols/sym.h"

typedef struct sym_node_loc {
	uint32_t frame;   /* UINT32_MAX: no location known */
	uint32_t level;   /* index in sym_frame(s, frame)->chain */
} sym_node_loc;

/* Fills *out (caller frees with free()) with m->nnodes entries for m, a map
 * of p built by sym_nodemap at function, line or address granularity over
 * s (not one with nodes hidden: the node's k-th place in a frame's node
 * list is chain level k): per node, one location per metric (enum
 * agg_metric). A frame weighs the metric summed over the samples through
 * it, each stack once; the heaviest by magnitude wins (a diff's biggest
 * change, growth or shrink), ties going to the lowest frame index.
 * Returns 0 or -1 (ENOMEM). */
int sym_node_locs(sym_node_loc (**out)[AGG_NMETRIC], const prof *p, const prof_nodemap *m, sym *s);

/* The chain level of node in frame's node list of m (a map as above), or
 * UINT32_MAX when the frame does not stand for node. */
uint32_t sym_node_level(const prof_nodemap *m, uint32_t frame, uint32_t node);

#endif
