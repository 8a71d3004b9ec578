/* diff_new.c - NEW rows of a file diff, from cur's aggregate over d's map. */
#include "core/diff_new.h"

#include <string.h>

int diff_new_nodes(const prof *cur, const agg *ad, const prof_nodemap *m, uint8_t *out)
{
	agg ac;
	if (agg_compute(&ac, cur, m))
		return -1;
	for (uint32_t n = 0; n < m->nnodes; n++) {
		const int64_t *c = ac.v[n].cum, *d = n < ad->nnodes ? ad->v[n].cum : c;
		out[n] = c[AGG_ALLOC_OBJS] > 0 && c[AGG_ALLOC_OBJS] == d[AGG_ALLOC_OBJS] &&
			 c[AGG_ALLOC_BYTES] == d[AGG_ALLOC_BYTES];
	}
	agg_free(&ac);
	return 0;
}
