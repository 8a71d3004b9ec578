/* ring.c - the event ring: every alloc and free, timestamped.  Writers take
 * a slot with one atomic add and never wait; when nobody reads, old events
 * are overwritten and counted in header.dropped_events. */
#include "attach/hook.h"

#include <time.h>

void ring_push(seg_header *h, hook_thread *t, uint32_t kind, uint32_t stack, uint64_t size)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t idx = __atomic_fetch_add(&h->ring_head, 1, __ATOMIC_RELAXED);
	uint64_t cap = h->ring_cap;
	if (idx >= cap && idx - cap >= __atomic_load_n(&h->ring_read, __ATOMIC_RELAXED))
		__atomic_fetch_add(&h->dropped_events, 1, __ATOMIC_RELAXED);
	seg_event *e = (seg_event *)seg_region(h, SEG_R_RING) + (idx & (cap - 1));
	__atomic_store_n(&e->seq, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	e->time_ns = (uint64_t)((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - h->start_mono_ns);
	e->size = size;
	e->stack = stack;
	e->kind = kind;
	e->tid = t->tid;
	__atomic_store_n(&e->seq, idx + 1, __ATOMIC_RELEASE);
}
