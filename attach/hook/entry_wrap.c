/* entry_wrap.c - the functions an entry-patched allocator's jumps lead to:
 * ENTRY_MAX wrappers, one per patched function (entry_wrappers[i] serves
 * entry_fns[i]), each taking the six integer argument registers, calling
 * the function's trampoline with them and recording by its role (where the
 * size and the pointer are).  Blocks are kept in the live table under their
 * allocator's tag, so each allocator's frees find its own blocks only; a
 * function MPROF_FUNCS names takes the tag of the allocator its first
 * allocation reached (a wrapper over je_malloc, over malloc), else its
 * allocator's own, and its frees look under each tag its allocator's
 * functions took; the program's malloc and an allocator it calls look
 * under each other's tag after their own.  A call made inside another (the
 * allocator calling malloc, a wrapper calling je_malloc) passes straight
 * through: one record per allocation the program made.  Built with
 * -fexceptions: a throwing operator new unwinds through the wrapper's
 * cleanup. */
#include "attach/hook/hook.h"

#define FRAME ((uint64_t)(uintptr_t)__builtin_frame_address(0))

entry_fn entry_fns[ENTRY_MAX];

typedef uint64_t (*fn6_t)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
#define CALL(e, v) ((fn6_t)(e)->real)((v)[0], (v)[1], (v)[2], (v)[3], (v)[4], (v)[5])

static inline void leave_guard(int *g)
{
	if (*g)
		hook_end();
}

/* The key bits of e's new blocks: its allocator's; a user-named
 * function's are learned at its first allocation (what it reached). */
static uint64_t alloc_key(entry_fn *e)
{
	entry_alloc *a = e->alloc;
	if (!a->user)
		return a->key;
	uint32_t l = __atomic_load_n(&e->learned, __ATOMIC_ACQUIRE);
	if (!l) {
		uint32_t r = hook_reached();
		uint32_t want = r ? r : (uint32_t)(a->key >> ENTRY_TAG_SHIFT) + 1, zero = 0;
		__atomic_compare_exchange_n(&e->learned, &zero, want, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
		l = __atomic_load_n(&e->learned, __ATOMIC_ACQUIRE);
		__atomic_fetch_or(&a->tags, 1u << (l - 1), __ATOMIC_RELEASE);
	}
	return (uint64_t)(l - 1) << ENTRY_TAG_SHIFT;
}

/* The tags of the allocators the program's malloc (tag 0) was seen to
 * call: a malloc that hands on je_malloc's blocks as they are may see them
 * freed by je_free, and je_malloc's by free, so a free that misses under
 * its own tag looks under the other's (never first: under a malloc that
 * adds a header, malloc(0)'s pointer may be where a je_malloc block starts). */
static uint32_t malloc_reached;

/* After e's allocator call: what the program's malloc reached, learned. */
static void learn_reached(const entry_fn *e)
{
	if (e->alloc->key || e->alloc->user)
		return;   /* not the program's malloc */
	uint32_t r = hook_reached();
	if (r >= 2 && !(__atomic_load_n(&malloc_reached, __ATOMIC_RELAXED) & (1u << (r - 1))))
		__atomic_fetch_or(&malloc_reached, 1u << (r - 1), __ATOMIC_RELAXED);
}

/* The tags other than its allocator's a block freed or resized by e may be
 * under: a user-named allocator's, those its functions took; the program's
 * malloc's, those it reached; one the program's malloc reached, tag 0. */
static uint32_t other_tags(const entry_fn *e)
{
	const entry_alloc *a = e->alloc;
	uint32_t own = (uint32_t)(a->key >> ENTRY_TAG_SHIFT);
	if (a->user)
		return __atomic_load_n(&a->tags, __ATOMIC_ACQUIRE) & ~(1u << own);
	uint32_t m = __atomic_load_n(&malloc_reached, __ATOMIC_RELAXED);
	if (!own)
		return m & ~1u;
	return m & (1u << own) ? 1u : 0;
}

/* The key bits of the lowest tag in *more, taken out of it. */
static uint64_t next_tag(uint32_t *more)
{
	uint64_t t = (uint64_t)__builtin_ctz(*more);
	*more &= *more - 1;
	return t << ENTRY_TAG_SHIFT;
}

/* Takes p out under the first of e's tags that holds it, its allocator's
 * first; a miss under all is one unknown free. */
static void note_free(const entry_fn *e, void *p)
{
	uint32_t more = other_tags(e);
	for (uint64_t key = e->alloc->key;; key = next_tag(&more)) {
		hook_rekey(key | (more ? ENTRY_QUIET : 0));
		if (hook_note_free(p) || !more)
			return;
	}
}

static void note_alloc(entry_fn *e, uint64_t p, uint64_t n, uint64_t fa)
{
	hook_rekey(alloc_key(e));
	if (p)
		hook_note_alloc((void *)(uintptr_t)p, n, fa);
}

/* A resize of p to n (realloc, rallocx, xallocx's in-place growth). */
static uint64_t resize(entry_fn *e, const uint64_t *v, uint64_t fa)
{
	void *p = (void *)(uintptr_t)v[e->a0];
	uint64_t n = v[e->a1];
	hook_resize_t rs;
	uint32_t more = other_tags(e);
	for (uint64_t key = e->alloc->key;; key = next_tag(&more)) {
		hook_rekey(key);
		rs = hook_resize_begin(p);
		if (rs.known || !more)
			break;
	}
	uint64_t r = CALL(e, v);
	learn_reached(e);
	hook_rekey(alloc_key(e));
	if (e->role == AF_XALLOCX) {   /* the block's real size; it did not move */
		uint64_t want = n + v[2] < n ? UINT64_MAX : n + v[2];
		if (r >= n)
			hook_resize_end(&rs, p, r < want ? r : want, 0, fa);
		else
			hook_resize_end(&rs, p, 0, 1, fa);
	} else {
		int failed = e->role == AF_RALLOCX ? !r : !r && p && n;
		hook_resize_end(&rs, (void *)(uintptr_t)r, n, failed, fa);
	}
	return r;
}

static uint64_t entry_call(entry_fn *e, const uint64_t *v, uint64_t fa)
{
	if (!hook_begin(e->alloc->key))
		return CALL(e, v);
	__attribute__((cleanup(leave_guard))) int guard = 1;
	(void)guard;
	uint64_t r, n;
	switch (e->role) {
	case AF_ALLOC:
		r = CALL(e, v);
		learn_reached(e);
		note_alloc(e, r, v[e->a0], fa);
		return r;
	case AF_CALLOC:
		if (__builtin_mul_overflow(v[e->a0], v[e->a1], &n))
			n = 0;   /* the allocator fails it */
		r = CALL(e, v);
		learn_reached(e);
		note_alloc(e, r, n, fa);
		return r;
	case AF_PMEMALIGN: {
		void **out = (void **)(uintptr_t)v[e->a0];
		r = CALL(e, v);
		learn_reached(e);
		if (!(int)r && out)
			note_alloc(e, (uint64_t)(uintptr_t)*out, v[e->a1], fa);
		return r;
	}
	case AF_FREE: {
		void *p = (void *)(uintptr_t)v[e->a0];
		if (p && hook_in_arena(p))
			return 0;   /* the hook's own bootstrap block */
		if (p) {
			__builtin_prefetch((char *)p - 16, 1);   /* as hook.c's free: the allocator's miss overlaps ours */
			note_free(e, p);
		}
		return CALL(e, v);
	}
	}
	return resize(e, v, fa);
}

#define W1(h, l)                                                                                    \
	static uint64_t ew_##h##_##l(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f) \
	{                                                                                             \
		const uint64_t v[6] = { a, b, c, d, e, f };                                            \
		return entry_call(&entry_fns[h * 8 + l], v, FRAME);                                    \
	}
#define W8(h) W1(h, 0) W1(h, 1) W1(h, 2) W1(h, 3) W1(h, 4) W1(h, 5) W1(h, 6) W1(h, 7)
W8(0) W8(1) W8(2) W8(3) W8(4) W8(5) W8(6) W8(7) W8(8) W8(9) W8(10) W8(11) W8(12) W8(13) W8(14) W8(15)

#define P1(h, l) (void *)ew_##h##_##l,
#define P8(h) P1(h, 0) P1(h, 1) P1(h, 2) P1(h, 3) P1(h, 4) P1(h, 5) P1(h, 6) P1(h, 7)
void *const entry_wrappers[ENTRY_MAX] = {
	P8(0) P8(1) P8(2) P8(3) P8(4) P8(5) P8(6) P8(7) P8(8) P8(9) P8(10) P8(11) P8(12) P8(13) P8(14) P8(15)
};
_Static_assert(16 * 8 == ENTRY_MAX, "one wrapper per entry");
