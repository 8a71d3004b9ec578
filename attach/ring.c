/* ring.c - the event ring: every alloc and free, timestamped.  Writers never
 * wait; when nobody reads, old events are overwritten and counted in
 * header.dropped_events.  A thread stages its events (RING_STAGE of them,
 * or 10 ms worth) in a buffer of its own and publishes them together: one
 * atomic add on ring_head per batch instead of per event, and the stores
 * into the ring overlap instead of stalling each locked instruction that
 * follows.  Times come from the coarse monotonic clock (a few ns to read;
 * kernel tick resolution): times are for timelines. */
#include "attach/hook.h"

#include <time.h>

#define RING_STAGE_NS 10000000

struct ring_stage {
	uint32_t n;
	uint32_t pad;
	seg_event ev[RING_STAGE];
};

struct ring_stage *ring_stage_new(void)
{
	return hook_map(sizeof(struct ring_stage));
}

void ring_stage_free(struct ring_stage *s)
{
	hook_unmap(s, sizeof(struct ring_stage));
}

/* Publishes n events: each slot's seq is 0 while it is written, then its
 * index + 1 (release). */
static void ring_write(seg_header *h, hook_thread *t, const seg_event *ev, uint32_t n)
{
	uint64_t idx = __atomic_fetch_add(&h->ring_head, n, __ATOMIC_RELAXED);
	uint64_t cap = h->ring_cap, read = __atomic_load_n(&h->ring_read, __ATOMIC_RELAXED);
	seg_event *ring = seg_region(h, SEG_R_RING);
	for (uint32_t k = 0; k < n; k++, idx++) {
		if (idx >= cap && idx - cap >= read)
			t->drops++;
		seg_event *e = &ring[idx & (cap - 1)];
		__atomic_store_n(&e->seq, 0, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		e->time_ns = ev[k].time_ns;
		e->size = ev[k].size;
		e->stack = ev[k].stack;
		e->kind = ev[k].kind;
		e->tid = ev[k].tid;
		__atomic_store_n(&e->seq, idx + 1, __ATOMIC_RELEASE);
	}
	if (t->drops >= RING_DROP_BATCH) {
		__atomic_fetch_add(&h->dropped_events, t->drops, __ATOMIC_RELAXED);
		t->drops = 0;
	}
}

void ring_push(seg_header *h, hook_thread *t, uint32_t kind, uint32_t stack, uint64_t size)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	int64_t ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - h->start_mono_ns;
	seg_event ev = { .time_ns = ns > 0 ? (uint64_t)ns : 0, .size = size, .stack = stack,
			 .kind = kind, .tid = t->tid };
	struct ring_stage *s = t->stage;
	if (!s) {
		ring_write(h, t, &ev, 1);
		return;
	}
	s->ev[s->n++] = ev;
	if (s->n == RING_STAGE || ev.time_ns - s->ev[0].time_ns >= RING_STAGE_NS) {
		ring_write(h, t, s->ev, s->n);
		s->n = 0;
	}
}

void ring_flush(seg_header *h, hook_thread *t)
{
	if (h && t->stage && t->stage->n)
		ring_write(h, t, t->stage->ev, t->stage->n);
	if (t->stage)
		t->stage->n = 0;
	if (h && t->drops)
		__atomic_fetch_add(&h->dropped_events, t->drops, __ATOMIC_RELAXED);
	t->drops = 0;
}

void ring_discard(hook_thread *t)
{
	if (t->stage)
		t->stage->n = 0;
	t->drops = 0;
}
