/* heap_scale.h - un-sampling of Poisson-sampled heap counts, as pprof's
 * legacy parser (scaleHeapSample) and jeprof (AdjustSamples) do it: an
 * allocation of average size s is sampled with probability 1 - exp(-s/rate). */
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

#endif
