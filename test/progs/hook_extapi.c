/* hook_extapi.c - calls an allocator's own API directly: jemalloc's
 * *allocx (built with -DJE, linked with -ljemalloc) or tcmalloc's tc_*
 * (-DTC, -ltcmalloc_minimal).  Known leaks, in use at exit:
 *   JE: leak_mallocx 4 x 100 B; leak_rallocx 1 x 300 B (mallocx 50, rallocx
 *       to 300); leak_xallocx 1 x 100 B (mallocx 200, shrunk in place by
 *       xallocx to 100); no_leak frees with sdallocx, dallocx and free.
 *   TC: leak_tc 2 x 100 B (tc_malloc) + 1 x 100 B (tc_calloc 10 x 10) +
 *       1 x 128 B (tc_memalign) + 1 x 64 B (tc_posix_memalign) + 1 x 200 B
 *       (tc_realloc of a tc_malloc'd 10 B) + 1 x 48 B (tc_new) +
 *       1 x 80 B (tc_newarray) = 8 objects, 820 B; no_leak frees with
 *       tc_free, tc_delete, tc_deletearray, tc_free_sized, tc_cfree.
 * Every block is filled and checked before it is freed; exit 3 on a
 * mismatch, else 0.  With two file arguments it waits for the first to
 * appear before the work (an injection comes first), prints "done", and
 * waits for the second (at most 30 s) before it exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef JE
#include <jemalloc/jemalloc.h>
#endif
#ifdef TC
#include <gperftools/tcmalloc.h>
/* Declared by the header for C++ only; defined with C linkage. */
void *tc_new(size_t size);
void *tc_newarray(size_t size);
void tc_delete(void *p);
void tc_deletearray(void *p);
#endif

static void *keep[16];
static int nkeep;

static void fill(void *p, size_t n, int c)
{
	memset(p, c, n);
}

static void check(const void *p, size_t n, int c)
{
	for (size_t i = 0; i < n; i++)
		if (((const unsigned char *)p)[i] != (unsigned char)c) {
			fprintf(stderr, "hook_extapi: CORRUPT block %p at %zu\n", p, i);
			exit(3);
		}
}

static void hold(void *p)
{
	if (!p)
		abort();
	keep[nkeep++] = p;
}

#ifdef JE
__attribute__((noinline)) void leak_mallocx(void)
{
	for (int i = 0; i < 4; i++) {
		void *p = mallocx(100, 0);
		fill(p, 100, 'a');
		hold(p);
	}
}

__attribute__((noinline)) void leak_rallocx(void)
{
	void *p = mallocx(50, 0);
	fill(p, 50, 'r');
	p = rallocx(p, 300, 0);
	check(p, 50, 'r');
	hold(p);
}

__attribute__((noinline)) void leak_xallocx(void)
{
	void *p = mallocx(200, 0);
	fill(p, 200, 'x');
	size_t got = xallocx(p, 100, 0, 0);
	if (got < 100)
		abort();
	check(p, 100, 'x');
	hold(p);
}

__attribute__((noinline)) void no_leak(void)
{
	void *a = mallocx(1000, 0), *b = mallocx(2000, MALLOCX_ZERO), *c = mallocx(3000, 0);
	check(b, 2000, 0);
	fill(a, 1000, 1);
	fill(c, 3000, 3);
	check(a, 1000, 1);
	sdallocx(a, 1000, 0);
	dallocx(b, 0);
	check(c, 3000, 3);
	free(c);
}

static void work(void)
{
	leak_mallocx();
	leak_rallocx();
	leak_xallocx();
	no_leak();
}
#endif

#ifdef TC
__attribute__((noinline)) void leak_tc(void)
{
	void *p;
	hold(tc_malloc(100));
	hold(tc_malloc(100));
	hold(p = tc_calloc(10, 10));
	check(p, 100, 0);
	hold(tc_memalign(64, 128));
	if (tc_posix_memalign(&p, 64, 64))
		abort();
	hold(p);
	p = tc_malloc(10);
	fill(p, 10, 'q');
	p = tc_realloc(p, 200);
	check(p, 10, 'q');
	hold(p);
	hold(tc_new(48));
	hold(tc_newarray(80));
}

__attribute__((noinline)) void no_leak(void)
{
	void *a = tc_malloc(1000), *b = tc_new(2000), *c = tc_newarray(3000), *d = tc_malloc(400), *e = tc_malloc(500);
	fill(a, 1000, 1);
	fill(b, 2000, 2);
	fill(c, 3000, 3);
	check(a, 1000, 1);
	tc_free(a);
	check(b, 2000, 2);
	tc_delete(b);
	check(c, 3000, 3);
	tc_deletearray(c);
	tc_free_sized(d, 400);
	tc_cfree(e);
}

static void work(void)
{
	leak_tc();
	no_leak();
}
#endif

static void wait_for(const char *path, int secs)
{
	for (int i = 0; i < secs * 100 && access(path, F_OK); i++)
		usleep(10000);
}

int main(int argc, char **argv)
{
	if (argc > 2) {
		printf("%d\n", (int)getpid());
		fflush(stdout);
		wait_for(argv[1], 30);
	}
	work();
	printf("done\n");
	fflush(stdout);
	if (argc > 2)
		wait_for(argv[2], 30);
	return nkeep ? 0 : 1;
}
