/* hook_defer.c - frees that arrive while the thread is inside the hook (a
 * signal handler's): parked in the thread's state and recorded and freed
 * when the thread leaves the hook (hook_leave, busy_done). */
#include "attach/hook/hook_hot.h"

/* A signal handler that frees a block while its thread is inside the hook
 * cannot take it out of the live table (the thread may hold a shard lock):
 * the block is parked here, and the hook takes it out and frees it when it
 * leaves.  Until then the allocator cannot hand the address to anyone else,
 * so the entry taken out is the right one.  A handler that parks, interrupted
 * by another, is whole before the first resumes; the taker uses a CAS. */
int hook_defer_push(void *p)
{
	uint32_t n = hook_th.ndefer;
	if (n >= HOOK_DEFER)
		return 0;
	hook_th.defer[n] = p;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	hook_th.ndefer = n + 1;
	return 1;
}

/* Called with busy 0: records and frees the parked blocks. */
void hook_defer_run(void)
{
	hook_th.busy = 1;
	for (;;) {
		uint32_t n = __atomic_load_n(&hook_th.ndefer, __ATOMIC_RELAXED);
		if (!n)
			break;
		void *p = hook_th.defer[n - 1];
		if (!__atomic_compare_exchange_n(&hook_th.ndefer, &n, n - 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			continue;   /* a handler parked one more meanwhile */
		if (hook_seg)
			hook_record_free(p);
		real_free(p);
	}
	hook_th.busy = 0;
}

int hook_defer_free(void *p)
{
	return hook_th.busy && __atomic_load_n(&hook_state, __ATOMIC_RELAXED) == 2 && hook_defer_push(p);
}

/* busy-- for the paths outside the hot path. */
void hook_busy_done(void)
{
	if (!--hook_th.busy && hook_th.ndefer)
		hook_defer_run();
}
