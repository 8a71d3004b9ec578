/* hook_record.c - the recording of one allocation or free: the stack
 * (from the thread's stack cache, or unwound and interned), the live
 * table's entry, the counters (the thread's lane, the heap window's) and
 * the ring's event; and the recording API the other entry points use
 * (hook_ext.c, entry_wrap.c): hook_begin/hook_end around a call, resizes,
 * notes of an allocation or a free. */
#include "attach/hook/hook_hot.h"
#include "attach/hook/sfilt.h"
#include "core/heap_scale.h"

/* Adds the block p of n bytes recorded at the rate of index ridx, weighted
 * (heap_weight_at, dithered by its address: 1 and n when every allocation
 * is recorded), to stack id's alloc (free = 0) or free counters: its free
 * takes off what it added.  win: the block is the open heap window's, so
 * the same goes into the window's counters (shared, atomic). */
static inline void count(uint32_t id, int freed, uint64_t p, uint64_t n, uint32_t ridx, int win)
{
	uint64_t o = 1;
	if (ridx)
		heap_weight_at(n, sample_rate_of(ridx), heap_weight_frac(p), &o, &n);
	if (hook_th.lane && id < hook_lane_cap) {
		uint64_t *c = freed ? &hook_th.lane[id].free_objs : &hook_th.lane[id].alloc_objs;
		__atomic_store_n(&c[0], __atomic_load_n(&c[0], __ATOMIC_RELAXED) + o, __ATOMIC_RELAXED);
		__atomic_store_n(&c[1], __atomic_load_n(&c[1], __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
	} else {
		uint64_t *c = freed ? &hook_lane0[id].free_objs : &hook_lane0[id].alloc_objs;
		__atomic_fetch_add(&c[0], o, __ATOMIC_RELAXED);
		__atomic_fetch_add(&c[1], n, __ATOMIC_RELAXED);
	}
	hook_th.peak_delta += freed ? -(int64_t)n : (int64_t)n;
	if (unlikely(hook_th.peak_delta >= SEG_PEAK_FOLD || hook_th.peak_delta <= -(int64_t)SEG_PEAK_FOLD))
		peak_fold(hook_seg);
	if (win) {
		uint64_t *c = freed ? &hook_win_cnt[id].free_objs : &hook_win_cnt[id].alloc_objs;
		__atomic_fetch_add(&c[0], o, __ATOMIC_RELAXED);
		__atomic_fetch_add(&c[1], n, __ATOMIC_RELAXED);
	}
}

/* live_put of block p (key: p | tag), a sampled one (ridx) counted in
 * sfilt.h's filter first, so a fork never copies a block the filter misses,
 * and uncounted when the table has no room. */
static inline int counted_put(void *p, uint64_t tag, uint32_t id, uint64_t n, uint32_t ridx, int how)
{
	if (ridx)
		sfilt_add((uint64_t)(uintptr_t)p);
	int win = live_put((uint64_t)(uintptr_t)p | tag, id, n, ridx, how);
	if (win < 0 && ridx)
		sfilt_del((uint64_t)(uintptr_t)p);
	return win;
}

/* Calls recorded on a thread before it builds its stack cache: threads
 * that allocate a few times and leave never pay for one. */
#define SC_WARMUP 64
/* Sampled, a recorded call stands for about a rate's worth of bytes: a
 * thread that gets a few is no short-lived one. */
#define SC_WARMUP_SAMPLED 4

/* Records the block p of n bytes, which sampling picked; fa: the frame of
 * the interposed function the program called. */
__attribute__((noinline)) void hook_record_alloc(void *p, size_t n, uint64_t fa)
{
	seg_header *h = hook_seg;
	if (unlikely(hook_th.state != 1)) {
		if (!hook_th.state)
			hook_thread_setup();
	}
	uint32_t ridx = hook_th.sample_ridx;
	uint32_t id = UINT32_MAX;
	if (hook_th.sc) {
		id = scache_lookup(hook_th.sc, fa);
	} else if (hook_th.state == 1 && hook_th.calls != UINT32_MAX && hook_use_cache &&
		   ++hook_th.calls >= (hook_th.sample_mean ? SC_WARMUP_SAMPLED : SC_WARMUP)) {
		hook_th.sc = scache_new(hook_th.tid);
		hook_th.calls = UINT32_MAX;   /* tried once */
	}
	if (id == UINT32_MAX) {
		uint64_t pcs[SEG_MAX_PCS], slots[SEG_MAX_PCS];
		int exact;
		/* One frame more than kept tells a cut stack from one exactly that deep. */
		int d = unwind_capture(pcs, slots, &exact, hook_max_depth + 1, fa);
		int trunc = d > hook_max_depth;
		if (trunc)   /* the root says so, so that cum never silently lies */
			pcs[d = hook_max_depth] = SEG_FRAME_TRUNCATED;
		int fresh;
		id = stacks_intern(h, &hook_th, pcs, (uint32_t)(d + trunc), &fresh);
		if (fresh && trunc)
			__atomic_fetch_add(&h->truncated_stacks, 1, __ATOMIC_RELAXED);
		if (fresh && modules_check(h) && hook_got_any)
			got_patch_all(got_slots_only());   /* modules loaded since: their slots too */
		if (id != UINT32_MAX && hook_th.sc)
			scache_fill(hook_th.sc, fa, pcs, exact ? slots : NULL, d, id);
	}
	if (id == UINT32_MAX)
		return;
	int win = counted_put(p, hook_th.tag, id, n, ridx, LIVE_NEW);
	if (win < 0) {
		__atomic_fetch_add(&h->dropped_live, 1, __ATOMIC_RELAXED);
		return;
	}
	count(id, 0, (uint64_t)(uintptr_t)p, n, ridx, win);
	ring_push(h, &hook_th, SEG_EV_ALLOC, id, n, (uint64_t)(uintptr_t)p);
}

/* A miss in the live table is an unknown free unless sampling ever left
 * blocks out of it. */
static inline void unknown_free(seg_header *h)
{
	if (!sample_ever)
		__atomic_fetch_add(&h->unknown_frees, 1, __ATOMIC_RELAXED);
}

/* 1 when p was in the live table; a miss is an unknown free unless the key is ENTRY_QUIET. */
int hook_record_free(void *p)
{
	seg_header *h = hook_seg;
	uint32_t id, ridx;
	uint64_t n, key = (uint64_t)(uintptr_t)p | (hook_th.tag & ~ENTRY_QUIET);
	int win;
	if (!live_maybe(key))
		return 0;   /* sampling never picked it */
	if (!live_take(key, &id, &n, &ridx, &win)) {
		if (!(hook_th.tag & ENTRY_QUIET))
			unknown_free(h);
		return 0;
	}
	if (ridx)
		sfilt_del((uint64_t)(uintptr_t)p);
	if (unlikely(!hook_th.state))
		hook_thread_setup();
	count(id, 1, (uint64_t)(uintptr_t)p, n, ridx, win);
	ring_push(h, &hook_th, SEG_EV_FREE, id, n, (uint64_t)(uintptr_t)p);
	return 1;
}

/* ---- the recording API of the other entry points (hook_ext.c) --------- */

hook_resize_t hook_resize_begin(void *p)
{
	hook_resize_t r = { p, hook_th.tag, UINT32_MAX, 0, 0, 0, 0 };
	uint64_t key = (uint64_t)(uintptr_t)p | r.key;
	r.known = p && live_maybe(key) && live_take(key, &r.id, &r.old, &r.ridx, &r.win);
	if (r.known && r.ridx)
		sfilt_del((uint64_t)(uintptr_t)p);
	return r;
}

void hook_resize_end(hook_resize_t *r, void *q, size_t n, int failed, uint64_t fa)
{
	seg_header *h = hook_seg;
	void *p = r->p;
	if (failed) {
		if (r->known) {
			counted_put(p, r->key, r->id, r->old, r->ridx, r->win ? LIVE_NEW : LIVE_PLAIN);
		}
		return;
	}
	if (p && r->known) {
		if (unlikely(!hook_th.state))
			hook_thread_setup();
		count(r->id, 1, (uint64_t)(uintptr_t)p, r->old, r->ridx, r->win);
		ring_push(h, &hook_th, SEG_EV_FREE, r->id, r->old, (uint64_t)(uintptr_t)p);
	} else if (p) {
		unknown_free(h);
	}
	note_alloc(q, n, fa);
}

int hook_begin(uint64_t key)
{
	if (!hook_enter()) {
		hook_th.reached = (uint32_t)(key >> ENTRY_TAG_SHIFT) + 1;
		return 0;
	}
	hook_th.tag = key;
	hook_th.reached = 0;
	return 1;
}

void hook_end(void)
{
	hook_th.tag = 0;
	hook_leave();
}

uint32_t hook_reached(void)
{
	return hook_th.reached;
}

void hook_rekey(uint64_t key)
{
	hook_th.tag = key;
}

void hook_note_alloc(void *p, size_t n, uint64_t fa)
{
	note_alloc(p, n, fa);
}

int hook_note_free(void *p)
{
	return hook_record_free(p);
}
