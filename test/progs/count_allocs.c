/* count_allocs.c - a counting preload, independent of libmprof.so, for the
 * tests that check mprof's allocation counts against a real program:
 *
 *   cc -shared -fPIC -O2 -o count_allocs.so count_allocs.c -ldl
 *   COUNT_ALLOCS_OUT=FILE LD_PRELOAD=./count_allocs.so PROGRAM
 *
 * It interposes malloc, calloc, realloc, reallocarray, posix_memalign,
 * aligned_alloc, memalign, valloc, pvalloc, free and the C++ operators
 * new/new[] (plain, nothrow, aligned, aligned nothrow) and delete/delete[]
 * (plain, sized, aligned, nothrow), forwards each to the next definition
 * (dlsym(RTLD_NEXT)) and counts with atomics.  At exit (a destructor) it
 * writes one line to $COUNT_ALLOCS_OUT, names and numbers:
 *
 *   allocs N frees N failed N reallocs N malloc N calloc N realloc N
 *   reallocarray N posix_memalign N aligned_alloc N memalign N valloc N
 *   pvalloc N new N free N delete N
 *
 * allocs, frees and failed count blocks: a call that returned a block, a
 * block given back, a call that returned none.  Each block is counted once,
 * by the innermost of these functions its call went through: libstdc++'s
 * operator new calls malloc, glibc's reallocarray calls realloc (both
 * through the PLT, so back in here), and the block is malloc's or
 * realloc's; an operator new from an allocator that does not go through
 * malloc (jemalloc's, tcmalloc's) counts its block itself.  So every block
 * an allocator hands out is counted, also those made inside another call
 * (the bad_alloc a failing operator new throws is malloc'd inside it), and
 * allocs - frees is the number of blocks still allocated.  realloc(p, n)
 * that returns q is one allocation and, when p was not NULL, one free (as
 * mprof and heaptrack count it); realloc(p, 0) that frees p and returns
 * NULL is only the free; free(NULL) and delete of NULL count nothing.
 * reallocs counts the allocations made by realloc and reallocarray.  The
 * figures named after a function count every call to it (nested ones
 * too).  Calls made while dlsym resolves the next definitions are served
 * from a small static buffer and not counted (they are this library's). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { C_ALLOCS, C_FREES, C_FAILED, C_REALLOCS, C_MALLOC, C_CALLOC, C_REALLOC, C_REALLOCARRAY,
       C_POSIX_MEMALIGN, C_ALIGNED_ALLOC, C_MEMALIGN, C_VALLOC, C_PVALLOC, C_NEW, C_FREE, C_DELETE, C_N };
static const char *const names[C_N] = {
	"allocs", "frees", "failed", "reallocs", "malloc", "calloc", "realloc", "reallocarray",
	"posix_memalign", "aligned_alloc", "memalign", "valloc", "pvalloc", "new", "free", "delete",
};
static unsigned long long counts[C_N];
#define TLS __thread __attribute__((tls_model("initial-exec")))
/* Block events counted on this thread: a call that sees it unchanged
 * after forwarding reached none of the functions here, and counts its
 * block itself. */
static TLS unsigned long seen;

static void add(int c) { __atomic_fetch_add(&counts[c], 1, __ATOMIC_RELAXED); }
static void alloc_event(const void *p)
{
	add(p ? C_ALLOCS : C_FAILED);
	seen++;
}
static void free_event(void)
{
	add(C_FREES);
	seen++;
}

/* ---- the static buffer for calls made while dlsym runs -------------------- */
static char buf[1 << 14] __attribute__((aligned(64)));
static size_t buf_used;
static TLS int resolving;

static void *buf_alloc(size_t n, size_t al)
{
	if (al < 16)
		al = 16;
	for (;;) {
		size_t old = __atomic_load_n(&buf_used, __ATOMIC_RELAXED);
		size_t start = (old + al - 1) & ~(al - 1);
		if (start + n > sizeof(buf) || start + n < start)
			return NULL;
		if (__atomic_compare_exchange_n(&buf_used, &old, start + n, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return buf + start;   /* static: already zero */
	}
}
static int in_buf(const void *p) { return (const char *)p >= buf && (const char *)p < buf + sizeof(buf); }

static void *next(const char *name)
{
	resolving++;
	void *f = dlsym(RTLD_NEXT, name);
	resolving--;
	return f;
}
#define REAL(var, name)                                                   \
	(__atomic_load_n(&var, __ATOMIC_ACQUIRE) ? var :                  \
	 (__atomic_store_n(&var, (__typeof(var))next(name), __ATOMIC_RELEASE), var))

static void *(*r_malloc)(size_t);
static void *(*r_calloc)(size_t, size_t);
static void *(*r_realloc)(void *, size_t);
static void *(*r_reallocarray)(void *, size_t, size_t);
static int (*r_posix_memalign)(void **, size_t, size_t);
static void *(*r_aligned_alloc)(size_t, size_t);
static void *(*r_memalign)(size_t, size_t);
static void *(*r_valloc)(size_t);
static void *(*r_pvalloc)(size_t);
static void (*r_free)(void *);

/* ALLOC(which, call): counts a call to `which`, forwards, and counts the
 * block unless a function here already did. */
#define ALLOC(which, call)                                                \
	({                                                                \
		add(which);                                               \
		unsigned long s0_ = seen;                                 \
		void *p_ = (call);                                        \
		if (seen == s0_)                                          \
			alloc_event(p_);                                  \
		p_;                                                       \
	})

void *malloc(size_t n)
{
	if (resolving)
		return buf_alloc(n, 16);
	return ALLOC(C_MALLOC, REAL(r_malloc, "malloc")(n));
}

void *calloc(size_t n, size_t m)
{
	if (resolving) {
		size_t t;
		return __builtin_mul_overflow(n, m, &t) ? NULL : buf_alloc(t, 16);
	}
	return ALLOC(C_CALLOC, REAL(r_calloc, "calloc")(n, m));
}

void free(void *p)
{
	if (!p || in_buf(p))
		return;
	add(C_FREE);
	unsigned long s0 = seen;
	REAL(r_free, "free")(p);
	if (seen == s0)
		free_event();
}

/* realloc of a block from the static buffer (never handed to the program:
 * only dlsym's own calls get them): a fresh malloc, copied. */
static void *from_buf(void *p, size_t n)
{
	void *q = malloc(n);
	if (q) {
		size_t have = (size_t)(buf + sizeof(buf) - (char *)p);
		memcpy(q, p, have < n ? have : n);
	}
	return q;
}

/* realloc_events P N Q: the blocks of realloc(P, N) that returned Q. */
static void realloc_events(const void *p, size_t n, const void *q)
{
	if (q) {
		alloc_event(q);
		add(C_REALLOCS);
		if (p)
			free_event();
	} else if (p && n == 0) {
		free_event();      /* glibc: realloc(p, 0) frees p, returns NULL */
	} else {
		alloc_event(NULL); /* failed: p, if any, is still the caller's */
	}
}

void *realloc(void *p, size_t n)
{
	if (resolving)
		return buf_alloc(n, 16);
	if (p && in_buf(p))
		return from_buf(p, n);
	add(C_REALLOC);
	unsigned long s0 = seen;
	void *q = REAL(r_realloc, "realloc")(p, n);
	if (seen == s0)
		realloc_events(p, n, q);
	return q;
}

void *reallocarray(void *p, size_t n, size_t m)
{
	size_t t;
	int over = __builtin_mul_overflow(n, m, &t);
	if (resolving)
		return over ? NULL : buf_alloc(t, 16);
	if (p && in_buf(p))
		return over ? NULL : from_buf(p, t);
	add(C_REALLOCARRAY);
	unsigned long s0 = seen;
	void *q = REAL(r_reallocarray, "reallocarray")(p, n, m);
	if (seen == s0)
		realloc_events(p, over ? 1 : t, q);   /* overflow: NULL, p untouched */
	return q;
}

int posix_memalign(void **out, size_t al, size_t n)
{
	if (resolving) {
		*out = buf_alloc(n, al);
		return *out ? 0 : ENOMEM;
	}
	add(C_POSIX_MEMALIGN);
	unsigned long s0 = seen;
	int rc = REAL(r_posix_memalign, "posix_memalign")(out, al, n);
	if (seen == s0)
		alloc_event(rc ? NULL : *out);
	return rc;
}

void *aligned_alloc(size_t al, size_t n)
{
	if (resolving)
		return buf_alloc(n, al);
	return ALLOC(C_ALIGNED_ALLOC, REAL(r_aligned_alloc, "aligned_alloc")(al, n));
}

void *memalign(size_t al, size_t n)
{
	if (resolving)
		return buf_alloc(n, al);
	return ALLOC(C_MEMALIGN, REAL(r_memalign, "memalign")(al, n));
}

void *valloc(size_t n)
{
	if (resolving)
		return buf_alloc(n, 4096);
	return ALLOC(C_VALLOC, REAL(r_valloc, "valloc")(n));
}

void *pvalloc(size_t n)
{
	if (resolving)
		return buf_alloc((n + 4095) & ~(size_t)4095, 4096);
	return ALLOC(C_PVALLOC, REAL(r_pvalloc, "pvalloc")(n));
}

/* ---- C++ operators (Itanium mangled names; size_t is unsigned long) ------- */
/* A throwing operator new that throws counts nothing here (the block it
 * failed to get and the exception it allocated were counted below it); the
 * exception unwinds through these frames with the .eh_frame gcc emits for
 * C on x86_64.  With no next definition (libstdc++ loaded RTLD_LOCAL
 * behind a plugin), malloc (aligned_alloc for the aligned forms) and free
 * serve instead. */
typedef void *(*new_fn)(size_t);
typedef void *(*new_al_fn)(size_t, size_t);
typedef void *(*new_nt_fn)(size_t, const void *);
typedef void *(*new_al_nt_fn)(size_t, size_t, const void *);
typedef void (*del_fn)(void *);
typedef void (*del_sz_fn)(void *, size_t);
typedef void (*del_al_fn)(void *, size_t);
typedef void (*del_sz_al_fn)(void *, size_t, size_t);
typedef void (*del_nt_fn)(void *, const void *);
typedef void (*del_al_nt_fn)(void *, size_t, const void *);

#define NEW(mangled, type, args, call, fallback)                          \
	void *mangled args;                                               \
	void *mangled args                                                \
	{                                                                 \
		static type r;                                            \
		type f = REAL(r, #mangled);                               \
		return ALLOC(C_NEW, f ? f call : (fallback));             \
	}
#define DELETE(mangled, type, args, call)                                 \
	void mangled args;                                                \
	void mangled args                                                 \
	{                                                                 \
		static type r;                                            \
		type f = REAL(r, #mangled);                               \
		if (!p)                                                   \
			return;                                           \
		add(C_DELETE);                                            \
		unsigned long s0 = seen;                                  \
		if (f)                                                    \
			f call;                                           \
		else                                                      \
			REAL(r_free, "free")(p);                          \
		if (seen == s0)                                           \
			free_event();                                     \
	}

#define PLAIN REAL(r_malloc, "malloc")(n)
#define ALIGNED REAL(r_aligned_alloc, "aligned_alloc")(al, (n + al - 1) / al * al)
NEW(_Znwm, new_fn, (size_t n), (n), PLAIN)
NEW(_Znam, new_fn, (size_t n), (n), PLAIN)
NEW(_ZnwmSt11align_val_t, new_al_fn, (size_t n, size_t al), (n, al), ALIGNED)
NEW(_ZnamSt11align_val_t, new_al_fn, (size_t n, size_t al), (n, al), ALIGNED)
NEW(_ZnwmRKSt9nothrow_t, new_nt_fn, (size_t n, const void *nt), (n, nt), PLAIN)
NEW(_ZnamRKSt9nothrow_t, new_nt_fn, (size_t n, const void *nt), (n, nt), PLAIN)
NEW(_ZnwmSt11align_val_tRKSt9nothrow_t, new_al_nt_fn, (size_t n, size_t al, const void *nt), (n, al, nt), ALIGNED)
NEW(_ZnamSt11align_val_tRKSt9nothrow_t, new_al_nt_fn, (size_t n, size_t al, const void *nt), (n, al, nt), ALIGNED)
DELETE(_ZdlPv, del_fn, (void *p), (p))
DELETE(_ZdaPv, del_fn, (void *p), (p))
DELETE(_ZdlPvm, del_sz_fn, (void *p, size_t n), (p, n))
DELETE(_ZdaPvm, del_sz_fn, (void *p, size_t n), (p, n))
DELETE(_ZdlPvSt11align_val_t, del_al_fn, (void *p, size_t al), (p, al))
DELETE(_ZdaPvSt11align_val_t, del_al_fn, (void *p, size_t al), (p, al))
DELETE(_ZdlPvmSt11align_val_t, del_sz_al_fn, (void *p, size_t n, size_t al), (p, n, al))
DELETE(_ZdaPvmSt11align_val_t, del_sz_al_fn, (void *p, size_t n, size_t al), (p, n, al))
DELETE(_ZdlPvRKSt9nothrow_t, del_nt_fn, (void *p, const void *nt), (p, nt))
DELETE(_ZdaPvRKSt9nothrow_t, del_nt_fn, (void *p, const void *nt), (p, nt))
DELETE(_ZdlPvSt11align_val_tRKSt9nothrow_t, del_al_nt_fn, (void *p, size_t al, const void *nt), (p, al, nt))
DELETE(_ZdaPvSt11align_val_tRKSt9nothrow_t, del_al_nt_fn, (void *p, size_t al, const void *nt), (p, al, nt))

/* ---- the report ------------------------------------------------------------ */
__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("COUNT_ALLOCS_OUT");
	if (!path || !*path)
		return;
	char line[1024];
	size_t len = 0;
	for (int i = 0; i < C_N; i++) {
		int k = snprintf(line + len, sizeof(line) - len, "%s%s %llu", i ? " " : "", names[i],
				 __atomic_load_n(&counts[i], __ATOMIC_RELAXED));
		if (k < 0 || (size_t)k >= sizeof(line) - len - 1)
			return;
		len += (size_t)k;
	}
	line[len++] = '\n';
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, len) < 0) {
		/* nothing to do: the test sees no figures */
	}
	close(fd);
}
