/* heap_scale.h - un-sampling of Poisson-sampled heap counts.  heap_weight
 * weighs each sampled allocation by its own probability (the hook's
 * counters, recordings); heap_scale does what pprof's legacy parser
 * (scaleHeapSample) and jeprof (AdjustSamples) do with other tools' files,
 * which keep only a bucket's totals: its mean size stands for every
 * allocation in it. */
#ifndef MPROF_HEAP_SCALE_H
#define MPROF_HEAP_SCALE_H

#include <math.h>
#include <stdint.h>

/* A scaled value as u64: hostile counts can scale past 2^64 (saturate). */
static inline uint64_t heap_scale_clamp(double v)
{
	return v >= 18446744073709551615.0 ? UINT64_MAX : v > 0 ? (uint64_t)v : 0;
}

/* Scales (count, bytes) in place; rate <= 1 means every allocation was
 * recorded. Truncates toward zero as pprof's int64() conversion does. */
static inline void heap_scale(uint64_t *count, uint64_t *bytes, uint64_t rate)
{
	if (*count == 0 || *bytes == 0) {
		*count = *bytes = 0;
		return;
	}
	if (rate <= 1)
		return;
	double avg = (double)*bytes / (double)*count;
	double scale = 1.0 / (1.0 - exp(-avg / (double)rate));
	*count = heap_scale_clamp((double)*count * scale);
	*bytes = heap_scale_clamp((double)*bytes * scale);
}

/* The weight of one sampled allocation of size bytes when allocations are
 * sampled with a mean of one per rate bytes (Poisson by bytes, as tcmalloc
 * and Go do): it was kept with probability p = 1 - exp(-size/rate) and
 * counts 1/p objects and size/p bytes, so sums over sampled allocations
 * are unbiased estimates of the totals.  Counters are integers: the
 * weights are rounded down after adding frac, in [0, 1).  A frac spread
 * evenly over allocations (a hash of the block's address) keeps the sums
 * unbiased where 1/p is small (1/p = 1.28 for 100 KB at 64 KiB: rounding
 * to nearest counts 1, 22 % short); 0.5 rounds to nearest.  The same
 * arguments give the same weights: a free takes off what its allocation
 * added.  rate 0: 1 and size. */
static inline void heap_weight_at(uint64_t size, uint64_t rate, double frac, uint64_t *objs, uint64_t *bytes)
{
	if (!rate) {
		*objs = 1;
		*bytes = size;
		return;
	}
	double p = -expm1(-(double)(size ? size : 1) / (double)rate);
	*objs = heap_scale_clamp(1.0 / p + frac);   /* saturates: a hostile rate or size */
	*bytes = heap_scale_clamp((double)size / p + frac);
}

/* heap_weight_at rounding to nearest. */
static inline void heap_weight(uint64_t size, uint64_t rate, uint64_t *objs, uint64_t *bytes)
{
	heap_weight_at(size, rate, 0.5, objs, bytes);
}

/* A frac for heap_weight_at from a block's key (its address): in [0, 1). */
static inline double heap_weight_frac(uint64_t key)
{
	uint64_t x = key * 0x9e3779b97f4a7c15ULL;
	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

#endif
