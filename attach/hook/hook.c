/* hook.c - libmprof.so's entry points: the interposed allocation functions,
 * start-up (resolving the next allocator, creating the segment), fork, exit
 * and SIGUSR2 dumps.  Per-thread state only on the hot path; a per-thread
 * busy flag makes every nested call (from libunwind, dlsym, a signal
 * handler inside the hook) go straight to the real allocator. */
#include "attach/hook/hook.h"
#include "core/heap_scale.h"

#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define unlikely(x) __builtin_expect(!!(x), 0)
#define likely(x) __builtin_expect(!!(x), 1)

seg_header *hook_seg;

static HOOK_TLS __thread hook_thread th __attribute__((aligned(64)));

/* What every call reads, in one cache line: the functions forwarded to and
 * the state (0 not started, 1 starting, 2 recording, 3 passing through). */
static struct {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	int state;
} hot __attribute__((aligned(64)));
#define real_malloc hot.malloc
#define real_free hot.free
#define real_calloc hot.calloc
#define real_realloc hot.realloc
#define real_posix_memalign hot.posix_memalign
#define real_aligned_alloc hot.aligned_alloc
#define real_memalign hot.memalign
#define hook_state hot.state
static size_t (*real_usable)(void *);
static void hook_init(void);

static int max_depth = 64;
static size_t page_size = 4096;
static uint64_t seg_size;
static int got_any;       /* some entry is reached through GOT slots only */

/* Counter lanes: lane 0 is shared (atomic adds); a thread claims one of
 * lanes 1..lane_count-1 for itself (plain stores) and frees it at exit. */
static mp_counts *lane0;
static mp_counts *win_cnt;         /* the heap window's counters (segment.h) */
static uint64_t lane_count, lane_cap;
static uint64_t lanes_used;        /* bit l: lane l has an owner */
static pthread_key_t thread_key;   /* its destructor runs at thread exit */
static int thread_key_ok;
static int use_cache = 1;          /* MPROF_CACHE: the per-thread stack cache */
static void thread_exit(void *arg);
static void busy_done(void);

/* ---- start-up ------------------------------------------------------------ */

static void fork_prepare(void)
{
	th.busy++;
	if (hook_seg) {
		sample_lock();   /* before the shard locks, as a rate change takes them */
		live_lock_all();
	}
}

static void fork_parent(void)
{
	if (hook_seg) {
		live_unlock_all();
		sample_unlock();
	}
	busy_done();
}

/* The child copies what the parent recorded into a segment of its own. */
static void fork_child(void)
{
	seg_header *old = hook_seg;
	uint64_t old_size = seg_size;
	if (old) {
		live_unlock_all();
		sample_unlock();
	}
	th.tid = 0;
	th.drops = 0;
	ring_discard(&th);   /* staged events are the parent's, for its ring */
	if (!old) {
		th.busy--;
		return;
	}
	dumps_forked();
	seg_header *h = hook_seg_clone(old, (uint32_t)max_depth, page_size, &seg_size);
	if (!h) {
		hook_seg = NULL;
		__atomic_store_n(&hook_state, 3, __ATOMIC_RELEASE);
		sample_attach(NULL);
		munmap(old, old_size);
		th.busy--;
		return;
	}
	lane0 = seg_region(h, SEG_R_COUNTERS);
	win_cnt = (mp_counts *)((char *)h + h->win_off);
	lanes_used = 0;
	th.lane = NULL;
	th.lane_no = 0;
	if (th.state == 1)
		th.state = 0;   /* claims a lane of the new segment on its next call */
	hook_seg = h;
	sample_attach(h);
	munmap(old, old_size);
	memset(th.cache_id, 0, sizeof(th.cache_id));
	scache_clear(th.sc);
	th.busy--;
}

void hook_self_enter(void)
{
	if (!th.busy++ && hook_seg)   /* not interrupting the hook: its staged events are whole */
		ring_flush(hook_seg, &th);
}

void hook_self_leave(int run_deferred)
{
	if (run_deferred)
		busy_done();
	else
		th.busy--;
}

void *hook_fn_real(hook_fn *e)
{
	void *r = __atomic_load_n(&e->real, __ATOMIC_ACQUIRE);
	if (unlikely(!r)) {
		if (!__atomic_load_n(&hook_state, __ATOMIC_ACQUIRE))
			hook_init();
		th.busy++;
		hook_fn_resolve(e);
		busy_done();
		r = __atomic_load_n(&e->real, __ATOMIC_ACQUIRE);
	}
	return r;
}

/* Every entry point's real function. */
static void resolve_all(void)
{
	got_any = hook_fn_resolve_all();
	*(void **)&real_malloc = hook_c_fns[HF_MALLOC].real;
	*(void **)&real_free = hook_c_fns[HF_FREE].real;
	*(void **)&real_calloc = hook_c_fns[HF_CALLOC].real;
	*(void **)&real_realloc = hook_c_fns[HF_REALLOC].real;
	*(void **)&real_posix_memalign = hook_c_fns[HF_POSIX_MEMALIGN].real;
	*(void **)&real_aligned_alloc = hook_fn_same_provider(hook_c_fns[HF_ALIGNED_ALLOC].real, hook_c_fns[HF_MALLOC].real);
	*(void **)&real_memalign = hook_fn_same_provider(hook_c_fns[HF_MEMALIGN].real, hook_c_fns[HF_MALLOC].real);
	*(void **)&real_usable = hook_c_fns[HF_USABLE].real;
}

static void hook_init(void)
{
	int expect = 0;
	if (!__atomic_compare_exchange_n(&hook_state, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	th.busy++;
	resolve_all();
	if (!real_malloc || !real_free || !real_calloc || !real_realloc || !real_posix_memalign) {
		hook_say("cannot find the next allocator: not recording", "", "");
		__atomic_store_n(&hook_state, 3, __ATOMIC_RELEASE);
		th.busy--;
		return;
	}
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	max_depth = (int)hook_env_num("MPROF_DEPTH", 64, 1, HOOK_MAX_DEPTH);
	const char *uw = getenv("MPROF_UNWIND");
	int fp = uw && !strcmp(uw, "fp");
	if (uw && *uw && !fp && strcmp(uw, "libunwind"))
		hook_say("MPROF_UNWIND: use libunwind or fp; using libunwind", "", "");
	use_cache = (int)hook_env_num("MPROF_CACHE", 1, 0, 1);
	uint64_t stacks = hook_env_num("MPROF_STACKS", 1 << 18, 1024, 1u << 30);
	uint64_t ring = 1;
	const char *rec_dir = getenv("MPROF_RECORD");
	uint64_t rate = hook_env_num("MPROF_SAMPLE", 0, 0, SEG_SAMPLE_MAX);
	uint64_t want_ring = hook_env_num("MPROF_RING", rec_dir && *rec_dir ? 1 << 18 : 1 << 16, 1, 1u << 28);
	while (ring * SEG_SLOT_EVENTS < want_ring)   /* MPROF_RING counts events; the ring holds slots */
		ring *= 2;
	dumps_init();

	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t lanes = 1 + (uint64_t)(cpus > 1 ? 2 * cpus : 2);
	if (lanes > SEG_MAX_LANES)
		lanes = SEG_MAX_LANES;
	uint64_t lcap = stacks < 65536 ? stacks : 65536;
	seg_header *h = hook_seg_create(stacks, stacks * 16, ring, 1024, lanes, lcap, (uint32_t)max_depth,
					page_size, &seg_size);
	if (!h || live_init()) {
		__atomic_store_n(&hook_state, 3, __ATOMIC_RELEASE);
		th.busy--;
		return;
	}
	h->unwind = fp ? SEG_UNWIND_FP : SEG_UNWIND_LIBUNWIND;
	sample_init(h, rate);
	uint64_t lo, hi;
	if (!modules_self_range((void *)hook_init, &lo, &hi))
		unwind_set_self(lo, hi);
	unwind_init(fp);
	scache_init(max_depth);
	lane0 = seg_region(h, SEG_R_COUNTERS);
	win_cnt = (mp_counts *)((char *)h + h->win_off);
	lane_count = lanes;
	lane_cap = lcap;
	thread_key_ok = !pthread_key_create(&thread_key, thread_exit);
	modules_scan(h, 0);
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	dumps_arm(hook_loaded_late());
	h->state = SEG_STATE_RUNNING;
	hook_seg = h;
	if (rec_dir && *rec_dir)
		record_start(h, rec_dir);
	__atomic_store_n(&hook_state, 2, __ATOMIC_RELEASE);
	if (hook_loaded_late())   /* dlopened into a running program (mprof-tui --inject) */
		h->flags |= SEG_FLAG_LATE;
	if (got_any)
		got_patch_all(got_slots_only());
	allocators_start(h);   /* before the program's own code runs, or with its threads stopped */
	th.busy--;
}

void hook_quiet(void)
{
	th.busy = 1;
}

__attribute__((constructor)) static void hook_ctor(void)
{
	hook_init();
}

/* ---- recording ------------------------------------------------------------ */

/* Thread exit (pthread key destructor): publishes staged events, gives the
 * lane back, unmaps the stack cache and the stage; later calls on this
 * thread use the shared lane and write events straight to the ring. */
static void thread_exit(void *arg)
{
	(void)arg;
	th.busy++;
	ring_flush(hook_seg, &th);
	struct ring_stage *st = th.stage;
	th.stage = NULL;
	ring_stage_free(st);
	uint64_t l = th.lane_no;
	th.state = 2;
	th.lane = NULL;
	th.lane_no = 0;
	struct scache *c = th.sc;
	th.sc = NULL;
	scache_free(c);
	if (l)
		__atomic_fetch_and(&lanes_used, ~(1ull << l), __ATOMIC_RELEASE);
	busy_done();
}

/* First recorded call of a thread: its id, a lane if one is free, and the
 * destructor that returns them. */
static void thread_setup(void)
{
	th.state = 1;
	if (!th.tid)
		th.tid = (uint32_t)syscall(SYS_gettid);
	if (!thread_key_ok || pthread_setspecific(thread_key, (void *)1))
		return;
	if (!th.stage)
		th.stage = ring_stage_new();
	uint64_t used = __atomic_load_n(&lanes_used, __ATOMIC_RELAXED);
	for (uint64_t l = 1; l < lane_count; l++) {
		if (used & (1ull << l))
			continue;
		if (__atomic_compare_exchange_n(&lanes_used, &used, used | (1ull << l), 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			th.lane = lane0 + hook_seg->stack_cap + (l - 1) * lane_cap;
			th.lane_no = l;
			return;
		}
		l = 0;   /* the mask changed: look again from the start */
	}
}

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
	if (th.lane && id < lane_cap) {
		uint64_t *c = freed ? &th.lane[id].free_objs : &th.lane[id].alloc_objs;
		__atomic_store_n(&c[0], __atomic_load_n(&c[0], __ATOMIC_RELAXED) + o, __ATOMIC_RELAXED);
		__atomic_store_n(&c[1], __atomic_load_n(&c[1], __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
	} else {
		uint64_t *c = freed ? &lane0[id].free_objs : &lane0[id].alloc_objs;
		__atomic_fetch_add(&c[0], o, __ATOMIC_RELAXED);
		__atomic_fetch_add(&c[1], n, __ATOMIC_RELAXED);
	}
	if (win) {
		uint64_t *c = freed ? &win_cnt[id].free_objs : &win_cnt[id].alloc_objs;
		__atomic_fetch_add(&c[0], o, __ATOMIC_RELAXED);
		__atomic_fetch_add(&c[1], n, __ATOMIC_RELAXED);
	}
}

/* Calls recorded on a thread before it builds its stack cache: threads
 * that allocate a few times and leave never pay for one. */
#define SC_WARMUP 64
/* Sampled, a recorded call stands for about a rate's worth of bytes: a
 * thread that gets a few is no short-lived one. */
#define SC_WARMUP_SAMPLED 4

/* Records the block p of n bytes, which sampling picked; fa: the frame of
 * the interposed function the program called. */
static __attribute__((noinline)) void record_alloc(void *p, size_t n, uint64_t fa)
{
	seg_header *h = hook_seg;
	if (unlikely(th.state != 1)) {
		if (!th.state)
			thread_setup();
	}
	uint32_t ridx = th.sample_ridx;
	int trunc = 0;
	uint32_t id = UINT32_MAX;
	if (th.sc) {
		id = scache_lookup(th.sc, fa, &trunc);
	} else if (th.state == 1 && th.calls != UINT32_MAX && use_cache &&
		   ++th.calls >= (th.sample_mean ? SC_WARMUP_SAMPLED : SC_WARMUP)) {
		th.sc = scache_new(th.tid);
		th.calls = UINT32_MAX;   /* tried once */
	}
	if (id == UINT32_MAX) {
		uint64_t pcs[HOOK_MAX_DEPTH], slots[HOOK_MAX_DEPTH];
		int exact;
		int d = unwind_capture(pcs, slots, &exact, max_depth, fa);
		trunc = d >= max_depth;
		int fresh;
		id = stacks_intern(h, &th, pcs, (uint32_t)d, &fresh);
		if (fresh && modules_check(h) && got_any)
			got_patch_all(got_slots_only());   /* modules loaded since: their slots too */
		if (id != UINT32_MAX && th.sc)
			scache_fill(th.sc, fa, pcs, exact ? slots : NULL, d, id, trunc);
	}
	if (trunc)
		__atomic_fetch_add(&h->truncated_stacks, 1, __ATOMIC_RELAXED);
	if (id == UINT32_MAX)
		return;
	int win = live_put((uint64_t)(uintptr_t)p | th.tag, id, n, ridx, LIVE_NEW);
	if (win < 0) {
		__atomic_fetch_add(&h->dropped_live, 1, __ATOMIC_RELAXED);
		return;
	}
	count(id, 0, (uint64_t)(uintptr_t)p, n, ridx, win);
	ring_push(h, &th, SEG_EV_ALLOC, id, n, (uint64_t)(uintptr_t)p);
}

/* The countdown (sample.c), lowered by an allocation of n bytes: 1 while
 * it runs on.  A few ns: the thread's own count, in the cache line of th
 * every call reads.  sample_due: 1 when the allocation is to be recorded. */
static inline int countdown(uint64_t n)
{
	th.sample_left -= (int64_t)(n < (uint64_t)INT64_MAX / 2 ? n : (uint64_t)INT64_MAX / 2);
	return likely(th.sample_left > 0);
}

static inline int sample_due(uint64_t n)
{
	return countdown(n) ? 0 : sample_take(&th, n);
}

static inline void note_alloc(void *p, size_t n, uint64_t fa)
{
	if (p && sample_due(n))
		record_alloc(p, n, fa);
}

/* The common case of malloc and calloc: recording, not nested, and the
 * countdown (lowered by n here) not run out: the caller goes straight to
 * the allocator, a tail call with no work of ours after it. */
static inline int alloc_skip(uint64_t n)
{
	if (unlikely(__atomic_load_n(&hook_state, __ATOMIC_ACQUIRE) != 2 || th.busy))
		return -1;   /* not the common case: the full path */
	return countdown(n);
}

/* A miss in the live table is an unknown free unless sampling ever left
 * blocks out of it. */
static inline void unknown_free(seg_header *h)
{
	if (!sample_ever)
		__atomic_fetch_add(&h->unknown_frees, 1, __ATOMIC_RELAXED);
}

/* 1 when p was in the live table; a miss is an unknown free unless the key is ENTRY_QUIET. */
static int record_free(void *p)
{
	seg_header *h = hook_seg;
	uint32_t id, ridx;
	uint64_t n, key = (uint64_t)(uintptr_t)p | (th.tag & ~ENTRY_QUIET);
	int win;
	if (!live_maybe(key))
		return 0;   /* sampling never picked it */
	if (!live_take(key, &id, &n, &ridx, &win)) {
		if (!(th.tag & ENTRY_QUIET))
			unknown_free(h);
		return 0;
	}
	if (unlikely(!th.state))
		thread_setup();
	count(id, 1, (uint64_t)(uintptr_t)p, n, ridx, win);
	ring_push(h, &th, SEG_EV_FREE, id, n, (uint64_t)(uintptr_t)p);
	return 1;
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
	if (th.busy) {
		th.reached = 1;   /* a nested call: it reached the program's malloc */
		return 0;
	}
	th.busy = 1;
	return 1;
}

/* ---- the recording API of the other entry points (hook_ext.c) --------- */

hook_resize_t hook_resize_begin(void *p)
{
	hook_resize_t r = { p, th.tag, UINT32_MAX, 0, 0, 0, 0 };
	uint64_t key = (uint64_t)(uintptr_t)p | r.key;
	r.known = p && live_maybe(key) && live_take(key, &r.id, &r.old, &r.ridx, &r.win);
	return r;
}

void hook_resize_end(hook_resize_t *r, void *q, size_t n, int failed, uint64_t fa)
{
	seg_header *h = hook_seg;
	void *p = r->p;
	if (failed) {
		if (r->known)
			live_put((uint64_t)(uintptr_t)p | r->key, r->id, r->old, r->ridx, r->win ? LIVE_NEW : LIVE_PLAIN);
		return;
	}
	if (p && r->known) {
		if (unlikely(!th.state))
			thread_setup();
		count(r->id, 1, (uint64_t)(uintptr_t)p, r->old, r->ridx, r->win);
		ring_push(h, &th, SEG_EV_FREE, r->id, r->old, (uint64_t)(uintptr_t)p);
	} else if (p) {
		unknown_free(h);
	}
	note_alloc(q, n, fa);
}

/* ---- frees that arrive while the thread is inside the hook ------------- */

/* A signal handler that frees a block while its thread is inside the hook
 * cannot take it out of the live table (the thread may hold a shard lock):
 * the block is parked here, and the hook takes it out and frees it when it
 * leaves.  Until then the allocator cannot hand the address to anyone else,
 * so the entry taken out is the right one.  A handler that parks, interrupted
 * by another, is whole before the first resumes; the taker uses a CAS. */
static int defer_push(void *p)
{
	uint32_t n = th.ndefer;
	if (n >= HOOK_DEFER)
		return 0;
	th.defer[n] = p;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	th.ndefer = n + 1;
	return 1;
}

/* Called with busy 0: records and frees the parked blocks. */
static void defer_run(void)
{
	th.busy = 1;
	for (;;) {
		uint32_t n = __atomic_load_n(&th.ndefer, __ATOMIC_RELAXED);
		if (!n)
			break;
		void *p = th.defer[n - 1];
		if (!__atomic_compare_exchange_n(&th.ndefer, &n, n - 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			continue;   /* a handler parked one more meanwhile */
		if (hook_seg)
			record_free(p);
		real_free(p);
	}
	th.busy = 0;
}

static inline void hook_leave(void)
{
	th.busy = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unlikely(th.ndefer))
		defer_run();
}

int hook_begin(uint64_t key)
{
	if (!hook_enter()) {
		th.reached = (uint32_t)(key >> ENTRY_TAG_SHIFT) + 1;
		return 0;
	}
	th.tag = key;
	th.reached = 0;
	return 1;
}

void hook_end(void)
{
	th.tag = 0;
	hook_leave();
}

uint32_t hook_reached(void)
{
	return th.reached;
}

void hook_rekey(uint64_t key)
{
	th.tag = key;
}

void hook_note_alloc(void *p, size_t n, uint64_t fa)
{
	note_alloc(p, n, fa);
}

int hook_note_free(void *p)
{
	return record_free(p);
}

int hook_defer_free(void *p)
{
	return th.busy && __atomic_load_n(&hook_state, __ATOMIC_RELAXED) == 2 && defer_push(p);
}


/* busy-- for the paths outside the hot path. */
static void busy_done(void)
{
	if (!--th.busy && th.ndefer)
		defer_run();
}

/* The interposed function's own frame (attach/ is built with frame
 * pointers): its return address is at FRAME + 8, the caller's stack
 * pointer at the call is FRAME + 16. */
#define FRAME ((uint64_t)(uintptr_t)__builtin_frame_address(0))

/* Before the next allocator is known, every allocation is from the arena. */
#define NEED_REAL(fn) (unlikely(!__atomic_load_n(&(fn), __ATOMIC_ACQUIRE)))

/* alloc_skip said 0: the countdown ran out before the call; the call is made
 * by the caller (busy set), and this finishes it. */
static inline void alloc_due(void *p, size_t n, uint64_t fa)
{
	if (p && sample_take(&th, n))
		record_alloc(p, n, fa);
	hook_leave();
}

EXPORT void *malloc(size_t n)
{
	if (NEED_REAL(real_malloc)) {
		hook_init();
		if (NEED_REAL(real_malloc))
			return hook_arena_alloc(n, 16);
	}
	int skip = alloc_skip(n);
	if (likely(skip > 0))
		return real_malloc(n);
	if (!skip) {
		th.busy = 1;
		void *p = real_malloc(n);
		alloc_due(p, n, FRAME);
		return p;
	}
	if (!hook_enter())
		return real_malloc(n);
	void *p = real_malloc(n);
	note_alloc(p, n, FRAME);
	hook_leave();
	return p;
}

EXPORT void free(void *p)
{
	if (!p || unlikely(hook_in_arena(p)))
		return;
	if (NEED_REAL(real_free))
		return;
	if (!live_maybe((uint64_t)(uintptr_t)p)) {   /* sampling never picked it: the common case */
		real_free(p);
		return;
	}
	if (hook_enter()) {
		/* The allocator reads the block's header next: start that miss
		 * now, so it overlaps with the live-table lookup. */
		__builtin_prefetch((char *)p - 16, 1);
		record_free(p);
		hook_leave();
	} else if (th.busy && __atomic_load_n(&hook_state, __ATOMIC_RELAXED) == 2 && defer_push(p)) {
		return;
	}
	real_free(p);
}

EXPORT void *calloc(size_t n, size_t m)
{
	if (NEED_REAL(real_calloc)) {
		hook_init();
		if (NEED_REAL(real_calloc)) {
			size_t t;
			if (__builtin_mul_overflow(n, m, &t))
				return NULL;
			return hook_arena_alloc(t, 16);   /* static memory is zero */
		}
	}
	size_t t;
	int skip = __builtin_mul_overflow(n, m, &t) ? -1 : alloc_skip(t);
	if (likely(skip > 0))
		return real_calloc(n, m);
	if (!skip) {
		th.busy = 1;
		void *p = real_calloc(n, m);
		alloc_due(p, t, FRAME);
		return p;
	}
	if (!hook_enter())
		return real_calloc(n, m);
	void *p = real_calloc(n, m);
	note_alloc(p, n * m, FRAME);
	hook_leave();
	return p;
}

static inline __attribute__((always_inline)) void *realloc_impl(void *p, size_t n, uint64_t fa)
{
	if (NEED_REAL(real_realloc)) {
		hook_init();
		if (NEED_REAL(real_realloc)) {
			void *q = hook_arena_alloc(n, 16);
			if (q && p)
				memcpy(q, p, hook_arena_size(p) < n ? hook_arena_size(p) : n);
			return q;
		}
	}
	if (p && unlikely(hook_in_arena(p))) {
		void *q = malloc(n);
		if (q)
			memcpy(q, p, hook_arena_size(p) < n ? hook_arena_size(p) : n);
		return q;
	}
	if (!hook_enter())
		return real_realloc(p, n);
	hook_resize_t rs = hook_resize_begin(p);
	void *q = real_realloc(p, n);
	hook_resize_end(&rs, q, n, !q && p && n, fa);
	hook_leave();
	return q;
}

EXPORT void *realloc(void *p, size_t n)
{
	return realloc_impl(p, n, FRAME);
}

EXPORT void *reallocarray(void *p, size_t n, size_t m)
{
	size_t t;
	if (__builtin_mul_overflow(n, m, &t)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc_impl(p, t, FRAME);
}

static inline __attribute__((always_inline)) int memalign_impl(void **out, size_t al, size_t n,
								 int posix, uint64_t fa)
{
	if (NEED_REAL(real_posix_memalign)) {
		hook_init();
		if (NEED_REAL(real_posix_memalign)) {
			*out = hook_arena_alloc(n, al);
			return *out ? 0 : ENOMEM;
		}
	}
	int rec = hook_enter();
	int rc;
	if (!posix && real_memalign) {
		*out = real_memalign(al, n);
		rc = *out ? 0 : errno;
	} else {
		rc = real_posix_memalign(out, al, n);
	}
	if (rec) {
		if (!rc)
			note_alloc(*out, n, fa);
		hook_leave();
	}
	return rc;
}

EXPORT int posix_memalign(void **out, size_t al, size_t n)
{
	void *p = NULL;
	int rc = memalign_impl(&p, al, n, 1, FRAME);
	if (!rc)
		*out = p;
	return rc;
}

EXPORT void *aligned_alloc(size_t al, size_t n)
{
	if (real_aligned_alloc && hook_state == 2) {
		int rec = hook_enter();
		void *p = real_aligned_alloc(al, n);
		if (rec) {
			note_alloc(p, n, FRAME);
			hook_leave();
		}
		return p;
	}
	void *p = NULL;
	int rc = memalign_impl(&p, al < sizeof(void *) ? sizeof(void *) : al, n, 1, FRAME);
	if (rc)
		errno = rc;
	return rc ? NULL : p;
}

EXPORT void *memalign(size_t al, size_t n)
{
	void *p = NULL;
	if (!real_memalign) {
		/* posix_memalign wants a power of two, at least a pointer. */
		size_t a = sizeof(void *);
		while (a < al)
			a *= 2;
		al = a;
	}
	int rc = memalign_impl(&p, al, n, 0, FRAME);
	if (rc)
		errno = rc;
	return rc ? NULL : p;
}

EXPORT void *valloc(size_t n)
{
	void *p = NULL;
	int rc = memalign_impl(&p, page_size, n, 1, FRAME);
	if (rc)
		errno = rc;
	return rc ? NULL : p;
}

EXPORT void *pvalloc(size_t n)
{
	size_t r = (n + page_size - 1) & ~(page_size - 1);
	if (r < n) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = NULL;
	int rc = memalign_impl(&p, page_size, r ? r : page_size, 1, FRAME);
	if (rc)
		errno = rc;
	return rc ? NULL : p;
}

EXPORT size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	if (unlikely(hook_in_arena(p)))
		return hook_arena_size(p);
	if (NEED_REAL(real_usable)) {
		hook_init();
		if (NEED_REAL(real_usable))
			return 0;
	}
	return real_usable(p);
}

/* The table's wrappers are hidden aliases: inside the hook the exported
 * names may resolve to another library's definitions. */
HOOK_GOT_ALIAS(malloc) HOOK_GOT_ALIAS(free) HOOK_GOT_ALIAS(calloc) HOOK_GOT_ALIAS(realloc)
HOOK_GOT_ALIAS(reallocarray) HOOK_GOT_ALIAS(posix_memalign) HOOK_GOT_ALIAS(aligned_alloc)
HOOK_GOT_ALIAS(memalign) HOOK_GOT_ALIAS(valloc) HOOK_GOT_ALIAS(pvalloc) HOOK_GOT_ALIAS(malloc_usable_size)
hook_fn hook_c_fns[HF_C_COUNT + 1] = {
	[HF_MALLOC] = { "malloc", (void *)got_malloc, 1, NULL, 0 },
	[HF_FREE] = { "free", (void *)got_free, 1, NULL, 0 },
	[HF_CALLOC] = { "calloc", (void *)got_calloc, 1, NULL, 0 },
	[HF_REALLOC] = { "realloc", (void *)got_realloc, 1, NULL, 0 },
	[HF_REALLOCARRAY] = { "reallocarray", (void *)got_reallocarray, 1, NULL, 0 },
	[HF_POSIX_MEMALIGN] = { "posix_memalign", (void *)got_posix_memalign, 1, NULL, 0 },
	[HF_ALIGNED_ALLOC] = { "aligned_alloc", (void *)got_aligned_alloc, 1, NULL, 0 },
	[HF_MEMALIGN] = { "memalign", (void *)got_memalign, 1, NULL, 0 },
	[HF_VALLOC] = { "valloc", (void *)got_valloc, 1, NULL, 0 },
	[HF_PVALLOC] = { "pvalloc", (void *)got_pvalloc, 1, NULL, 0 },
	[HF_USABLE] = { "malloc_usable_size", (void *)got_malloc_usable_size, 1, NULL, 0 },
	[HF_CFREE] = { "cfree", (void *)got_free, 0, NULL, 0 },
	[HF_C_COUNT] = { NULL, NULL, 0, NULL, 0 },
};
