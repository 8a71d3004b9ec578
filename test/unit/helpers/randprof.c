/* randprof.c - random profiles and maps for the unit tests. */
#include "test/unit/helpers/randprof.h"

#include <stdio.h>

static uint64_t rng;

void randprof_seed(uint64_t seed)
{
	rng = seed;
}

uint32_t randprof_rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

prof *randprof_new(size_t nsamples, uint32_t maxdepth, int chain)
{
	prof *p = prof_new();
	if (!p)
		return NULL;
	uint32_t nf = chain ? RANDPROF_FRAMES - 2 : RANDPROF_FRAMES;
	for (uint32_t f = 0; f < RANDPROF_FRAMES; f++)
		if (prof_frame_intern(p, 0x1000 + f) == PROF_NONE)
			goto fail;
	for (size_t s = 0; s < nsamples; s++) {
		uint32_t depth = randprof_rnd(maxdepth + 1), all = depth + (chain ? 2 : 0);
		uint32_t *dst = prof_stack_begin(p, all);
		if (!dst)
			goto fail;
		for (uint32_t d = 0; d < depth; d++)
			dst[d] = randprof_rnd(4) == 0 && d ? dst[randprof_rnd(d)] : randprof_rnd(nf);
		if (chain) {
			dst[depth] = RANDPROF_FRAMES - 2;
			dst[depth + 1] = RANDPROF_FRAMES - 1;
		}
		uint32_t sid = prof_stack_commit(p, all);
		uint64_t objs = 1 + randprof_rnd(5), size = 8 * (1 + randprof_rnd(100));
		uint64_t fo = randprof_rnd(3) == 0 ? objs : randprof_rnd((uint32_t)objs);
		if (sid == PROF_NONE || prof_sample_add(p, sid, size, objs, objs * size, fo, fo * size))
			goto fail;
	}
	return p;
fail:
	prof_free(p);
	return NULL;
}

int randprof_map(prof_nodemap *m)
{
	if (nodemap_begin(m, RANDPROF_FRAMES))
		return -1;
	for (uint32_t f = 0; f < RANDPROF_FRAMES; f++) {
		uint32_t k = 1 + randprof_rnd(3);
		for (uint32_t i = 0; i < k; i++) {
			char name[8];
			snprintf(name, sizeof(name), "n%u", randprof_rnd(12));
			uint32_t node = nodemap_node(m, name, i + 1 < k ? AGG_NODE_INLINE : 0);
			if (node == UINT32_MAX || nodemap_push(m, node)) {
				nodemap_free(m);
				return -1;
			}
		}
		nodemap_end_frame(m);
	}
	return 0;
}
