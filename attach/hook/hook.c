/* hook.c - libmprof.so's C entry points: the interposed malloc family
 * (malloc, free, calloc, realloc, reallocarray, posix_memalign,
 * aligned_alloc, memalign, valloc, pvalloc, malloc_usable_size) and their
 * table (hook_c_fns).  Each forwards to the next allocator and, when the
 * call is recorded, hands the block to hook_record.c; before the next
 * allocator is known the arena serves.  A per-thread busy flag makes every
 * nested call (from libunwind, dlsym, a signal handler inside the hook) go
 * straight to the real allocator. */
#include "attach/hook/hook_hot.h"
#include "attach/hook/sfilt.h"

#include <errno.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

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
	if (!p)   /* nothing allocated: the count as it was (countdown keeps it >= 0) */
		hook_th.sample_left += countdown_bytes(n);
	else if (sample_take(&hook_th, n))
		hook_record_alloc(p, n, fa);
	hook_leave();
}

/* The rest of malloc after alloc_skip said skip (0 or -1), out of line so
 * the common path saves no registers; fa: malloc's frame (the same bytes
 * whether this is reached by a call or by a jump). */
static __attribute__((noinline)) void *malloc_slow(size_t n, int skip, uint64_t fa)
{
	if (!skip) {
		hook_th.busy = 1;
		void *p = real_malloc(n);
		alloc_due(p, n, fa);
		return p;
	}
	if (NEED_REAL(real_malloc)) {   /* recording (alloc_skip's 1 or 0) implies it is known */
		hook_init();
		if (NEED_REAL(real_malloc))
			return hook_arena_alloc(n, 16);
	}
	if (!hook_enter())
		return real_malloc(n);
	void *p = real_malloc(n);
	note_alloc(p, n, fa);
	hook_leave();
	return p;
}

EXPORT void *malloc(size_t n)
{
	int skip = alloc_skip(n);
	if (likely(skip > 0))
		return real_malloc(n);
	return malloc_slow(n, skip, FRAME);
}

/* The rest of free when sfilt.h's filter is off or its slot is set, out of
 * line so the common path saves no registers. */
static __attribute__((noinline)) void free_slow(void *p)
{
	if (!p || unlikely(hook_in_arena(p)))
		return;
	if (NEED_REAL(real_free))
		return;
	if (!free_maybe_live((uint64_t)(uintptr_t)p)) {   /* sampling never picked it */
		real_free(p);
		return;
	}
	if (hook_enter()) {
		/* The allocator reads the block's header next: start that miss
		 * now, so it overlaps with the live-table lookup. */
		__builtin_prefetch((char *)p - 16, 1);
		hook_record_free(p);
		hook_leave();
	} else if (hook_th.busy && __atomic_load_n(&hook_state, __ATOMIC_RELAXED) == 2 && hook_defer_push(p)) {
		return;
	}
	real_free(p);
}

EXPORT void free(void *p)
{
	/* Sampling never picked it (the common case): the filter being on,
	 * real_free is known; NULL goes to it too (a no-op for every allocator). */
	if (likely(sfilt_miss((uint64_t)(uintptr_t)p)) && likely(!hook_in_arena(p))) {
		real_free(p);
		return;
	}
	free_slow(p);
}

/* calloc's malloc_slow; t: n * m, which did not overflow when skip is 0. */
static __attribute__((noinline)) void *calloc_slow(size_t n, size_t m, size_t t, int skip, uint64_t fa)
{
	if (!skip) {
		hook_th.busy = 1;
		void *p = real_calloc(n, m);
		alloc_due(p, t, fa);
		return p;
	}
	if (NEED_REAL(real_calloc)) {
		hook_init();
		if (NEED_REAL(real_calloc)) {
			if (__builtin_mul_overflow(n, m, &t))
				return NULL;
			return hook_arena_alloc(t, 16);   /* static memory is zero */
		}
	}
	if (!hook_enter())
		return real_calloc(n, m);
	void *p = real_calloc(n, m);
	note_alloc(p, n * m, fa);
	hook_leave();
	return p;
}

EXPORT void *calloc(size_t n, size_t m)
{
	size_t t;
	int skip = __builtin_mul_overflow(n, m, &t) ? -1 : alloc_skip(t);
	if (likely(skip > 0))
		return real_calloc(n, m);
	return calloc_slow(n, m, t, skip, FRAME);
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
	int rc = memalign_impl(&p, hook_page_size, n, 1, FRAME);
	if (rc)
		errno = rc;
	return rc ? NULL : p;
}

EXPORT void *pvalloc(size_t n)
{
	size_t r = (n + hook_page_size - 1) & ~(hook_page_size - 1);
	if (r < n) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = NULL;
	int rc = memalign_impl(&p, hook_page_size, r ? r : hook_page_size, 1, FRAME);
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
