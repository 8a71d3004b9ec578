/* newmarks.c - the diff a mode shows and its NEW marks: per node of the
 * map on screen, whether no stack through it existed at the earlier moment
 * (live snapshots, a recording's mark and cursor: snap_new_nodes over the
 * diff's is_new) or in BASE (two files: diff_new_nodes over NEW). Cached
 * until the map or the diff changes. */
#include <stdlib.h>

#include "core/diff_new.h"
#include "core/snapdiff.h"
#include "tui/app.h"

void newmarks_set(new_marks *nm, prof *d, uint8_t *is_new)
{
	prof_free(nm->d);
	free(nm->is_new);
	nm->d = d;
	nm->is_new = is_new;
	nm->gen++;
}

int newmarks_node(new_marks *nm, const app *a, uint32_t node)
{
	const prof_nodemap *m = a->v.m;
	if (!(nm->d && nm->is_new) && !nm->newp)
		return 0;
	if (nm->map != m || nm->n != m->nnodes || nm->built != nm->gen) {
		uint8_t *nn = realloc(nm->node_new, m->nnodes ? m->nnodes : 1);
		if (!nn)
			return 0;
		nm->node_new = nn;
		nm->map = NULL;   /* half built until the marks are */
		if (nm->is_new ? snap_new_nodes(nm->d, m, nm->is_new, nn) : diff_new_nodes(nm->newp, a->v.a, m, nn))
			return 0;
		nm->map = m;
		nm->n = m->nnodes;
		nm->built = nm->gen;
	}
	return node < nm->n && nm->node_new[node];
}

void newmarks_free(new_marks *nm)
{
	newmarks_set(nm, NULL, NULL);
	free(nm->node_new);
	nm->node_new = NULL;
	nm->map = NULL;
}
