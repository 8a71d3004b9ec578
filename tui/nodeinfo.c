/* nodeinfo.c - per node facts the screens show beside the name, cached for
 * the node map on screen: its source location (symbols/nodeloc.h) and the
 * inlined caller/callee edges (core/inline_edges.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/inline_edges.h"
#include "core/path.h"
#include "symbols/nodeloc.h"
#include "tui/app.h"

typedef struct node_info {
	const prof_nodemap *m;   /* the map these are for */
	const prof *p;
	struct sym *sy;
	uint32_t nnodes, nframes;
	size_t nodes_len;
	sym_node_loc *loc;       /* owned; NULL when not computed (or none) */
	int loc_done;
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

const char *nodeinfo_loc(app *a, uint32_t node, uint32_t *frame, uint32_t *level)
{
	node_info *ni = fresh(a);
	if (frame)
		*frame = UINT32_MAX;
	if (!ni || !ni->sy || node >= ni->nnodes)
		return "";
	if (!ni->loc_done) {
		ni->loc_done = 1;
		if (sym_node_locs(&ni->loc, a->v.p, a->v.m, ni->sy))
			ni->loc = NULL;
	}
	if (!ni->loc || ni->loc[node].frame == UINT32_MAX)
		return "";
	const sym_info *si = sym_frame(ni->sy, ni->loc[node].frame);
	if (!si || ni->loc[node].level >= si->nchain)
		return "";
	const sym_loc *l = &si->chain[ni->loc[node].level];
	if (frame)
		*frame = ni->loc[node].frame;
	if (level)
		*level = ni->loc[node].level;
	snprintf(ni->buf, sizeof(ni->buf), "%s:%d", path_base(l->file), l->line);
	return ni->buf;
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
