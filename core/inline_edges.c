/* inline_edges.c - the set of inlined (callee, caller) node pairs. */
#include "core/inline_edges.h"

#include <stdlib.h>
#include <string.h>

static uint64_t key_of(uint32_t inner, uint32_t outer)
{
	return ((uint64_t)inner << 32 | outer) + 1;
}

static size_t slot(const inline_edges *e, uint64_t k)
{
	size_t h = (size_t)(k * 0x9e3779b97f4a7c15ULL >> 17) & e->mask;
	while (e->keys[h] && e->keys[h] != k)
		h = (h + 1) & e->mask;
	return h;
}

int inline_edges_build(inline_edges *e, const prof_nodemap *m)
{
	memset(e, 0, sizeof(*e));
	size_t pairs = 0;
	for (uint32_t f = 0; f < m->nframes; f++)
		if (m->off[f + 1] > m->off[f])
			pairs += m->off[f + 1] - m->off[f] - 1;
	size_t cap = 16;
	while (cap < pairs * 2)
		cap *= 2;
	e->keys = calloc(cap, sizeof(*e->keys));
	if (!e->keys)
		return -1;
	e->mask = cap - 1;
	for (uint32_t f = 0; f < m->nframes; f++)
		for (uint32_t j = m->off[f]; j + 1 < m->off[f + 1]; j++) {
			uint64_t k = key_of(m->nodes[j], m->nodes[j + 1]);
			size_t h = slot(e, k);
			if (!e->keys[h]) {
				e->keys[h] = k;
				e->n++;
			}
		}
	return 0;
}

int inline_edges_has(const inline_edges *e, uint32_t inner, uint32_t outer)
{
	if (!e->keys || !e->n)
		return 0;
	return e->keys[slot(e, key_of(inner, outer))] != 0;
}

void inline_edges_free(inline_edges *e)
{
	free(e->keys);
	memset(e, 0, sizeof(*e));
}
