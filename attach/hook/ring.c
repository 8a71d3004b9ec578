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
 * the slot's start, whichever is later.
 *
 * A thread that stops allocating would keep its last events in its stage
 * for as long as it sleeps (a worker parked after its setup: the whole
 * run).  So stages are swept: a stage holding events older than
 * RING_STAGE_NS is published by the sweeper (the recorder's thread each
 * poll, a thread publishing a slot of its own at most every RING_STAGE_NS,
 * every stage at exit).  Its owner and a sweeper agree through two flags
 * (Dekker's): the owner marks itself busy, then looks for a steal; the
 * sweeper asks for a steal, then looks at busy, with membarrier(2) in
 * between making the owner's plain stores and loads act as if fenced, so
 * the owner's fast path pays no fence.  A busy owner is left for the next
 * sweep; an owner that finds a steal asked waits for it (microseconds). */
#include "attach/hook/hook.h"

#include <linux/membarrier.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_WAIT_MAX_NS 50000000LL     /* the longest a producer waits for the recorder */

struct ring_stage {
	int busy;          /* the owner is adding to or publishing the slot */
	int steal;         /* a sweeper takes the slot: the owner waits while set */
	struct ring_stage *next, **pprev;   /* every stage, for sweeps (under stages_lock) */
	seg_event prev;    /* the slot's last event: the next is encoded against it */
	seg_slot slot;     /* n == 0: empty */
};

static struct ring_stage *stages;
static int stages_lock;
static int mb_state;          /* membarrier(2): 0 not asked yet, 1 registered, -1 unavailable */
static int64_t swept_ns;      /* the event clock at the last sweep */

/* Spins for the lock, at most about tries yields; 1 when held. */
static int stages_take(int tries)
{
	for (int i = 0; __atomic_exchange_n(&stages_lock, 1, __ATOMIC_ACQUIRE); i++) {
		if (i >= tries)
			return 0;
		sched_yield();
	}
	return 1;
}

static void stages_give(void)
{
	__atomic_store_n(&stages_lock, 0, __ATOMIC_RELEASE);
}

struct ring_stage *ring_stage_new(void)
{
	struct ring_stage *s = hook_map(sizeof(struct ring_stage));
	if (!s)
		return NULL;
	stages_take(INT32_MAX);
	s->next = stages;
	s->pprev = &stages;
	if (stages)
		stages->pprev = &s->next;
	stages = s;
	stages_give();
	return s;
}

void ring_stage_free(struct ring_stage *s)
{
	if (!s)
		return;
	stages_take(INT32_MAX);   /* no sweep is looking at it past this */
	*s->pprev = s->next;
	if (s->next)
		s->next->pprev = s->pprev;
	stages_give();
	hook_unmap(s, sizeof(struct ring_stage));
}

/* The owner's side: busy while it touches its slot; a steal asked is
 * waited for (the sweeper empties the slot). */
static inline void stage_enter(struct ring_stage *s)
{
	__atomic_store_n(&s->busy, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);   /* membarrier in the sweeper stands for the fence */
	while (__atomic_load_n(&s->steal, __ATOMIC_ACQUIRE))
		sched_yield();
}

static inline void stage_leave(struct ring_stage *s)
{
	__atomic_store_n(&s->busy, 0, __ATOMIC_RELEASE);
}

static int membarrier_ready(void)
{
	int st = __atomic_load_n(&mb_state, __ATOMIC_ACQUIRE);
	if (st)
		return st > 0;
	long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	st = q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
		     !syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) ? 1 : -1;
	__atomic_store_n(&mb_state, st, __ATOMIC_RELEASE);
	return st > 0;
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
static void ring_write(seg_header *h, uint32_t *drops, const seg_slot *src)
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
			*drops += n;
		else if (!ring_wait(h, idx))   /* the recorder will find the slot lapped: say what it held */
			__atomic_fetch_add(&h->rec_lost, n, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&e->seq, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(&e->time_ns, &src->time_ns, len);
	__atomic_store_n(&e->seq, idx + 1, __ATOMIC_RELEASE);
	if (*drops >= RING_DROP_BATCH) {
		__atomic_fetch_add(&h->dropped_events, *drops, __ATOMIC_RELAXED);
		*drops = 0;
	}
}

/* Publishes a stage's slot and empties it: emptied after the write
 * (release), so a sweep that sees it empty sees the slot written. */
static inline void stage_publish(seg_header *h, uint32_t *drops, seg_slot *sl)
{
	ring_write(h, drops, sl);
	__atomic_store_n(&sl->n, 0, __ATOMIC_RELEASE);
}

int64_t ring_sweep(seg_header *h, hook_thread *t, int64_t older_ns)
{
	if (!h || __atomic_load_n(&mb_state, __ATOMIC_RELAXED) < 0 || !stages_take(older_ns ? 0 : 1000))
		return -1;   /* no membarrier, or a sweep in progress elsewhere does the work */
	int64_t now = seg_event_clock(h);
	__atomic_store_n(&swept_ns, now, __ATOMIC_RELAXED);
	uint32_t drops = 0, *dp = t ? &t->drops : &drops;
	struct ring_stage *own = t ? t->stage : NULL;
	int asked = 0;
	for (struct ring_stage *s = stages; s; s = s->next) {
		if (s == own || !__atomic_load_n(&s->slot.n, __ATOMIC_RELAXED) ||
		    now - (int64_t)__atomic_load_n(&s->slot.time_ns, __ATOMIC_RELAXED) < older_ns)
			continue;
		__atomic_store_n(&s->steal, 1, __ATOMIC_RELAXED);
		asked = 1;
	}
	/* Registered only once there is a slot to take: a process nobody
	 * reads never asks (registering can wait for an RCU grace period). */
	int barrier = asked && membarrier_ready();
	if (barrier && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0))
		__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* cannot happen once registered; busy is still read below */
	int64_t low = INT64_MAX;
	for (struct ring_stage *s = stages; s; s = s->next) {
		/* Not busy: its owner is outside its slot and, entering, waits.
		 * Without the barrier the asks are only withdrawn. */
		if (asked && __atomic_load_n(&s->steal, __ATOMIC_RELAXED)) {
			if (barrier && !__atomic_load_n(&s->busy, __ATOMIC_ACQUIRE) && s->slot.n)
				stage_publish(h, dp, &s->slot);
			__atomic_store_n(&s->steal, 0, __ATOMIC_RELEASE);
		}
		/* Still holding events (emptied only once written): they wait. */
		if (s != own && __atomic_load_n(&s->slot.n, __ATOMIC_ACQUIRE)) {
			int64_t st = (int64_t)__atomic_load_n(&s->slot.time_ns, __ATOMIC_RELAXED);
			low = st < low ? st : low;
		}
	}
	stages_give();
	if (drops)
		__atomic_fetch_add(&h->dropped_events, drops, __ATOMIC_RELAXED);
	return low;
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

/* A full fence (stores before it are seen before loads after it): on
 * x86-64 a locked add to the stack's top, which does that at a fraction of
 * mfence's cost (as the kernel's smp_mb), since no non-temporal store is
 * to be ordered here. */
static inline void fence_full(void)
{
#if defined(__x86_64__)
	__asm__ volatile("lock; addl $0, -4(%%rsp)" ::: "memory", "cc");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* ring_push once some reader has beaten, recently or not. */
static __attribute__((noinline)) void ring_push_read(seg_header *h, hook_thread *t, uint32_t kind, uint32_t stack,
						     uint64_t size, uint64_t ptr)
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
		fence_full();   /* as in ring_push */
		if (!ring_listened(h, &ns))
			return;
	}
	if (ns == NS_UNREAD)
		ns = seg_event_clock(h);
	seg_event ev = { .time_ns = ns > 0 ? (uint64_t)ns : 0, .size = size, .stack = stack,
			 .kind = kind, .tid = t->tid, .key = (uint32_t)(ptr >> 4) };
	struct ring_stage *s = t->stage, one;
	if (!s)
		s = &one, s->slot.n = 0, s->steal = 0;   /* no stage (it could not be mapped): a slot of one event */
	stage_enter(s);
	seg_slot *sl = &s->slot;
	if (sl->n && ev.time_ns < s->prev.time_ns)
		ev.time_ns = s->prev.time_ns;   /* a beat older than the slot's start: times in a slot never go back */
	int wrote = 0;
	if (sl->n && (ev.tid != sl->tid || ev.time_ns - sl->time_ns >= RING_STAGE_NS)) {
		stage_publish(h, &t->drops, sl);
		wrote = 1;
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
		stage_publish(h, &t->drops, sl);
		wrote = 1;
	}
	stage_leave(s);
	/* A thread that publishes sweeps the others now and then: a process
	 * read from outside (--record, the live screens) has no recorder thread. */
	if (wrote && s != &one &&
	    (int64_t)ev.time_ns - __atomic_load_n(&swept_ns, __ATOMIC_RELAXED) >= RING_STAGE_NS)   /* a later sweep: no */
		ring_sweep(h, t, RING_STAGE_NS);
}

/* No reader ever beat (both beats 0): the common case costs two loads and
 * the fence, in a function that saves no register. */
static inline int ring_unheard(const seg_header *h)
{
	return !(__atomic_load_n(&h->rec_beat_ns, __ATOMIC_RELAXED) | __atomic_load_n(&h->ring_beat_ns, __ATOMIC_RELAXED));
}

void ring_push(seg_header *h, hook_thread *t, uint32_t kind, uint32_t stack, uint64_t size, uint64_t ptr)
{
	if (ring_unheard(h)) {
		/* Looks unread: look again after a full fence, which pairs with the
		 * one a reader makes between its beat and its first look at the
		 * counters, so an event left out here is in what it reads there. */
		fence_full();
		if (ring_unheard(h))
			return;
	}
	ring_push_read(h, t, kind, stack, size, ptr);
}

void ring_flush(seg_header *h, hook_thread *t)
{
	struct ring_stage *s = t->stage;
	if (s) {
		stage_enter(s);
		if (h && s->slot.n)
			stage_publish(h, &t->drops, &s->slot);
		else
			__atomic_store_n(&s->slot.n, 0, __ATOMIC_RELEASE);   /* nothing staged, or no segment to put it in */
		stage_leave(s);
	}
	if (h && t->drops)
		__atomic_fetch_add(&h->dropped_events, t->drops, __ATOMIC_RELAXED);
	t->drops = 0;
}

void ring_discard(hook_thread *t)
{
	stages = NULL;   /* the other threads' stages are the parent's */
	stages_lock = 0;
	mb_state = 0;    /* the child's memory is its own: register again */
	struct ring_stage *s = t->stage;
	if (s) {
		s->slot.n = 0;
		s->busy = s->steal = 0;
		s->next = NULL;
		s->pprev = &stages;
		stages = s;
	}
	t->drops = 0;
}
