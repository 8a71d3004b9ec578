/* newmarks.c - the diff a mode shows and its NEW and GONE marks: per node
 * of a map over the profile on screen, its enum diff_mark. Between two
 * moments (live snapshots, a recording's mark and cursor): snap_marks_nodes
 * over the diff's per-stack flags; two files: diff_marks_nodes over NEW.
 * The screen's map is cached until it or the diff changes. */
#include <stdlib.h>

#include "core/diff_marks.h"
#include "core/snapdiff.h"
#include "tui/app_state.h"
#include "tui/newmarks.h"

void newmarks_set(new_marks *nm, prof *d, uint8_t *flags)
{
	prof_free(nm->d);
	free(nm->flags);
	nm->d = d;
	nm->flags = flags;
	nm->gen++;
}

/* out gets the marks of m's nodes; ad is the aggregate over m of the
 * profile on screen (the diff). 0 or -1. */
static int marks_compute(const new_marks *nm, const prof_nodemap *m, const agg *ad, uint8_t *out)
{
	return nm->flags ? snap_marks_nodes(nm->d, m, nm->flags, out) : diff_marks_nodes(nm->newp, ad, m, out);
}

static int marks_known(const new_marks *nm)
{
	return (nm->d && nm->flags) || nm->newp;
}

int newmarks_node(new_marks *nm, const app *a, uint32_t node)
{
	const prof_nodemap *m = a->v.m;
	if (!marks_known(nm))
		return DIFF_MARK_NONE;
	if (nm->map != m || nm->n != m->nnodes || nm->built != nm->gen) {
		uint8_t *nn = realloc(nm->node_mark, m->nnodes ? m->nnodes : 1);
		if (!nn)
			return DIFF_MARK_NONE;
		nm->node_mark = nn;
		nm->map = NULL;   /* half built until the marks are */
		if (marks_compute(nm, m, a->v.a, nn))
			return DIFF_MARK_NONE;
		nm->map = m;
		nm->n = m->nnodes;
		nm->built = nm->gen;
	}
	return node < nm->n ? nm->node_mark[node] : DIFF_MARK_NONE;
}

int newmarks_map(const new_marks *nm, const app *a, const prof_nodemap *m, uint8_t *out)
{
	agg ad;
	if (!marks_known(nm))
		return -1;
	if (nm->flags)
		return marks_compute(nm, m, NULL, out);
	if (agg_compute(&ad, a->v.p, m))
		return -1;
	int rc = marks_compute(nm, m, &ad, out);
	agg_free(&ad);
	return rc;
}

void newmarks_free(new_marks *nm)
{
	newmarks_set(nm, NULL, NULL);
	free(nm->node_mark);
	nm->node_mark = NULL;
	nm->map = NULL;
}
