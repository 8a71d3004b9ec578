/* hook_leaks.c - known leaks through each allocation function, each from
 * its own function, for test/integration/hook_*.sh.  Prints a fixed line
 * and exits 7: the hook must change neither. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

/* volatile: the compiler may drop a malloc whose result is never read. */
void *volatile keep[64];
static int nkeep;

NOINLINE void leak_malloc(void)     /* 10 x 100 B */
{
	for (int i = 0; i < 10; i++)
		keep[nkeep++] = malloc(100);
}

NOINLINE void leak_calloc(void)     /* 5 x 48 B */
{
	for (int i = 0; i < 5; i++)
		keep[nkeep++] = calloc(3, 16);
}

NOINLINE void leak_realloc(void)    /* 1 x 4096 B (grown from 8) */
{
	char *p = NULL;
	for (size_t n = 8; n <= 4096; n *= 2) {
		p = realloc(p, n);
		p[n - 1] = 1;
	}
	keep[nkeep++] = p;
}

NOINLINE void leak_posix_memalign(void)   /* 7 x 64 B */
{
	for (int i = 0; i < 7; i++) {
		void *p;
		if (posix_memalign(&p, 64, 64) == 0)
			keep[nkeep++] = p;
	}
}

NOINLINE void leak_aligned_alloc(void)    /* 3 x 256 B */
{
	for (int i = 0; i < 3; i++)
		keep[nkeep++] = aligned_alloc(128, 256);
}

NOINLINE void leak_memalign(void)   /* 2 x 200 B */
{
	for (int i = 0; i < 2; i++)
		keep[nkeep++] = memalign(32, 200);
}

NOINLINE void leak_reallocarray(void)     /* 1 x 120 B */
{
	keep[nkeep++] = reallocarray(NULL, 10, 12);
}

NOINLINE void no_leak(void)         /* 20 allocated, all freed */
{
	void *p[20];
	for (int i = 0; i < 20; i++)
		p[i] = malloc(1000 + i);
	for (int i = 0; i < 20; i++)
		free(p[i]);
	char *q = realloc(NULL, 10);
	q = realloc(q, 20);
	free(q);
	free(valloc(100));
	free(pvalloc(100));
}

int main(void)
{
	leak_malloc();
	leak_calloc();
	leak_realloc();
	leak_posix_memalign();
	leak_aligned_alloc();
	leak_memalign();
	leak_reallocarray();
	no_leak();
	printf("hook_leaks: %d blocks kept\n", nkeep);
	return 7;
}
