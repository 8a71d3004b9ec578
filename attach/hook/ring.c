/* ring.c - the event ring: every alloc and free, timestamped, in slots of
 * one thread's events encoded compactly (segment.h).  When nobody reads,
 * old slots are overwritten and their events counted in
 * header.dropped_events; while a recorder reads (MPROF_RECORD), a writer
 * about to overwrite an unread slot waits for it instead, at most
 * RING_WAIT_MAX_NS, and counts the wait.  A thread encodes its events into
 * a slot of its own (until it is full, or 10 ms worth) and publishes it
 * whole: one atomic add on ring_head per slot, and a quarter of the bytes
 * a fixed event took.  Times come from the coarse monotonic clock (kernel
 * tick resolution): times are for timelines.  While a recorder reads, only
 * the first event of a slot reads the clock; the others take it as the
 * recorder last read it (its heartbeat, renewed every RECW_POLL_NS of
 * record.h, as heaptrack's timer thread stamps its events every 10 ms) or
 * the slot's start, whichever is later. */
#include "attach/hook/hook.h"

#include <sched.h>
#include <string.h>
#include <time.h>

#define RING_STAGE_NS 10000000
#define RING_WAIT_MAX_NS 50000000LL     /* the longest a producer waits for the recorder */

struct ring_stage {
	seg_event prev;    /* the slot's last event: the next is encoded against it */
	seg_slot slot;     /* n == 0: empty */
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

/* Publishes a slot: its seq is 0 while it is written, then its index + 1
 * (release). */
static void ring_write(seg_header *h, hook_thread *t, const seg_slot *src)
{
	uint64_t idx = __atomic_fetch_add(&h->ring_head, 1, __ATOMIC_RELAXED);
	uint64_t cap = h->ring_cap;
	seg_slot *e = (seg_slot *)seg_region(h, SEG_R_RING) + (idx & (cap - 1));
	size_t len = 16 + (size_t)src->len;   /* from time_ns to the end of the data used */
	/* The slot's lines were last read on another core, or have left the
	 * cache since the last lap: ask for them all at once. */
	for (size_t o = 0; o < 8 + len; o += 64)
		__builtin_prefetch((char *)e + o, 1);
	if (idx >= cap && idx - cap >= __atomic_load_n(&h->ring_read, __ATOMIC_ACQUIRE)) {
		/* Unread: nobody records (overwrite, as always), or the recorder
		 * is behind (wait for it, bounded). */
		uint16_t n = __atomic_load_n(&e->n, __ATOMIC_RELAXED);
		n = n <= SEG_SLOT_MAX_EVENTS ? n : 0;   /* a slot never written holds 0 */
		if (!__atomic_load_n(&h->rec_beat_ns, __ATOMIC_RELAXED))
			t->drops += n;
		else if (!ring_wait(h, idx))   /* the recorder will find the slot lapped: say what it held */
			__atomic_fetch_add(&h->rec_lost, n, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&e->seq, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(&e->time_ns, &src->time_ns, len);
	__atomic_store_n(&e->seq, idx + 1, __ATOMIC_RELEASE);
	if (t->drops >= RING_DROP_BATCH) {
		__atomic_fetch_add(&h->dropped_events, t->drops, __ATOMIC_RELAXED);
		t->drops = 0;
	}
}

#define NS_UNREAD INT64_MIN

/* 1 while someone reads the ring: a recorder is there (rec_beat_ns set,
 * even when late: a recorder that falls behind must see its losses
 * counted, never miss events silently), or a follower's beat is recent (a
 * follower finds its gaps itself).  *ns: the event clock, read here only
 * when a follower's beat is to be judged (NS_UNREAD until then): a process
 * nobody ever watched does not read the clock at all. */
static inline int ring_listened(const seg_header *h, int64_t *ns)
{
	if (__atomic_load_n(&h->rec_beat_ns, __ATOMIC_RELAXED))
		return 1;
	uint64_t fb = __atomic_load_n(&h->ring_beat_ns, __ATOMIC_RELAXED);
	if (!fb)
		return 0;
	if (*ns == NS_UNREAD)
		*ns = seg_event_clock(h);
	return *ns - (int64_t)fb <= SEG_RING_STALE_NS;
}

void ring_push(seg_header *h, hook_thread *t, uint32_t kind, uint32_t stack, uint64_t size, uint64_t ptr)
{
	int64_t ns = NS_UNREAD;
	uint64_t beat = __atomic_load_n(&h->rec_beat_ns, __ATOMIC_RELAXED);
	if (beat) {
		/* A recorder reads: its heartbeat is the event clock as it read it
		 * at most a poll ago, and costs a load where reading the clock
		 * costs a call (and a TLB miss on the clock's page in a program
		 * whose memory does not fit the TLB). */
		ns = (int64_t)beat;
	} else if (!ring_listened(h, &ns)) {
		/* Looks unread: look again after a full fence, which pairs with the
		 * one a reader makes between its beat and its first look at the
		 * counters, so an event left out here is in what it reads there. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (!ring_listened(h, &ns))
			return;
	}
	if (ns == NS_UNREAD)
		ns = seg_event_clock(h);
	seg_event ev = { .time_ns = ns > 0 ? (uint64_t)ns : 0, .size = size, .stack = stack,
			 .kind = kind, .tid = t->tid, .key = (uint32_t)(ptr >> 4) };
	struct ring_stage *s = t->stage, one;
	if (!s)
		s = &one, s->slot.n = 0;   /* no stage (it could not be mapped): a slot of one event */
	seg_slot *sl = &s->slot;
	if (sl->n && ev.time_ns < s->prev.time_ns)
		ev.time_ns = s->prev.time_ns;   /* a beat older than the slot's start: times in a slot never go back */
	if (sl->n && (ev.tid != sl->tid || ev.time_ns - sl->time_ns >= RING_STAGE_NS)) {
		ring_write(h, t, sl);
		sl->n = 0;
	}
	if (!sl->n) {
		if (beat) {   /* a slot starts at the clock's own time: one read a slot */
			int64_t now = seg_event_clock(h);
			if (now > 0 && (uint64_t)now > ev.time_ns)
				ev.time_ns = (uint64_t)now;
		}
		sl->time_ns = ev.time_ns;
		sl->tid = ev.tid;
		sl->len = 0;
		s->prev = (seg_event){ .time_ns = ev.time_ns };
	}
	sl->len = (uint16_t)(seg_slot_put(sl->data + sl->len, &s->prev, &ev) - sl->data);
	sl->n++;
	if (s == &one || sl->len + SEG_EV_MAXLEN > SEG_SLOT_DATA) {
		ring_write(h, t, sl);
		sl->n = 0;
	}
}

void ring_flush(seg_header *h, hook_thread *t)
{
	if (h && t->stage && t->stage->slot.n)
		ring_write(h, t, &t->stage->slot);
	if (t->stage)
		t->stage->slot.n = 0;
	if (h && t->drops)
		__atomic_fetch_add(&h->dropped_events, t->drops, __ATOMIC_RELAXED);
	t->drops = 0;
}

void ring_discard(hook_thread *t)
{
	if (t->stage)
		t->stage->slot.n = 0;
	t->drops = 0;
}
