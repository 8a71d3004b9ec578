/* newmarks.c - the NEW marks of a diff between two moments of one process
 * (live snapshots, a recording's mark and cursor): per node of the map on
 * screen, whether no stack through it existed at the earlier moment. Cached
 * until the map or the diff changes. */
#include <stdlib.h>

#include "core/snapdiff.h"
#include "tui/app.h"

int newmarks_node(new_marks *nm, const app *a, const prof *d, const uint8_t *is_new, unsigned gen, uint32_t node)
{
	const prof_nodemap *m = a->v.m;
	if (!d || !is_new)
		return 0;
	if (nm->map != m || nm->n != m->nnodes || nm->gen != gen) {
		uint8_t *nn = realloc(nm->node_new, m->nnodes ? m->nnodes : 1);
		if (!nn)
			return 0;
		nm->node_new = nn;
		nm->map = NULL;   /* half built until snap_new_nodes succeeds */
		if (snap_new_nodes(d, m, is_new, nn))
			return 0;
		nm->map = m;
		nm->n = m->nnodes;
		nm->gen = gen;
	}
	return node < nm->n && nm->node_new[node];
}

void newmarks_free(new_marks *nm)
{
	free(nm->node_new);
	nm->node_new = NULL;
	nm->map = NULL;
}
