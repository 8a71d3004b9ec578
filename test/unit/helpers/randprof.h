/* randprof.h - random profiles for the unit tests that check a fast path
 * against a plain recomputation (test_agg, test_tree). */
#ifndef MPROF_TEST_RANDPROF_H
#define MPROF_TEST_RANDPROF_H

#include <stddef.h>
#include <stdint.h>

#include "core/agg.h"

#define RANDPROF_FRAMES 40

/* The generator: seed, then draws in [0, n). */
void randprof_seed(uint64_t seed);
uint32_t randprof_rnd(uint32_t n);
/* nsamples samples over RANDPROF_FRAMES frames, stacks of depth
 * 0..maxdepth with recursion, some samples freed entirely; with chain,
 * frames 38 and 39 are the two outermost of every stack (main under
 * _start). NULL on ENOMEM. */
prof *randprof_new(size_t nsamples, uint32_t maxdepth, int chain);
/* A map where a frame is 1-3 nodes over the names n0..n11 (an inline
 * chain; names repeat). 0 or -1 (ENOMEM). */
int randprof_map(prof_nodemap *m);

#endif
