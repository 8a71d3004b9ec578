/* unwind.c - the one place that picks the unwinder: libunwind's
 * unw_backtrace (default; it keeps a per-thread cache of unwind info) or a
 * frame-pointer walk (MPROF_UNWIND=fp, or when libunwind.so.8 cannot be
 * loaded: it is dlopened at start, not needed, so a container without it
 * still takes the hook).  Frames inside libmprof.so itself are dropped so
 * stacks start at the program's call. */
#include "attach/hook/hook.h"
#include "attach/hook/hook_hot.h"

#include <dlfcn.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

/* The name a libunwind macro stands for (unw_set_caching_policy is _ULx86_64_...). */
#define UNW_NAME_(x) #x
#define UNW_NAME(x) UNW_NAME_(x)

static int (*unw_bt)(void **, int);   /* libunwind's unw_backtrace, once loaded */

int unwind_load(void)
{
	void *lib = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return -1;
	int (*bt)(void **, int) = (int (*)(void **, int))dlsym(lib, UNW_NAME(unw_backtrace));
	int (*pol)(unw_addr_space_t, unw_caching_policy_t) =
		(int (*)(unw_addr_space_t, unw_caching_policy_t))dlsym(lib, UNW_NAME(unw_set_caching_policy));
	unw_addr_space_t *as = (unw_addr_space_t *)dlsym(lib, UNW_NAME(unw_local_addr_space));
	if (!bt || !pol || !as)
		return -1;   /* left loaded: a dlclose here could run its destructors under the loader's lock */
	pol(*as, UNW_CACHE_PER_THREAD);
	__atomic_store_n(&unw_bt, bt, __ATOMIC_RELEASE);
	return 0;
}

static int use_fp;
static uint64_t self_lo, self_hi;

void unwind_set_self(uint64_t lo, uint64_t hi)
{
	self_lo = lo;
	self_hi = hi;
}

void unwind_init(int fp)
{
	use_fp = fp || !__atomic_load_n(&unw_bt, __ATOMIC_ACQUIRE);
}

static inline int is_self(uint64_t pc)
{
	return pc >= self_lo && pc < self_hi;
}

/* Largest plausible frame: a bigger step means the chain is broken. */
#define FP_MAX_STEP (1u << 20)

typedef struct stack_q {
	uint64_t at, lo, hi;
} stack_q;

static int stack_one(void *arg, const procmap *m)
{
	stack_q *q = arg;
	if (q->at < m->lo || q->at >= m->hi)
		return 0;
	q->lo = m->lo;
	q->hi = m->hi;
	return 1;
}

/* The end of the mapping that holds fa (this thread's stack): every byte
 * from fa up to it is mapped.  Kept per thread; looked up again (in
 * /proc/self/maps, without malloc) when fa is elsewhere (a signal stack). */
static uint64_t stack_end(uint64_t fa)
{
	hook_thread *t = &hook_th;
	if (fa < t->stack_lo || fa >= t->stack_hi) {
		stack_q q = { fa, 0, 0 };
		procmaps_each(stack_one, &q);
		t->stack_lo = q.lo;
		t->stack_hi = q.hi;
	}
	return fa >= t->stack_lo && fa < t->stack_hi ? t->stack_hi : 0;
}

/* Walks the frame-pointer chain from the hooked function's frame fa.  Each
 * frame is read only when it lies above the last one, 8-aligned, and
 * within the thread's stack mapping: code built without frame pointers
 * (rbp used for data) ends the walk, never faults it. */
static int fp_capture(uint64_t *pcs, uint64_t *slots, int max, uint64_t fa)
{
	uint64_t end = stack_end(fa);
	uintptr_t *fp = (uintptr_t *)(uintptr_t)fa;
	int n = 0;
	if (!end || fa + 16 > end || (fa & 7))
		return 0;
	for (int guard = 0; n < max && guard < max + 16; guard++) {
		uintptr_t ret = fp[1];
		uintptr_t *next = (uintptr_t *)fp[0];
		if (!ret)
			break;
		if (n || !is_self(ret)) {
			slots[n] = (uint64_t)(uintptr_t)&fp[1];
			pcs[n++] = ret;
		}
		if (next <= fp || (uintptr_t)next - (uintptr_t)fp > FP_MAX_STEP || ((uintptr_t)next & 7) ||
		    (uint64_t)(uintptr_t)next + 16 > end)
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
	int got = unw_bt(buf, want);
	int i = 0, n = 0;
	while (i < got && is_self((uint64_t)(uintptr_t)buf[i]))
		i++;
	for (; i < got && n < max; i++)
		pcs[n++] = (uint64_t)(uintptr_t)buf[i];
	return n;
}
