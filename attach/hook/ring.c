/* ring.c - the event ring: every alloc and free, timestamped.  When nobody
 * reads, old events are overwritten and counted in header.dropped_events;
 * while a recorder reads (MPROF_RECORD), a writer about to overwrite an
 * unread event waits for it instead, at most RING_WAIT_MAX_NS, and counts
 * the wait.  A thread stages its events (RING_STAGE of them, or 10 ms worth) in a buffer of its own and publishes them together: one
 * atomic add on ring_head per batch instead of per event, and the stores
 * into the ring overlap instead of stalling each locked instruction that
 * follows.  Times come from the coarse monotonic clock (a few ns to read;
 * kernel tick resolution): times are for timelines. */
#include "attach/hook/hook.h"

#include <sched.h>
#include <time.h>

#define RING_STAGE_NS 10000000
#define RING_WAIT_MAX_NS 50000000LL     /* the longest a producer waits for the recorder */

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

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int ring_recorder_alive(const seg_header *h)
{
	return seg_recorder_alive(h, mono_ns());
}

/* A recorder is reading (rec_beat_ns recent): wait until slot idx is free,
 * at most RING_WAIT_MAX_NS, and count the wait. Returns 1 if it is free. */
static int ring_wait(seg_header *h, uint64_t idx)
{
	uint64_t cap = h->ring_cap;
	if (!ring_recorder_alive(h))
		return 0;
	int64_t t0 = mono_ns();
	int64_t now = t0;
	int free_ = 0;
	for (unsigned spin = 0;; spin++) {
		if (idx - cap < __atomic_load_n(&h->ring_read, __ATOMIC_ACQUIRE)) {
			free_ = 1;
			break;
		}
		now = mono_ns();
		if (now - t0 > RING_WAIT_MAX_NS)
			break;
		if (spin < 16) {
			sched_yield();
		} else {
			struct timespec ts = { 0, 20000 };
			nanosleep(&ts, NULL);
		}
	}
	uint64_t d = (uint64_t)(now - t0);
	__atomic_fetch_add(&h->rec_waits, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->rec_wait_ns, d, __ATOMIC_RELAXED);
	uint64_t mx = __atomic_load_n(&h->rec_wait_max_ns, __ATOMIC_RELAXED);
	while (d > mx && !__atomic_compare_exchange_n(&h->rec_wait_max_ns, &mx, d, 1, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED))
		;
	return free_;
}

/* Publishes n events: each slot's seq is 0 while it is written, then its
 * index + 1 (release). */
static void ring_write(seg_header *h, hook_thread *t, const seg_event *ev, uint32_t n)
{
	uint64_t idx = __atomic_fetch_add(&h->ring_head, n, __ATOMIC_RELAXED);
	uint64_t cap = h->ring_cap, read = __atomic_load_n(&h->ring_read, __ATOMIC_RELAXED);
	seg_event *ring = seg_region(h, SEG_R_RING);
	/* The slots' lines were last read by the recorder on another core, or
	 * have left the cache since the last lap: ask for them all at once, so
	 * the misses overlap instead of coming one store after another. */
	for (uint32_t k = 0; k < n; k++)
		__builtin_prefetch(&ring[(idx + k) & (cap - 1)], 1);
	for (uint32_t k = 0; k < n; k++, idx++) {
		if (idx >= cap && idx - cap >= read) {
			if (!__atomic_load_n(&h->rec_beat_ns, __ATOMIC_RELAXED)) {
				t->drops++;   /* nobody records: overwrite, as always */
			} else {
				read = __atomic_load_n(&h->ring_read, __ATOMIC_ACQUIRE);
				if (idx - cap >= read && !ring_wait(h, idx))
					t->drops++;
				read = __atomic_load_n(&h->ring_read, __ATOMIC_ACQUIRE);
			}
		}
		seg_event *e = &ring[idx & (cap - 1)];
		__atomic_store_n(&e->seq, 0, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		e->time_ns = ev[k].time_ns;
		e->size = ev[k].size;
		e->stack = ev[k].stack;
		e->kind = ev[k].kind;
		e->tid = ev[k].tid;
		e->key = ev[k].key;
		__atomic_store_n(&e->seq, idx + 1, __ATOMIC_RELEASE);
	}
	if (t->drops >= RING_DROP_BATCH) {
		__atomic_fetch_add(&h->dropped_events, t->drops, __ATOMIC_RELAXED);
		t->drops = 0;
	}
}

/* 1 while someone reads the ring (ns: the event clock): a recorder is
 * there (rec_beat_ns set, even when late: a recorder that falls behind
 * must see its losses counted, never miss events silently), or a
 * follower's beat is recent (a follower finds its gaps itself). */
static inline int ring_listened(const seg_header *h, int64_t ns)
{
	if (__atomic_load_n(&h->rec_beat_ns, __ATOMIC_RELAXED))
		return 1;
	uint64_t fb = __atomic_load_n(&h->ring_beat_ns, __ATOMIC_RELAXED);
	return fb && ns - (int64_t)fb <= SEG_RING_STALE_NS;
}

void ring_push(seg_header *h, hook_thread *t, uint32_t kind, uint32_t stack, uint64_t size, uint64_t ptr)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	int64_t ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - h->start_mono_ns;
	if (!ring_listened(h, ns)) {
		/* Looks unread: look again after a full fence, which pairs with the
		 * one a reader makes between its beat and its first look at the
		 * counters, so an event left out here is in what it reads there. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (!ring_listened(h, ns))
			return;
	}
	seg_event ev = { .time_ns = ns > 0 ? (uint64_t)ns : 0, .size = size, .stack = stack,
			 .kind = kind, .tid = t->tid, .key = (uint32_t)(ptr >> 4) };
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
