/* inline_edges.c - the set of inlined (callee, caller) node pairs. */
#include "core/inline_edges.h"

static uint64_t key_of(uint32_t inner, uint32_t outer)
{
	return (uint64_t)inner << 32 | outer;
}

int inline_edges_build(inline_edges *e, const prof_nodemap *m)
{
	size_t pairs = 0;
	for (uint32_t f = 0; f < m->nframes; f++)
		if (m->off[f + 1] > m->off[f])
			pairs += m->off[f + 1] - m->off[f] - 1;
	if (u64map_init(&e->pairs, pairs))
		return -1;
	/* Sized for every pair: the puts never grow, so never fail. */
	for (uint32_t f = 0; f < m->nframes; f++)
		for (uint32_t j = m->off[f]; j + 1 < m->off[f + 1]; j++)
			u64map_put(&e->pairs, key_of(m->nodes[j], m->nodes[j + 1]), 1);
	return 0;
}

int inline_edges_has(const inline_edges *e, uint32_t inner, uint32_t outer)
{
	return u64map_get(&e->pairs, key_of(inner, outer)) != U64MAP_NONE;
}

void inline_edges_free(inline_edges *e)
{
	u64map_free(&e->pairs);
}
