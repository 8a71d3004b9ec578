/* tree.h - the top-down call tree: from the outermost frames in, each tree
 * node a call path, with cum (every sample through the path) and flat
 * (samples whose leaf is the path's end), all four metrics. Children are
 * computed when a node is first expanded, from the samples of its parent:
 * memory goes with what is expanded, not with the profile. No I/O. */
#ifndef MPROF_TREE_H
#define MPROF_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "core/agg.h"

typedef struct tree_node {
	uint32_t node;          /* node id in the map; UINT32_MAX for the root */
	uint32_t parent;        /* tree index; UINT32_MAX for the root */
	uint32_t depth;         /* 0 for the outermost frames */
	uint8_t seen;           /* AGG_SEEN_* */
	uint8_t expanded;       /* children shown */
	uint8_t built;          /* kids computed */
	uint8_t borrowed;       /* samples is its parent's */
	uint32_t *kids;         /* tree indices, owned */
	uint32_t nkids;
	uint32_t *samples;      /* sample indices through this path, listed when
	                         * it is built; NULL: all samples */
	uint32_t nsamples;
	int64_t cum[AGG_NMETRIC], flat[AGG_NMETRIC];
} tree_node;

typedef struct calltree {
	const prof *p;          /* borrowed */
	const prof_nodemap *m;  /* borrowed */
	tree_node *n;           /* n[0] is the invisible root */
	size_t len, cap;
	uint32_t *vis;          /* visible rows (tree indices), owned */
	size_t nvis;
	enum agg_metric metric; /* order of siblings: cum of this, descending */
	uint8_t seen_mask;      /* only nodes seen in this mode are shown */
	uint32_t *slot;         /* scratch per map node, kept zero between builds */
} calltree;

/* Builds the root and its children (the outermost nodes). 0 or -1 (ENOMEM). */
int tree_build(calltree *t, const prof *p, const prof_nodemap *m);
void tree_free(calltree *t);
/* Expands / collapses tree node i; 0 or -1 (ENOMEM). */
int tree_expand(calltree *t, uint32_t i);
void tree_collapse(calltree *t, uint32_t i);
/* Expands from i down the heaviest child at each level; returns the deepest
 * tree index reached, or UINT32_MAX on ENOMEM. */
uint32_t tree_expand_heaviest(calltree *t, uint32_t i);
/* Recomputes the visible rows for metric and mode. 0 or -1 (ENOMEM). */
int tree_visible(calltree *t, enum agg_metric metric, uint8_t seen_mask);
/* The row of tree index i in the visible rows, or -1. */
long tree_row_of(const calltree *t, uint32_t i);

#endif
