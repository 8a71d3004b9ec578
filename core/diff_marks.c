/* diff_marks.c - NEW and GONE rows of a file diff, from cur's aggregate
 * over d's map. */
#include "core/diff_marks.h"

#include <string.h>

int diff_marks_nodes(const prof *cur, const agg *ad, const prof_nodemap *m, uint8_t *out)
{
	agg ac;
	if (agg_compute(&ac, cur, m))
		return -1;
	for (uint32_t n = 0; n < m->nnodes; n++) {
		const int64_t *c = ac.v[n].cum, *d = n < ad->nnodes ? ad->v[n].cum : c;
		/* cum(BASE) = c - d, compared without subtracting (no overflow):
		 * NEW when it is 0 and c is not, GONE when c is 0 and it is not. */
		int base_none = c[AGG_ALLOC_OBJS] == d[AGG_ALLOC_OBJS] && c[AGG_ALLOC_BYTES] == d[AGG_ALLOC_BYTES];
		int cur_none = !c[AGG_ALLOC_OBJS] && !c[AGG_ALLOC_BYTES];
		out[n] = c[AGG_ALLOC_OBJS] > 0 && base_none ? DIFF_MARK_NEW
			: cur_none && d[AGG_ALLOC_OBJS] < 0 ? DIFF_MARK_GONE : DIFF_MARK_NONE;
	}
	agg_free(&ac);
	return 0;
}
