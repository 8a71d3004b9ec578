/* nodeinfo.c - per node facts the screens show beside the name, cached for
 * the node map on screen: its source location for each metric
 * (symbols/nodeloc.h), a caller/callee edge's call site (core/callgraph.h)
 * and the inlined caller/callee edges (core/inline_edges.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/inline_edges.h"
#include "core/path.h"
#include "symbols/nodeloc.h"
#include "tui/app_state.h"
#include "tui/nodeinfo.h"

typedef struct node_info {
	const prof_nodemap *m;   /* the map these are for */
	const prof *p;
	struct sym *sy;
	uint32_t nnodes, nframes;
	size_t nodes_len;
	sym_node_loc (*loc)[AGG_NMETRIC];    /* owned, per node and metric; NULL when not computed (or none) */
	int loc_done;
	int64_t loc_total[AGG_NMETRIC];      /* the totals then: a live refresh changes them */
	inline_edges ie;
	int ie_done;
	char buf[600];
} node_info;

/* Drops what belongs to another map or profile. */
static node_info *fresh(app *a)
{
	node_info *ni = a->ni;
	if (!ni) {
		ni = a->ni = calloc(1, sizeof(*ni));
		if (!ni)
			return NULL;
	}
	const prof_nodemap *m = a->v.m;
	if (ni->m != m || ni->p != a->v.p || ni->sy != app_sym(a) || ni->nnodes != m->nnodes ||
	    ni->nframes != m->nframes || ni->nodes_len != m->nodes_len) {
		free(ni->loc);
		ni->loc = NULL;
		ni->loc_done = 0;
		inline_edges_free(&ni->ie);
		ni->ie_done = 0;
		ni->m = a->v.m;
		ni->p = a->v.p;
		ni->sy = app_sym(a);
		ni->nnodes = m->nnodes;
		ni->nframes = m->nframes;
		ni->nodes_len = m->nodes_len;
	}
	return ni;
}

/* "file:line" of frame's chain level into ni->buf, "" when unknown. */
static const char *loc_text(node_info *ni, uint32_t frame, uint32_t level, uint32_t *fo, uint32_t *lo)
{
	const sym_info *si = frame == UINT32_MAX ? NULL : sym_frame(ni->sy, frame);
	if (!si || level >= si->nchain || !si->chain[level].file)
		return "";
	const sym_loc *l = &si->chain[level];
	if (fo)
		*fo = frame;
	if (lo)
		*lo = level;
	snprintf(ni->buf, sizeof(ni->buf), "%s:%d", path_base(l->file), l->line);
	return ni->buf;
}

/* The location of node: its heaviest frame for the metric on screen. */
static const char *node_loc(app *a, node_info *ni, uint32_t node, uint32_t *frame, uint32_t *level)
{
	view *v = &a->v;
	if (!ni->loc_done || memcmp(ni->loc_total, v->a->total, sizeof(ni->loc_total))) {
		free(ni->loc);
		ni->loc_done = 1;
		memcpy(ni->loc_total, v->a->total, sizeof(ni->loc_total));
		/* The granularity's own map: a hiding one shifts chain levels. */
		if (sym_node_locs(&ni->loc, v->p, v->gran[v->cur_gran].m, ni->sy))
			ni->loc = NULL;
	}
	if (!ni->loc || node >= ni->nnodes)
		return "";
	const sym_node_loc *l = &ni->loc[node][view_metric(v)];
	return loc_text(ni, l->frame, l->level, frame, level);
}

const char *nodeinfo_row_loc(app *a, size_t row, uint32_t *frame, uint32_t *level)
{
	node_info *ni = fresh(a);
	view *v = &a->v;
	if (frame)
		*frame = UINT32_MAX;
	if (!ni || !ni->sy)
		return "";
	const cg_edge *e = NULL;
	int part = view_cur(v)->kind == VIEW_PEEK && v->cg_valid ? view_peek_row(v, row, &e) : 1;
	if (!e)
		return node_loc(a, ni, view_row_node(v, row), frame, level);
	/* The call site: in the caller on a caller's row, in the centre on a callee's. */
	uint32_t f = e->site[view_metric(v)], in = part == 0 ? e->node : v->cg.node;
	return loc_text(ni, f, sym_node_level(v->gran[v->cur_gran].m, f, in), frame, level);
}

int nodeinfo_inline_edge(app *a, uint32_t inner, uint32_t outer)
{
	node_info *ni = fresh(a);
	if (!ni)
		return 0;
	if (!ni->ie_done) {
		ni->ie_done = 1;
		if (inline_edges_build(&ni->ie, a->v.m))
			memset(&ni->ie, 0, sizeof(ni->ie));
	}
	return inline_edges_has(&ni->ie, inner, outer);
}

void nodeinfo_free(app *a)
{
	if (!a->ni)
		return;
	free(a->ni->loc);
	inline_edges_free(&a->ni->ie);
	free(a->ni);
	a->ni = NULL;
}
