/* unwind.c - the one place that picks the unwinder: libunwind's
 * unw_backtrace (default; it keeps a per-thread cache of unwind info) or a
 * frame-pointer walk (MPROF_UNWIND=fp).  Frames inside libmprof.so itself
 * are dropped so stacks start at the program's call. */
#include "attach/hook/hook.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>

static int use_fp;
static uint64_t self_lo, self_hi;

void unwind_set_self(uint64_t lo, uint64_t hi)
{
	self_lo = lo;
	self_hi = hi;
}

void unwind_init(int fp)
{
	use_fp = fp;
	if (!fp)
		unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}

static inline int is_self(uint64_t pc)
{
	return pc >= self_lo && pc < self_hi;
}

/* Largest plausible frame: a bigger step means the chain is broken. */
#define FP_MAX_STEP (1u << 20)

/* Walks the frame-pointer chain from the hooked function's frame fa. */
static int fp_capture(uint64_t *pcs, uint64_t *slots, int max, uint64_t fa)
{
	uintptr_t *fp = (uintptr_t *)(uintptr_t)fa;
	int n = 0;
	for (int guard = 0; n < max && guard < max + 16; guard++) {
		uintptr_t ret = fp[1];
		uintptr_t *next = (uintptr_t *)fp[0];
		if (!ret)
			break;
		if (n || !is_self(ret)) {
			slots[n] = (uint64_t)(uintptr_t)&fp[1];
			pcs[n++] = ret;
		}
		if (next <= fp || (uintptr_t)next - (uintptr_t)fp > FP_MAX_STEP || ((uintptr_t)next & 7))
			break;
		fp = next;
	}
	return n;
}

int unwind_capture(uint64_t *pcs, uint64_t *slots, int *exact, int max, uint64_t fa)
{
	*exact = use_fp;
	if (use_fp)
		return fp_capture(pcs, slots, max, fa);
	void *buf[SEG_MAX_PCS + 16];
	int want = max + 16 > SEG_MAX_PCS + 16 ? SEG_MAX_PCS + 16 : max + 16;
	int got = unw_backtrace(buf, want);
	int i = 0, n = 0;
	while (i < got && is_self((uint64_t)(uintptr_t)buf[i]))
		i++;
	for (; i < got && n < max; i++)
		pcs[n++] = (uint64_t)(uintptr_t)buf[i];
	return n;
}
