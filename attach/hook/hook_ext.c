/* hook_ext.c - the entry points beyond C's malloc family: the C++ operators
 * of the Itanium ABI (every new and delete form), jemalloc's extended API
 * (mallocx, rallocx, xallocx, sdallocx, dallocx) and tcmalloc's tc_*.
 * jemalloc and tcmalloc define operator new themselves, so a C++ program
 * linked with them never reaches malloc: the operators are taken over here
 * and forwarded to the program's own definition, which frees what it made.
 * The operators are exported (interposition, as malloc is); the allocators'
 * own names are not (exporting mallocx would tell a program probing for
 * jemalloc that it is there): got.c reaches their callers' GOT slots.
 * Built with -fexceptions: a throwing operator new unwinds through the
 * wrapper, whose cleanup ends the thread's busy state. */
#include "attach/hook/hook.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define FRAME ((uint64_t)(uintptr_t)__builtin_frame_address(0))

/* The C++ operators (exported), then the allocators' own names: index,
 * symbol, exported. */
#define OP_FNS(X)                                                                                       \
	X(NEW, _Znwm, 1) X(NEWA, _Znam, 1) X(NEW_NT, _ZnwmRKSt9nothrow_t, 1)                            \
	X(NEWA_NT, _ZnamRKSt9nothrow_t, 1) X(NEW_AL, _ZnwmSt11align_val_t, 1)                           \
	X(NEWA_AL, _ZnamSt11align_val_t, 1) X(NEW_AL_NT, _ZnwmSt11align_val_tRKSt9nothrow_t, 1)         \
	X(NEWA_AL_NT, _ZnamSt11align_val_tRKSt9nothrow_t, 1) X(DEL, _ZdlPv, 1) X(DELA, _ZdaPv, 1)       \
	X(DEL_SZ, _ZdlPvm, 1) X(DELA_SZ, _ZdaPvm, 1) X(DEL_NT, _ZdlPvRKSt9nothrow_t, 1)                 \
	X(DELA_NT, _ZdaPvRKSt9nothrow_t, 1) X(DEL_AL, _ZdlPvSt11align_val_t, 1)                         \
	X(DELA_AL, _ZdaPvSt11align_val_t, 1) X(DEL_SZ_AL, _ZdlPvmSt11align_val_t, 1)                    \
	X(DELA_SZ_AL, _ZdaPvmSt11align_val_t, 1) X(DEL_AL_NT, _ZdlPvSt11align_val_tRKSt9nothrow_t, 1)   \
	X(DELA_AL_NT, _ZdaPvSt11align_val_tRKSt9nothrow_t, 1)
#define LIB_FNS(X)                                                                                      \
	X(MALLOCX, mallocx, 0) X(RALLOCX, rallocx, 0) X(XALLOCX, xallocx, 0) X(SDALLOCX, sdallocx, 0)   \
	X(DALLOCX, dallocx, 0)                                                                          \
	X(TC_MALLOC, tc_malloc, 0) X(TC_MALLOC_SKIP, tc_malloc_skip_new_handler, 0)                     \
	X(TC_CALLOC, tc_calloc, 0) X(TC_REALLOC, tc_realloc, 0) X(TC_FREE, tc_free, 0)                  \
	X(TC_FREE_SIZED, tc_free_sized, 0) X(TC_CFREE, tc_cfree, 0) X(TC_MEMALIGN, tc_memalign, 0)      \
	X(TC_POSIX_MEMALIGN, tc_posix_memalign, 0) X(TC_VALLOC, tc_valloc, 0)                           \
	X(TC_PVALLOC, tc_pvalloc, 0) X(TC_NEW, tc_new, 0) X(TC_NEWARRAY, tc_newarray, 0)                \
	X(TC_NEW_NT, tc_new_nothrow, 0) X(TC_NEWARRAY_NT, tc_newarray_nothrow, 0)                       \
	X(TC_NEW_AL, tc_new_aligned, 0) X(TC_NEWARRAY_AL, tc_newarray_aligned, 0)                       \
	X(TC_NEW_AL_NT, tc_new_aligned_nothrow, 0) X(TC_NEWARRAY_AL_NT, tc_newarray_aligned_nothrow, 0) \
	X(TC_DELETE, tc_delete, 0) X(TC_DELETEARRAY, tc_deletearray, 0)                                 \
	X(TC_DELETE_SIZED, tc_delete_sized, 0) X(TC_DELETEARRAY_SIZED, tc_deletearray_sized, 0)         \
	X(TC_DELETE_NT, tc_delete_nothrow, 0) X(TC_DELETEARRAY_NT, tc_deletearray_nothrow, 0)           \
	X(TC_DELETE_AL, tc_delete_aligned, 0) X(TC_DELETEARRAY_AL, tc_deletearray_aligned, 0)           \
	X(TC_DELETE_SZ_AL, tc_delete_sized_aligned, 0)                                                  \
	X(TC_DELETEARRAY_SZ_AL, tc_deletearray_sized_aligned, 0)                                        \
	X(TC_DELETE_AL_NT, tc_delete_aligned_nothrow, 0)                                                \
	X(TC_DELETEARRAY_AL_NT, tc_deletearray_aligned_nothrow, 0)

#define X_ENUM(idx, sym, exp) X_##idx,
enum { OP_FNS(X_ENUM) LIB_FNS(X_ENUM) X_COUNT };

static inline void leave_guard(int *g)
{
	if (*g)
		hook_end();
}
#define GUARD __attribute__((cleanup(leave_guard))) int guard_ = 1; (void)guard_

#define REAL(idx, type) ((type)hook_fn_real(&hook_ext_fns[X_##idx]))

/* C's malloc and free: where no C++ runtime is loaded at all. */
static void *c_malloc(size_t n)
{
	void *(*m)(size_t) = (void *(*)(size_t))hook_fn_real(&hook_c_fns[HF_MALLOC]);
	return m ? m(n) : NULL;
}

static void c_free(void *p)
{
	void (*f)(void *) = (void (*)(void *))hook_fn_real(&hook_c_fns[HF_FREE]);
	if (f)
		f(p);
}

static void *c_aligned(size_t al, size_t n)
{
	int (*pm)(void **, size_t, size_t) =
		(int (*)(void **, size_t, size_t))hook_fn_real(&hook_c_fns[HF_POSIX_MEMALIGN]);
	void *p = NULL;
	return pm && !pm(&p, al < sizeof(void *) ? sizeof(void *) : al, n) ? p : NULL;
}

/* An allocation of N bytes by the call ARGS; FALLBACK when nothing defines it. */
#define ALLOC_BODY(idx, type, ARGS, N, FALLBACK)       \
	type r_ = REAL(idx, type);                     \
	if (!r_)                                       \
		return FALLBACK;                       \
	if (!hook_begin(0))                             \
		return r_ ARGS;                        \
	GUARD;                                         \
	void *p = r_ ARGS;                             \
	if (p)                                         \
		hook_note_alloc(p, N, FRAME);          \
	return p;

/* A free of P by the call ARGS. */
#define FREE_BODY(idx, type, P, ARGS)                  \
	type r_ = REAL(idx, type);                     \
	if ((P) && hook_in_arena(P))                   \
		return;                                \
	if (P) {                                       \
		if (hook_begin(0)) {                    \
			hook_note_free(P);             \
			hook_end();                    \
		} else if (hook_defer_free(P)) {       \
			return;                        \
		}                                      \
	}                                              \
	if (r_)                                        \
		r_ ARGS;                               \
	else                                           \
		c_free(P);

static void *oom(void)
{
	static const char msg[] = "mprof: operator new: no C++ runtime defines it and malloc failed\n";
	if (write(2, msg, sizeof(msg) - 1) < 0)
		abort();
	abort();
}

typedef void *(*new_t)(size_t);
typedef void *(*new_nt_t)(size_t, const void *);
typedef void *(*new_al_t)(size_t, size_t);
typedef void *(*new_al_nt_t)(size_t, size_t, const void *);
typedef void (*del_t)(void *);
typedef void (*del_sz_t)(void *, size_t);
typedef void (*del_nt_t)(void *, const void *);
typedef void (*del_sz_al_t)(void *, size_t, size_t);
typedef void (*del_al_nt_t)(void *, size_t, const void *);

/* ---- C++ operators ------------------------------------------------------- */

#define DEF_NEW(idx, sym)                                                                  \
	EXPORT void *sym(size_t n)                                                          \
	{                                                                                   \
		void *q;                                                                    \
		ALLOC_BODY(idx, new_t, (n), n, (q = c_malloc(n)) ? q : oom())               \
	}
#define DEF_NEW_NT(idx, sym)                                                               \
	EXPORT void *sym(size_t n, const void *nt)                                          \
	{                                                                                   \
		ALLOC_BODY(idx, new_nt_t, (n, nt), n, c_malloc(n))                          \
	}
#define DEF_NEW_AL(idx, sym)                                                               \
	EXPORT void *sym(size_t n, size_t al)                                               \
	{                                                                                   \
		void *q;                                                                    \
		ALLOC_BODY(idx, new_al_t, (n, al), n, (q = c_aligned(al, n)) ? q : oom())   \
	}
#define DEF_NEW_AL_NT(idx, sym)                                                            \
	EXPORT void *sym(size_t n, size_t al, const void *nt)                               \
	{                                                                                   \
		ALLOC_BODY(idx, new_al_nt_t, (n, al, nt), n, c_aligned(al, n))              \
	}
#define DEF_DEL(idx, sym)                                                                  \
	EXPORT void sym(void *p) { FREE_BODY(idx, del_t, p, (p)) }
#define DEF_DEL2(idx, sym, T2, type)                                                       \
	EXPORT void sym(void *p, T2 a) { FREE_BODY(idx, type, p, (p, a)) }
#define DEF_DEL3(idx, sym, T2, T3, type)                                                   \
	EXPORT void sym(void *p, T2 a, T3 b) { FREE_BODY(idx, type, p, (p, a, b)) }

DEF_NEW(NEW, _Znwm)
DEF_NEW(NEWA, _Znam)
DEF_NEW_NT(NEW_NT, _ZnwmRKSt9nothrow_t)
DEF_NEW_NT(NEWA_NT, _ZnamRKSt9nothrow_t)
DEF_NEW_AL(NEW_AL, _ZnwmSt11align_val_t)
DEF_NEW_AL(NEWA_AL, _ZnamSt11align_val_t)
DEF_NEW_AL_NT(NEW_AL_NT, _ZnwmSt11align_val_tRKSt9nothrow_t)
DEF_NEW_AL_NT(NEWA_AL_NT, _ZnamSt11align_val_tRKSt9nothrow_t)
DEF_DEL(DEL, _ZdlPv)
DEF_DEL(DELA, _ZdaPv)
DEF_DEL2(DEL_SZ, _ZdlPvm, size_t, del_sz_t)
DEF_DEL2(DELA_SZ, _ZdaPvm, size_t, del_sz_t)
DEF_DEL2(DEL_NT, _ZdlPvRKSt9nothrow_t, const void *, del_nt_t)
DEF_DEL2(DELA_NT, _ZdaPvRKSt9nothrow_t, const void *, del_nt_t)
DEF_DEL2(DEL_AL, _ZdlPvSt11align_val_t, size_t, del_sz_t)
DEF_DEL2(DELA_AL, _ZdaPvSt11align_val_t, size_t, del_sz_t)
DEF_DEL3(DEL_SZ_AL, _ZdlPvmSt11align_val_t, size_t, size_t, del_sz_al_t)
DEF_DEL3(DELA_SZ_AL, _ZdaPvmSt11align_val_t, size_t, size_t, del_sz_al_t)
DEF_DEL3(DEL_AL_NT, _ZdlPvSt11align_val_tRKSt9nothrow_t, size_t, const void *, del_al_nt_t)
DEF_DEL3(DELA_AL_NT, _ZdaPvSt11align_val_tRKSt9nothrow_t, size_t, const void *, del_al_nt_t)

/* ---- jemalloc's extended API --------------------------------------------- */

typedef void *(*mallocx_t)(size_t, int);
typedef void *(*rallocx_t)(void *, size_t, int);
typedef size_t (*xallocx_t)(void *, size_t, size_t, int);
typedef void (*sdallocx_t)(void *, size_t, int);
typedef void (*dallocx_t)(void *, int);

static void *hx_mallocx(size_t n, int flags)
{
	ALLOC_BODY(MALLOCX, mallocx_t, (n, flags), n, NULL)
}

/* rallocx never frees p on failure; p is never NULL. */
static void *hx_rallocx(void *p, size_t n, int flags)
{
	rallocx_t r = REAL(RALLOCX, rallocx_t);
	if (!r)
		return NULL;
	if (hook_in_arena(p) || !hook_begin(0))
		return r(p, n, flags);
	hook_resize_t rs = hook_resize_begin(p);
	void *q = r(p, n, flags);
	hook_resize_end(&rs, q, n, !q, FRAME);
	hook_end();
	return q;
}

/* xallocx resizes in place and returns the block's real size: the block is
 * then taken to hold what was asked for, up to size + extra. */
static size_t hx_xallocx(void *p, size_t n, size_t extra, int flags)
{
	xallocx_t r = REAL(XALLOCX, xallocx_t);
	if (!r)
		return 0;
	if (hook_in_arena(p) || !hook_begin(0))
		return r(p, n, extra, flags);
	hook_resize_t rs = hook_resize_begin(p);
	size_t got = r(p, n, extra, flags);
	size_t want = n + extra < n ? (size_t)-1 : n + extra;
	if (got >= n)
		hook_resize_end(&rs, p, got < want ? got : want, 0, FRAME);
	else
		hook_resize_end(&rs, p, 0, 1, FRAME);   /* unchanged */
	hook_end();
	return got;
}

static void hx_sdallocx(void *p, size_t n, int flags)
{
	FREE_BODY(SDALLOCX, sdallocx_t, p, (p, n, flags))
}

static void hx_dallocx(void *p, int flags)
{
	FREE_BODY(DALLOCX, dallocx_t, p, (p, flags))
}

/* ---- tcmalloc's tc_* ------------------------------------------------------ */

typedef void *(*calloc_t)(size_t, size_t);
typedef void *(*realloc_t)(void *, size_t);
typedef void *(*memalign_t)(size_t, size_t);
typedef int (*posix_memalign_t)(void **, size_t, size_t);

static void *hx_tc_malloc(size_t n) { ALLOC_BODY(TC_MALLOC, new_t, (n), n, NULL) }
static void *hx_tc_malloc_skip_new_handler(size_t n) { ALLOC_BODY(TC_MALLOC_SKIP, new_t, (n), n, NULL) }
static void *hx_tc_new(size_t n) { ALLOC_BODY(TC_NEW, new_t, (n), n, NULL) }
static void *hx_tc_newarray(size_t n) { ALLOC_BODY(TC_NEWARRAY, new_t, (n), n, NULL) }
static void *hx_tc_new_nothrow(size_t n, const void *nt) { ALLOC_BODY(TC_NEW_NT, new_nt_t, (n, nt), n, NULL) }
static void *hx_tc_newarray_nothrow(size_t n, const void *nt)
{
	ALLOC_BODY(TC_NEWARRAY_NT, new_nt_t, (n, nt), n, NULL)
}
static void *hx_tc_new_aligned(size_t n, size_t al) { ALLOC_BODY(TC_NEW_AL, new_al_t, (n, al), n, NULL) }
static void *hx_tc_newarray_aligned(size_t n, size_t al)
{
	ALLOC_BODY(TC_NEWARRAY_AL, new_al_t, (n, al), n, NULL)
}
static void *hx_tc_new_aligned_nothrow(size_t n, size_t al, const void *nt)
{
	ALLOC_BODY(TC_NEW_AL_NT, new_al_nt_t, (n, al, nt), n, NULL)
}
static void *hx_tc_newarray_aligned_nothrow(size_t n, size_t al, const void *nt)
{
	ALLOC_BODY(TC_NEWARRAY_AL_NT, new_al_nt_t, (n, al, nt), n, NULL)
}
static void *hx_tc_memalign(size_t al, size_t n) { ALLOC_BODY(TC_MEMALIGN, memalign_t, (al, n), n, NULL) }
static void *hx_tc_valloc(size_t n) { ALLOC_BODY(TC_VALLOC, new_t, (n), n, NULL) }

static size_t page_round(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t r = (n + pg - 1) & ~(pg - 1);
	return r < n ? n : r ? r : pg;
}

static void *hx_tc_pvalloc(size_t n) { ALLOC_BODY(TC_PVALLOC, new_t, (n), page_round(n), NULL) }

static void *hx_tc_calloc(size_t n, size_t m)
{
	size_t t;
	if (__builtin_mul_overflow(n, m, &t))
		t = 0;   /* the allocator fails it; nothing is recorded */
	ALLOC_BODY(TC_CALLOC, calloc_t, (n, m), t, NULL)
}

static int hx_tc_posix_memalign(void **out, size_t al, size_t n)
{
	posix_memalign_t r = REAL(TC_POSIX_MEMALIGN, posix_memalign_t);
	if (!r)
		return ENOMEM;
	if (!hook_begin(0))
		return r(out, al, n);
	GUARD;
	void *p = NULL;
	int rc = r(&p, al, n);
	if (!rc) {
		if (p)
			hook_note_alloc(p, n, FRAME);
		*out = p;
	}
	return rc;
}

/* realloc's rules: p NULL allocates; n 0 frees (the allocator may return a
 * block or NULL); failure leaves p to the caller. */
static void *hx_tc_realloc(void *p, size_t n)
{
	realloc_t r = REAL(TC_REALLOC, realloc_t);
	if (!r)
		return NULL;
	if ((p && hook_in_arena(p)) || !hook_begin(0))
		return r(p, n);
	hook_resize_t rs = hook_resize_begin(p);
	void *q = r(p, n);
	hook_resize_end(&rs, q, n, !q && p && n, FRAME);
	hook_end();
	return q;
}

static void hx_tc_free(void *p) { FREE_BODY(TC_FREE, del_t, p, (p)) }
static void hx_tc_cfree(void *p) { FREE_BODY(TC_CFREE, del_t, p, (p)) }
static void hx_tc_delete(void *p) { FREE_BODY(TC_DELETE, del_t, p, (p)) }
static void hx_tc_deletearray(void *p) { FREE_BODY(TC_DELETEARRAY, del_t, p, (p)) }
static void hx_tc_free_sized(void *p, size_t n) { FREE_BODY(TC_FREE_SIZED, del_sz_t, p, (p, n)) }
static void hx_tc_delete_sized(void *p, size_t n) { FREE_BODY(TC_DELETE_SIZED, del_sz_t, p, (p, n)) }
static void hx_tc_deletearray_sized(void *p, size_t n) { FREE_BODY(TC_DELETEARRAY_SIZED, del_sz_t, p, (p, n)) }
static void hx_tc_delete_nothrow(void *p, const void *nt) { FREE_BODY(TC_DELETE_NT, del_nt_t, p, (p, nt)) }
static void hx_tc_deletearray_nothrow(void *p, const void *nt)
{
	FREE_BODY(TC_DELETEARRAY_NT, del_nt_t, p, (p, nt))
}
static void hx_tc_delete_aligned(void *p, size_t al) { FREE_BODY(TC_DELETE_AL, del_sz_t, p, (p, al)) }
static void hx_tc_deletearray_aligned(void *p, size_t al) { FREE_BODY(TC_DELETEARRAY_AL, del_sz_t, p, (p, al)) }
static void hx_tc_delete_sized_aligned(void *p, size_t n, size_t al)
{
	FREE_BODY(TC_DELETE_SZ_AL, del_sz_al_t, p, (p, n, al))
}
static void hx_tc_deletearray_sized_aligned(void *p, size_t n, size_t al)
{
	FREE_BODY(TC_DELETEARRAY_SZ_AL, del_sz_al_t, p, (p, n, al))
}
static void hx_tc_delete_aligned_nothrow(void *p, size_t al, const void *nt)
{
	FREE_BODY(TC_DELETE_AL_NT, del_al_nt_t, p, (p, al, nt))
}
static void hx_tc_deletearray_aligned_nothrow(void *p, size_t al, const void *nt)
{
	FREE_BODY(TC_DELETEARRAY_AL_NT, del_al_nt_t, p, (p, al, nt))
}

/* The operators' hidden aliases: inside a shared library the address of an
 * exported function may resolve to another library's definition. */
#define OP_ALIAS(idx, sym, exp) extern __typeof(sym) hx_##sym __attribute__((alias(#sym), visibility("hidden")));
OP_FNS(OP_ALIAS)

#define X_ENTRY(idx, sym, exp) [X_##idx] = { #sym, (void *)hx_##sym, exp, NULL, 0 },
hook_fn hook_ext_fns[X_COUNT + 1] = { OP_FNS(X_ENTRY) LIB_FNS(X_ENTRY) { NULL, NULL, 0, NULL, 0 } };
