/* vec.h - growing a malloc'd array by doubling: the one way core, symbols,
 * attach and tui grow theirs (prof.h's vectors included). */
#ifndef MPROF_VEC_H
#define MPROF_VEC_H

#include <stdint.h>
#include <stdlib.h>

/* Makes room for need elements of elem bytes in *v (capacity *cap, which
 * doubles from 16). 0, or -1 when out of memory (then *v and *cap are as
 * they were). */
static inline int vec_grow(void **v, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t want = *cap ? *cap : 16;
	while (want < need) {
		if (want > SIZE_MAX / 2 / elem)
			return -1;
		want *= 2;
	}
	void *nv = realloc(*v, want * elem);
	if (!nv)
		return -1;
	*v = nv;
	*cap = want;
	return 0;
}

#endif
