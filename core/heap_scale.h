/* heap_scale.h - un-sampling of Poisson-sampled heap counts, as pprof's
 * legacy parser (scaleHeapSample) and jeprof (AdjustSamples) do it: an
 * allocation of average size s is sampled with probability 1 - exp(-s/rate). */
#ifndef MPROF_HEAP_SCALE_H
#define MPROF_HEAP_SCALE_H

#include <math.h>
#include <stdint.h>

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
	*count = (uint64_t)((double)*count * scale);
	*bytes = (uint64_t)((double)*bytes * scale);
}

#endif
