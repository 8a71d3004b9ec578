/* hook_thread.c - a thread's state in the hook: its TLS (th, which every
 * call reads), the counter lanes a thread claims at its first recorded
 * call and gives back at its exit (pthread key destructor), and its
 * thread id.  A thread that exits records on through the shared lane. */
#include "attach/hook/hook_hot.h"

#include <sys/syscall.h>
#include <unistd.h>

HOOK_TLS __thread hook_thread hook_th __attribute__((aligned(64)));

/* Counter lanes: lane 0 is shared (atomic adds); a thread claims one of
 * lanes 1..lane_count-1 for itself (plain stores) and frees it at exit. */
mp_counts *hook_lane0;
mp_counts *hook_win_cnt;         /* the heap window's counters (segment.h) */
uint64_t hook_lane_count, hook_lane_cap;
uint64_t hook_lanes_used;        /* bit l: lane l has an owner */
pthread_key_t hook_thread_key;   /* its destructor runs at thread exit */
int hook_thread_key_ok;

/* Thread exit (pthread key destructor): publishes staged events, gives the
 * lane back, unmaps the stack cache and the stage; later calls on this
 * thread use the shared lane and write events straight to the ring. */
void hook_thread_exit(void *arg)
{
	(void)arg;
	hook_th.busy++;
	ring_flush(hook_seg, &hook_th);
	if (hook_th.peak_delta && hook_seg)
		peak_fold(hook_seg);
	struct ring_stage *st = hook_th.stage;
	hook_th.stage = NULL;
	ring_stage_free(st);
	uint64_t l = hook_th.lane_no;
	hook_th.state = 2;
	hook_th.lane = NULL;
	hook_th.lane_no = 0;
	struct scache *c = hook_th.sc;
	hook_th.sc = NULL;
	scache_free(c);
	if (l)
		__atomic_fetch_and(&hook_lanes_used, ~(1ull << l), __ATOMIC_RELEASE);
	hook_busy_done();
}

/* First recorded call of a thread: its id, a lane if one is free, and the
 * destructor that returns them. */
void hook_thread_setup(void)
{
	hook_th.state = 1;
	if (!hook_th.tid)
		hook_th.tid = (uint32_t)syscall(SYS_gettid);
	if (!hook_thread_key_ok || pthread_setspecific(hook_thread_key, (void *)1))
		return;
	if (!hook_th.stage)
		hook_th.stage = ring_stage_new();
	uint64_t used = __atomic_load_n(&hook_lanes_used, __ATOMIC_RELAXED);
	for (uint64_t l = 1; l < hook_lane_count; l++) {
		if (used & (1ull << l))
			continue;
		if (__atomic_compare_exchange_n(&hook_lanes_used, &used, used | (1ull << l), 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			hook_th.lane = hook_lane0 + hook_seg->stack_cap + (l - 1) * hook_lane_cap;
			hook_th.lane_no = l;
			return;
		}
		l = 0;   /* the mask changed: look again from the start */
	}
}
