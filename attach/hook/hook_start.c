/* hook_start.c - the hook's start: the constructor and the first call
 * that finds it not started resolve every entry point's real function,
 * read the MPROF_* settings and create the segment (then recording, or
 * passing through when either fails); fork's handlers give a child a
 * segment of its own; hook_self_enter/leave and hook_quiet set the busy
 * flag from the outside.  Owns the hot line (the forwarded functions and
 * the state) and the settings the recording reads, each read through
 * hook_env_num (attach/shared/settings.c's rule, said through hook_say). */
#include "attach/hook/hook_hot.h"
#include "attach/shared/settings.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

seg_header *hook_seg;

hook_hot hook_core __attribute__((aligned(64)));
size_t (*real_usable)(void *);

int hook_max_depth = HOOK_MAX_DEPTH;
size_t hook_page_size = 4096;
static uint64_t seg_size;
int hook_got_any;       /* some entry is reached through GOT slots only */
int hook_use_cache = 1;          /* MPROF_CACHE: the per-thread stack cache */

void hook_settings_warn(const char *line)
{
	hook_say(line, "", "");
}

uint64_t hook_env_num(const char *name, uint64_t def, uint64_t lo, uint64_t hi)
{
	return settings_num(name, def, lo, hi, hook_settings_warn);
}

static void fork_prepare(void)
{
	hook_th.busy++;
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
	hook_busy_done();
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
	hook_th.tid = 0;
	hook_th.drops = 0;
	ring_discard(&hook_th);   /* staged events are the parent's, for its ring */
	if (!old) {
		hook_th.busy--;
		return;
	}
	dumps_forked();
	dumpon_forked();
	seg_header *h = hook_seg_clone(old, (uint32_t)hook_max_depth, hook_page_size, &seg_size);
	if (!h) {
		hook_seg = NULL;
		__atomic_store_n(&hook_state, 3, __ATOMIC_RELEASE);
		sample_attach(NULL);
		munmap(old, old_size);
		hook_th.busy--;
		return;
	}
	hook_lane0 = seg_region(h, SEG_R_COUNTERS);
	hook_win_cnt = (mp_counts *)((char *)h + h->win_off);
	hook_lanes_used = 0;
	hook_th.lane = NULL;
	hook_th.lane_no = 0;
	if (hook_th.state == 1)
		hook_th.state = 0;   /* claims a lane of the new segment on its next call */
	hook_seg = h;
	sample_attach(h);
	munmap(old, old_size);
	memset(hook_th.cache_id, 0, sizeof(hook_th.cache_id));
	scache_clear(hook_th.sc);
	hook_th.busy--;
}

void hook_self_enter(void)
{
	if (!hook_th.busy++ && hook_seg)   /* not interrupting the hook: its staged events are whole */
		ring_flush(hook_seg, &hook_th);
}

void hook_self_leave(int run_deferred)
{
	if (run_deferred)
		hook_busy_done();
	else
		hook_th.busy--;
}

void *hook_fn_real(hook_fn *e)
{
	void *r = __atomic_load_n(&e->real, __ATOMIC_ACQUIRE);
	if (unlikely(!r)) {
		if (!__atomic_load_n(&hook_state, __ATOMIC_ACQUIRE))
			hook_init();
		hook_th.busy++;
		hook_fn_resolve(e);
		hook_busy_done();
		r = __atomic_load_n(&e->real, __ATOMIC_ACQUIRE);
	}
	return r;
}


/* Every entry point's real function. */
static void resolve_all(void)
{
	hook_got_any = hook_fn_resolve_all();
	*(void **)&real_malloc = hook_c_fns[HF_MALLOC].real;
	*(void **)&real_free = hook_c_fns[HF_FREE].real;
	*(void **)&real_calloc = hook_c_fns[HF_CALLOC].real;
	*(void **)&real_realloc = hook_c_fns[HF_REALLOC].real;
	*(void **)&real_posix_memalign = hook_c_fns[HF_POSIX_MEMALIGN].real;
	*(void **)&real_aligned_alloc = hook_fn_same_provider(hook_c_fns[HF_ALIGNED_ALLOC].real, hook_c_fns[HF_MALLOC].real);
	*(void **)&real_memalign = hook_fn_same_provider(hook_c_fns[HF_MEMALIGN].real, hook_c_fns[HF_MALLOC].real);
	*(void **)&real_usable = hook_c_fns[HF_USABLE].real;
}

void hook_init(void)
{
	int expect = 0;
	if (!__atomic_compare_exchange_n(&hook_state, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	hook_th.busy++;
	resolve_all();
	if (!real_malloc || !real_free || !real_calloc || !real_realloc || !real_posix_memalign) {
		hook_say("cannot find the next allocator: not recording", "", "");
		__atomic_store_n(&hook_state, 3, __ATOMIC_RELEASE);
		hook_th.busy--;
		return;
	}
	hook_page_size = (size_t)sysconf(_SC_PAGESIZE);
	/* The hook's optional libraries, dlopened here (busy: what the loader
	 * allocates passes through), never needed: a container may lack them. */
	const char *uw = getenv("MPROF_UNWIND");
	int fp = uw && !strcmp(uw, "fp");
	int nolib = !fp && unwind_load();
	zstd_load();
	hook_max_depth = (int)hook_env_num("MPROF_DEPTH", HOOK_MAX_DEPTH, 1, HOOK_MAX_DEPTH);
	if (uw && *uw && !fp && strcmp(uw, "libunwind"))
		hook_say("MPROF_UNWIND: use libunwind or fp; using libunwind", "", "");
	hook_use_cache = (int)hook_env_num("MPROF_CACHE", 1, 0, 1);
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
	seg_header *h = hook_seg_create(stacks, stacks * 32, ring, 1024, lanes, lcap, (uint32_t)hook_max_depth,
					hook_page_size, &seg_size);
	if (!h || live_init()) {
		__atomic_store_n(&hook_state, 3, __ATOMIC_RELEASE);
		hook_th.busy--;
		return;
	}
	h->unwind = fp ? SEG_UNWIND_FP : nolib ? SEG_UNWIND_FP_NOLIB : SEG_UNWIND_LIBUNWIND;
	sample_init(h, rate);
	uint64_t lo, hi;
	if (!modules_self_range((void *)hook_init, &lo, &hi))
		unwind_set_self(lo, hi);
	unwind_init(fp || nolib);
	scache_init(hook_max_depth);
	hook_lane0 = seg_region(h, SEG_R_COUNTERS);
	hook_win_cnt = (mp_counts *)((char *)h + h->win_off);
	hook_lane_count = lanes;
	hook_lane_cap = lcap;
	hook_thread_key_ok = !pthread_key_create(&hook_thread_key, hook_thread_exit);
	modules_scan(h, 0);
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	dumps_arm(hook_loaded_late());
	h->state = SEG_STATE_RUNNING;
	hook_seg = h;
	dumpon_start(h);
	if (rec_dir && *rec_dir)
		record_start(h, rec_dir);
	__atomic_store_n(&hook_state, 2, __ATOMIC_RELEASE);
	if (hook_loaded_late())   /* dlopened into a running program (mprof-tui --inject) */
		h->flags |= SEG_FLAG_LATE;
	if (hook_got_any)
		got_patch_all(got_slots_only());
	allocators_start(h);   /* before the program's own code runs, or with its threads stopped */
	hook_th.busy--;
}

void hook_quiet(void)
{
	hook_th.busy = 1;
}

__attribute__((constructor)) static void hook_ctor(void)
{
	hook_init();
}
