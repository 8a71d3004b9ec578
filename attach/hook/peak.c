/* peak.c - the heap's high-water mark (segment.h's seg_peak): the threads'
 * running deltas folded into the shared total, and the copy of every
 * stack's bytes and objects in use taken when the total passes the mark.
 * Never a wait: the copier is whoever takes the try-lock. */
#include "attach/hook/hook_hot.h"

#include <time.h>

static seg_peak_stack *peak_stacks(seg_header *h)
{
	return h->peak.off ? (seg_peak_stack *)((char *)h + h->peak.off) : NULL;
}

/* Copies every stack's counters in use now; bytes: their total. */
static void peak_copy(seg_header *h)
{
	seg_peak *pk = &h->peak;
	seg_peak_stack *ps = peak_stacks(h);
	uint64_t ns = __atomic_load_n(&h->stack_count, __ATOMIC_ACQUIRE);
	if (ns > h->stack_cap)
		ns = h->stack_cap;
	const mp_counts *cnt = seg_region(h, SEG_R_COUNTERS);
	uint64_t tb = 0, to = 0;
	__atomic_store_n(&pk->seq, pk->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (uint64_t s = 0; s < ns; s++) {
		mp_counts c;
		seg_counter_sum(h, cnt, s, &c);
		uint64_t o, b;
		counts_inuse(&c, &o, &b);   /* another thread's lane may be a little stale */
		__atomic_store_n(&ps[s].objs, o, __ATOMIC_RELAXED);
		__atomic_store_n(&ps[s].bytes, b, __ATOMIC_RELAXED);
		tb += b;
		to += o;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	pk->time_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	pk->bytes = tb;
	pk->objs = to;
	pk->copies++;
	uint64_t m = tb / 64 > SEG_PEAK_MARGIN ? tb / 64 : SEG_PEAK_MARGIN;
	__atomic_store_n(&pk->mark, (int64_t)(tb + m), __ATOMIC_RELAXED);
	__atomic_store_n(&pk->seq, pk->seq + 1, __ATOMIC_RELEASE);
}

void peak_fold(seg_header *h)
{
	seg_peak *pk = &h->peak;
	int64_t d = hook_th.peak_delta;
	hook_th.peak_delta = 0;
	int64_t t = __atomic_add_fetch(&pk->inuse, d, __ATOMIC_RELAXED);
	if (d <= 0 || t < __atomic_load_n(&pk->mark, __ATOMIC_RELAXED) || !pk->off)
		return;
	if (__atomic_exchange_n(&pk->lock, 1, __ATOMIC_ACQUIRE))
		return;   /* another thread copies now */
	peak_copy(h);
	__atomic_store_n(&pk->lock, 0, __ATOMIC_RELEASE);
}

void peak_reset(seg_header *h)
{
	seg_peak *pk = &h->peak;
	while (__atomic_exchange_n(&pk->lock, 1, __ATOMIC_ACQUIRE))
		;
	__atomic_store_n(&pk->inuse, 0, __ATOMIC_RELAXED);
	pk->time_ns = 0;
	pk->bytes = pk->objs = 0;
	__atomic_store_n(&pk->mark, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pk->lock, 0, __ATOMIC_RELEASE);
}
