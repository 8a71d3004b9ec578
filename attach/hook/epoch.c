/* epoch.c - what the counts cover across a detach and a re-injection.
 * While detached the hook sees no call (got.c and allocators.c put the
 * program's slots and entry points back), so it cannot know which of the
 * blocks it saw are freed meanwhile, nor which addresses are handed out
 * again: a block freed while detached would stay in use forever, and the
 * free of a new block at its address would be charged to it.  So a
 * re-injection starts a new epoch: the live table, every counter (all
 * lanes, the window's) and the header's totals are emptied before the
 * program's calls reach the hook again, and the counts cover the time
 * since then (attach_ns); a free of a block from before is an unknown
 * free, as for a block allocated before the first injection.  No lane is
 * written meanwhile: mprof_attach runs with every thread out of the hook
 * (the injection's safe point counts libmprof.so as allocator code), and
 * only a call through a pointer to the hook taken while attached reaches
 * it while detached.  The stack table stays (stack ids and the threads'
 * stack caches remain valid; a stack with no allocation since is left out
 * of every profile). */
#include "attach/hook/hook.h"
#include "attach/hook/sfilt.h"

#include <string.h>
#include <time.h>

/* Zeroes the counters of stack ids [0, n) in every lane and the window's. */
static void counters_clear(seg_header *h, uint64_t n)
{
	mp_counts *c = seg_region(h, SEG_R_COUNTERS);
	uint64_t sc = h->stack_cap, lc = h->lane_cap;
	if (n > sc)
		n = sc;
	memset(c, 0, n * sizeof(*c));
	for (uint64_t l = 1; l < h->counter_lanes; l++)
		memset(c + sc + (l - 1) * lc, 0, (n < lc ? n : lc) * sizeof(*c));
	if (h->win_off)
		memset((char *)h + h->win_off, 0, n * sizeof(*c));
}

void epoch_detached(seg_header *h)
{
	ring_sweep(h, NULL, 0);   /* events staged before the detach reach the ring before the new epoch */
}

void epoch_begin(seg_header *h)
{
	live_clear();
	sfilt_reset(__atomic_load_n(&sample_rate, __ATOMIC_ACQUIRE));
	counters_clear(h, __atomic_load_n(&h->stack_count, __ATOMIC_ACQUIRE));
	__atomic_store_n(&h->unknown_frees, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&h->dropped_stacks, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&h->dropped_live, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&h->truncated_stacks, 0, __ATOMIC_RELAXED);
	peak_reset(h);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	__atomic_store_n(&h->attach_ns, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->attaches, 1, __ATOMIC_RELEASE);
}
