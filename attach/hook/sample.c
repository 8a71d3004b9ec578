/* sample.c - MPROF_SAMPLE=BYTES: Poisson sampling by bytes, as tcmalloc and
 * Go do. Each thread counts down an exponential number of bytes (mean
 * BYTES); the allocation that takes the count to zero or below is
 * recorded and a new count is drawn. By memorylessness an allocation of s
 * bytes is recorded with probability 1 - exp(-s/BYTES) whatever came
 * before, which is what readers undo (core/recfmt.h rec_weight). */
#include "attach/hook/hook.h"

#include <math.h>
#include <time.h>

uint64_t sample_rate;

/* xorshift64*: a few ns, no lock, good enough for sampling. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static int64_t draw(hook_thread *t)
{
	double u = ((double)(rng_next(&t->sample_rng) >> 11) + 1.0) * (1.0 / 9007199254740993.0);
	return (int64_t)(-log(u) * (double)sample_rate) + 1;
}

int sample_take(hook_thread *t, uint64_t n)
{
	if (!t->sample_rng) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		t->sample_rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)(uintptr_t)t ^ ((uint64_t)t->tid << 40) ^ 1;
		t->sample_left = draw(t);
	}
	t->sample_left -= (int64_t)(n < (uint64_t)INT64_MAX ? n : (uint64_t)INT64_MAX);
	if (t->sample_left > 0)
		return 0;
	t->sample_left = draw(t);
	return 1;
}
