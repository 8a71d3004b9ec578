/* capmem.c - capstone without malloc: the hook's copy of capstone (linked
 * statically, its symbols hidden) gets its memory from one mmap'd arena
 * (CS_OPT_MEM), used only while entry points are patched and unmapped
 * after; its one qsort (the Intel printer's table sort, never reached in
 * AT&T syntax) is linked to a heapsort here (-Wl,--wrap=qsort), since
 * glibc's qsort may call malloc. */
#include "attach/hook/hook.h"

#include <capstone/capstone.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define CAPMEM_SIZE (4u << 20)

static char *arena;
static size_t used;

/* Each block is preceded by its size, for realloc. */
static void *cap_malloc(size_t n)
{
	size_t start = (used + 16 + 15) & ~(size_t)15;
	if (!arena || start + n > CAPMEM_SIZE || start + n < start)
		return NULL;
	memcpy(arena + start - sizeof(size_t), &n, sizeof(n));
	used = start + n;
	return arena + start;
}

static void *cap_calloc(size_t n, size_t m)
{
	size_t t;
	if (__builtin_mul_overflow(n, m, &t))
		return NULL;
	void *p = cap_malloc(t);
	if (p)
		memset(p, 0, t);
	return p;
}

static void *cap_realloc(void *p, size_t n)
{
	void *q = cap_malloc(n);
	if (q && p) {
		size_t old;
		memcpy(&old, (char *)p - sizeof(size_t), sizeof(old));
		memcpy(q, p, old < n ? old : n);
	}
	return q;
}

static void cap_free(void *p)
{
	(void)p;   /* the arena goes as a whole */
}

static int cap_vsnprintf(char *s, size_t n, const char *fmt, va_list ap)
{
	return vsnprintf(s, n, fmt, ap);
}

int capmem_begin(void)
{
	if (!arena && !(arena = hook_map(CAPMEM_SIZE)))
		return -1;
	used = 0;
	cs_opt_mem m = { cap_malloc, cap_calloc, cap_realloc, cap_free, cap_vsnprintf };
	return cs_option(0, CS_OPT_MEM, (size_t)&m) == CS_ERR_OK ? 0 : -1;
}

void capmem_end(void)
{
	hook_unmap(arena, CAPMEM_SIZE);
	arena = NULL;
	used = 0;
}

static void swap_bytes(char *a, char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char t = a[i];
		a[i] = b[i];
		b[i] = t;
	}
}

static void sift(char *base, size_t i, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && cmp(base + c * sz, base + (c + 1) * sz) < 0)
			c++;
		if (cmp(base + i * sz, base + c * sz) >= 0)
			return;
		swap_bytes(base + i * sz, base + c * sz, sz);
		i = c;
	}
}

/* What capstone's reference to qsort is linked to (-Wl,--wrap=qsort). */
void __wrap_qsort(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *));
void __wrap_qsort(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
	char *b = base;
	for (size_t i = n / 2; i-- > 0;)
		sift(b, i, n, sz, cmp);
	for (size_t k = n; k > 1; k--) {
		swap_bytes(b, b + (k - 1) * sz, sz);
		sift(b, 0, k - 1, sz, cmp);
	}
}

/* Capstone's other architectures are left out of libmprof.so: cs.o's
 * tables name each one's set-up and option functions, and these stubs
 * (which refuse) stand in for them, so the linker takes only x86's code. */
#define NO_ARCH(a)                                                                         \
	cs_err a##_global_init(void *ud);                                                      \
	cs_err a##_global_init(void *ud) { (void)ud; return CS_ERR_ARCH; }                     \
	cs_err a##_option(void *ud, cs_opt_type type, size_t value);                           \
	cs_err a##_option(void *ud, cs_opt_type type, size_t value)                            \
	{                                                                                      \
		(void)ud, (void)type, (void)value;                                             \
		return CS_ERR_ARCH;                                                            \
	}
NO_ARCH(ARM) NO_ARCH(AArch64) NO_ARCH(Mips) NO_ARCH(PPC) NO_ARCH(Sparc) NO_ARCH(SystemZ) NO_ARCH(XCore)
NO_ARCH(M68K) NO_ARCH(TMS320C64x) NO_ARCH(M680X) NO_ARCH(EVM)
