/* hook_hot.h - what the four files of the hook's core share (hook.c the C
 * entry points, hook_start.c start-up and settings, hook_record.c the
 * recording of an allocation or free, hook_thread.c per-thread state and
 * hook_defer.c the frees parked while a thread is inside the hook): the
 * forwarded functions and the hook's state in one cache line, the thread's
 * state, the settings read at start-up, the counter lanes, and the inline
 * steps of the hot path, which every entry point inlines.  Private to those
 * files; the names are hidden (-fvisibility=hidden), never the host's. */
#ifndef MPROF_HOOK_HOT_H
#define MPROF_HOOK_HOT_H

#include "attach/hook/hook.h"

#include <pthread.h>

#define HOOK_HIDDEN __attribute__((visibility("hidden")))
#define unlikely(x) __builtin_expect(!!(x), 0)
#define likely(x) __builtin_expect(!!(x), 1)

/* hook_thread.c: this thread's state. */
extern HOOK_TLS __thread hook_thread hook_th HOOK_HIDDEN;

/* hook_start.c: what every call reads, in one cache line: the functions
 * forwarded to and the state (0 not started, 1 starting, 2 recording, 3
 * passing through). */
typedef struct hook_hot {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	int state;
} hook_hot;
extern hook_hot hook_core HOOK_HIDDEN;
#define real_malloc hook_core.malloc
#define real_free hook_core.free
#define real_calloc hook_core.calloc
#define real_realloc hook_core.realloc
#define real_posix_memalign hook_core.posix_memalign
#define real_aligned_alloc hook_core.aligned_alloc
#define real_memalign hook_core.memalign
#define hook_state hook_core.state
extern size_t (*real_usable)(void *) HOOK_HIDDEN;

/* hook_start.c: the settings and what start-up found. */
extern int hook_max_depth HOOK_HIDDEN;
extern size_t hook_page_size HOOK_HIDDEN;
extern int hook_got_any HOOK_HIDDEN;       /* some entry is reached through GOT slots only */
extern int hook_use_cache HOOK_HIDDEN;     /* MPROF_CACHE: the per-thread stack cache */
/* Resolves the next allocator and creates the segment, once. */
void hook_init(void);

/* hook_thread.c: counter lanes: lane 0 is shared (atomic adds); a thread
 * claims one of lanes 1..lane_count-1 for itself (plain stores) and frees
 * it at exit. */
extern mp_counts *hook_lane0 HOOK_HIDDEN;
extern mp_counts *hook_win_cnt HOOK_HIDDEN;         /* the heap window's counters (segment.h) */
extern uint64_t hook_lane_count HOOK_HIDDEN, hook_lane_cap HOOK_HIDDEN;
extern uint64_t hook_lanes_used HOOK_HIDDEN;        /* bit l: lane l has an owner */
extern pthread_key_t hook_thread_key HOOK_HIDDEN;   /* its destructor runs at thread exit */
extern int hook_thread_key_ok HOOK_HIDDEN;
void hook_thread_exit(void *arg);
void hook_thread_setup(void);

/* hook_record.c: records the block p of n bytes (sampling picked it);
 * takes p out of the live table (1 when it was there). */
void hook_record_alloc(void *p, size_t n, uint64_t fa);
int hook_record_free(void *p);

/* hook_defer.c: parks p (1) while the thread is inside the hook; runs the
 * parked frees (busy 0); busy-- for the paths outside the hot path. */
int hook_defer_push(void *p);
void hook_defer_run(void);
void hook_busy_done(void);

/* The countdown (sample.c), lowered by an allocation of n bytes: 1 while
 * it runs on.  A few ns: the thread's own count, in the cache line of th
 * every call reads.  sample_due: 1 when the allocation is to be recorded. */
static inline int64_t countdown_bytes(uint64_t n)
{
	return (int64_t)(n < (uint64_t)INT64_MAX / 2 ? n : (uint64_t)INT64_MAX / 2);   /* no overflow */
}

static inline int countdown(uint64_t n)
{
	/* sample_left >= 0 between calls (sample.c), so left - n > 0 is n < left
	 * unsigned: one compare, and the clamp only on the way out. */
	uint64_t left = (uint64_t)hook_th.sample_left;
	if (likely(n < left)) {
		hook_th.sample_left = (int64_t)(left - n);
		return 1;
	}
	hook_th.sample_left -= countdown_bytes(n);
	return 0;
}

static inline int sample_due(uint64_t n)
{
	return countdown(n) ? 0 : sample_take(&hook_th, n);
}

static inline void note_alloc(void *p, size_t n, uint64_t fa)
{
	if (p && sample_due(n))
		hook_record_alloc(p, n, fa);
}

/* live_maybe for free, with the group of the thread's last 64 MiB region
 * remembered (the fold was half of free's work); one word, one store, so a
 * signal handler's free reads a region and its own group. */
static inline int free_maybe_live(uint64_t key)
{
	if (!__atomic_load_n(&live_filter_on, __ATOMIC_ACQUIRE))
		return 1;
	uint64_t m = hook_th.group_memo, g;
	if (likely(m >> 4 == key >> 26)) {
		g = m & 15;
	} else {
		g = live_group(key);
		hook_th.group_memo = (key >> 26) << 4 | g;
	}
	uint64_t b = live_filter_bit_of(g, hash_mix64(key));
	return (int)(__atomic_load_n(&live_filt[b >> 6], __ATOMIC_ACQUIRE) >> (b & 63)) & 1;
}

/* The common case of malloc and calloc: recording, not nested, and the
 * countdown (lowered by n here) not run out: the caller goes straight to
 * the allocator, a tail call with no work of ours after it. */
static inline int alloc_skip(uint64_t n)
{
	if (unlikely(__atomic_load_n(&hook_state, __ATOMIC_ACQUIRE) != 2 || hook_th.busy))
		return -1;   /* not the common case: the full path */
	return countdown(n);
}

/* 1 when this call should be recorded; 0 to pass straight through. */
static inline int hook_enter(void)
{
	if (unlikely(__atomic_load_n(&hook_state, __ATOMIC_ACQUIRE) != 2)) {
		if (!__atomic_load_n(&hook_state, __ATOMIC_ACQUIRE))
			hook_init();
		if (__atomic_load_n(&hook_state, __ATOMIC_ACQUIRE) != 2)
			return 0;
	}
	if (hook_th.busy) {
		hook_th.reached = 1;   /* a nested call: it reached the program's malloc */
		return 0;
	}
	hook_th.busy = 1;
	return 1;
}

static inline void hook_leave(void)
{
	hook_th.busy = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unlikely(hook_th.ndefer))
		hook_defer_run();
}

#endif
