/* sample.c - MPROF_SAMPLE=BYTES: Poisson sampling by bytes, as tcmalloc,
 * jemalloc and Go do.  Each thread counts down an exponential number of
 * bytes (mean BYTES) in its own initial-exec TLS; the allocation that takes
 * the count to zero or below is recorded and a new count is drawn.  By
 * memorylessness an allocation of s bytes is recorded with probability
 * p = 1 - exp(-s/BYTES) whatever came before, independently of the others,
 * and the hook adds 1/p objects and s/p bytes (core/heap_scale.h's
 * heap_weight) to its stack: unbiased totals.  The common case is the
 * inline countdown in hook_hot.h (sample_due): no shared write, no atomics.
 *
 * The rate can change while the process runs: a consumer writes the
 * segment's seg_sample (mprof-tui --sample-rate); a thread compares the
 * request counter with the one it saw whenever its countdown, fed in slices
 * of SAMPLE_SLICE bytes, runs out, and the first thread to see a new one
 * applies it.  Blocks keep the index of the rate they were
 * recorded at (live.c), so a free takes off exactly what its allocation
 * added. */
#include "attach/hook/hook.h"
#include "attach/hook/sfilt.h"

#include <math.h>
#include <sched.h>
#include <time.h>

uint64_t sample_rate;
static const uint64_t zero_seq;
const uint64_t *sample_seqp = &zero_seq;
int sample_ever;                               /* a rate other than 0 was in effect */
static uint64_t rates[SEG_SAMPLE_RATES + 1];   /* index 0: every allocation (weight 1) */
static uint32_t nrates = 1, cur_ridx;
static uint64_t applied;                       /* the last request seq handled */
static uint64_t seed;                          /* MPROF_SAMPLE_SEED; 0: the clock */
static uint64_t threads_seeded;
static int rate_lock;

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

/* An exponential number of bytes with mean rate (finite, >= 1). */
static int64_t draw(hook_thread *t, uint64_t rate)
{
	double u = ((double)(rng_next(&t->sample_rng) >> 11) + 1.0) * (1.0 / 9007199254740993.0);
	double d = -log(u) * (double)rate;
	return d >= 4e18 ? INT64_MAX / 2 : (int64_t)d + 1;
}

uint64_t sample_rate_of(uint32_t ridx)
{
	/* Entries hold indices handed out earlier: their rates never change. */
	return ridx < __atomic_load_n(&nrates, __ATOMIC_ACQUIRE) ? rates[ridx] : 0;
}

/* The index of rate in rates[], added if new; -1 when the table is full. */
static int rate_index(uint64_t rate)
{
	if (!rate || rate == SEG_SAMPLE_OFF)
		return 0;
	for (uint32_t i = 1; i < nrates; i++)
		if (rates[i] == rate)
			return (int)i;
	if (nrates > SEG_SAMPLE_RATES)
		return -1;
	rates[nrates] = rate;
	/* Release: whoever reads an entry with the new index reads its rate. */
	__atomic_store_n(&nrates, nrates + 1, __ATOMIC_RELEASE);
	return (int)nrates - 1;
}

/* Puts rate in effect (its index ridx); the caller holds rate_lock. */
static void rate_set(seg_header *h, uint64_t rate, int ridx)
{
	/* Full capture looks every free up; sampling, or none, needs the filter. */
	if ((rate != 0) != (__atomic_load_n(&live_filter_on, __ATOMIC_RELAXED) != 0))
		live_filter(rate != 0);
	sfilt_rate(rate);
	cur_ridx = (uint32_t)ridx;
	__atomic_store_n(&sample_rate, rate, __ATOMIC_RELEASE);
	if (rate)
		sample_ever = 1;
	if (h) {
		h->sample_rate = rate;
		if (rate > 1 && rate != SEG_SAMPLE_OFF)
			h->sample.last = rate;
	}
}

void sample_init(seg_header *h, uint64_t rate)
{
	seed = hook_env_num("MPROF_SAMPLE_SEED", 0, 0, UINT64_MAX);
	if (rate > SEG_SAMPLE_MAX)
		rate = SEG_SAMPLE_MAX;
	rate_set(h, rate, rate_index(rate));
	sample_attach(h);
}

void sample_attach(seg_header *h)
{
	sample_seqp = h ? &h->sample.seq : &zero_seq;
	applied = h ? __atomic_load_n(&h->sample.done, __ATOMIC_ACQUIRE) : 0;
}

/* Handles the request seq of the segment (the caller holds rate_lock). */
static void apply(seg_header *h, uint64_t seq)
{
	uint64_t want = __atomic_load_n(&h->sample.want, __ATOMIC_RELAXED);
	uint64_t res = SEG_SAMPLE_DONE;
	if (want > SEG_SAMPLE_MAX && want != SEG_SAMPLE_OFF) {
		res = SEG_SAMPLE_BAD;
	} else if (want != sample_rate) {
		int ridx = ring_recorder_alive(h) ? -2 : rate_index(want);
		if (ridx == -2) {
			res = SEG_SAMPLE_RECORDING;
		} else if (ridx < 0) {
			res = SEG_SAMPLE_TOO_MANY;
		} else {
			rate_set(h, want, ridx);
			h->sample.changes++;
		}
	}
	h->sample.result = res;
	__atomic_store_n(&h->sample.done, seq, __ATOMIC_RELEASE);
	__atomic_store_n(&applied, seq, __ATOMIC_RELEASE);
}

void sample_lock(void)
{
	while (__atomic_exchange_n(&rate_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

void sample_unlock(void)
{
	__atomic_store_n(&rate_lock, 0, __ATOMIC_RELEASE);
}

/* A new request: applies it unless another thread did; then takes the rate
 * in effect and its index together.  Once per request and thread. */
static void sample_sync(hook_thread *t)
{
	seg_header *h = hook_seg;
	sample_lock();
	uint64_t seq = __atomic_load_n(sample_seqp, __ATOMIC_ACQUIRE);
	if (h && seq != applied)
		apply(h, seq);
	t->sample_seq = seq;
	t->sample_mean = sample_rate;
	t->sample_ridx = cur_ridx;
	sample_unlock();
	if (!t->sample_rng) {
		uint64_t k = __atomic_add_fetch(&threads_seeded, 1, __ATOMIC_RELAXED);
		if (seed) {
			t->sample_rng = hash_mix64(seed + k * 0x9e3779b97f4a7c15ULL) | 1;
		} else {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			t->sample_rng = hash_mix64(((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)(uintptr_t)t ^
						   ((uint64_t)t->tid << 40) ^ k) | 1;
		}
	}
}

/* The countdown goes into sample_left a slice at a time, so a thread looks
 * at the segment's requests once per slice it allocates, never on the
 * common path. */
#define SAMPLE_SLICE 65536

static void countdown_set(hook_thread *t, int64_t left)
{
	t->sample_left = left < SAMPLE_SLICE ? left : SAMPLE_SLICE;
	t->sample_bank = left - t->sample_left;
}

int sample_take(hook_thread *t, uint64_t n)
{
	if (t->sample_seq != __atomic_load_n(sample_seqp, __ATOMIC_RELAXED) || !t->sample_rng) {
		/* A new rate (or the thread's first allocation): a fresh countdown
		 * from here, which memorylessness allows at any time. */
		sample_sync(t);
		uint64_t r = t->sample_mean;
		if (r && r != SEG_SAMPLE_OFF) {
			int64_t left = draw(t, r) - (int64_t)n;
			if (left > 0) {
				countdown_set(t, left);
				return 0;
			}
		}
	} else if (t->sample_bank > 0) {
		/* A slice ran out, not the countdown (sample_left <= 0 holds the overshoot). */
		int64_t left = t->sample_bank + t->sample_left;
		if (left > 0) {
			countdown_set(t, left);
			return 0;
		}
	}
	uint64_t r = t->sample_mean;
	if (!r) {
		countdown_set(t, 0);   /* every allocation: each takes this path */
		return 1;
	}
	if (r == SEG_SAMPLE_OFF) {
		countdown_set(t, SAMPLE_SLICE);   /* none, but requests are still looked at */
		return 0;
	}
	countdown_set(t, draw(t, r));
	return 1;
}
