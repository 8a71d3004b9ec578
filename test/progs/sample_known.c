/* sample_known.c - known allocations for the sampling tests
 * (test/integration/hook_sample.sh).  Each function is noinline and calls
 * the allocator out of tail position: what it allocates is its flat.
 *
 * argv: [MODE]
 *   once (default) the phases below, then exit.
 *   wait           prints its pid, then for each line read on stdin: "r"
 *                  a phase with nothing kept, "k" a phase that keeps
 *                  mixed_site's and big_site's blocks, "f" frees those
 *                  (after one malloc, which takes a pending rate change),
 *                  "q" exits; after each it prints "done N" (the live
 *                  re-rating test).
 *
 * A phase, single-threaded unless said:
 *   mixed_site      1,000,000 x malloc(64) and 64 x malloc(256 KiB) from ONE
 *                   call site (one stack), all kept: 80,777,216 B, 1,000,064 objects
 *   big_site        200 x malloc(100,000), all kept: 20,000,000 B, 200 objects
 *   churn_site      2 threads x 300,000 x malloc(1000 + i % 2000), each freed
 *                   at once: in use 0
 *   churn_mix       per round i of 100,000: calloc(3, 100 + i % 300),
 *                   posix_memalign(64, 2048), aligned_alloc(256, 4096),
 *                   memalign(32, 300), malloc(16) realloc'd to 1 << (4 + i % 14)
 *                   then to 24 (small to big and back: sampled <-> unsampled),
 *                   all freed: 700,000 objects, in use 0
 * once: mixed_site's and big_site's blocks are kept (freed by the exit). */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")

static void **kept;
static size_t nkept;

static void keep(void *p)
{
	if (!p) {
		fprintf(stderr, "sample_known: out of memory\n");
		exit(1);
	}
	kept[nkept++] = p;
}

NOINLINE static void *mixed_site(size_t n)
{
	void *p = malloc(n);
	KEEP(p);
	return p;
}

NOINLINE static void *big_site(void)
{
	void *p = malloc(100000);
	KEEP(p);
	return p;
}

NOINLINE static void churn_site(size_t n)
{
	void *p = malloc(n);
	KEEP(p);
	*(volatile char *)p = 1;
	free(p);
}

NOINLINE static void churn_mix(unsigned i)
{
	void *a = calloc(3, 100 + i % 300), *b = NULL, *c, *d, *e;
	if (posix_memalign(&b, 64, 2048))
		b = NULL;
	c = aligned_alloc(256, 4096);
	d = memalign(32, 300);
	e = malloc(16);
	e = realloc(e, (size_t)1 << (4 + i % 14));
	e = realloc(e, 24);
	KEEP(a);
	KEEP(b);
	KEEP(c);
	KEEP(d);
	KEEP(e);
	free(a);
	free(b);
	free(c);
	free(d);
	free(e);
}

static void *churn_thread(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < 300000; i++)
		churn_site(1000 + i % 2000);
	return NULL;
}

static void phase(int keep_blocks)
{
	/* One call site (one stack) for both sizes: 64 big blocks spread over
	 * the small ones. */
	for (int i = 0; i < 1000064; i++) {
		void *p = mixed_site(i % 15626 ? 64 : 256 * 1024);
		if (keep_blocks)
			keep(p);
		else
			free(p);
	}
	for (int i = 0; i < 200; i++) {
		void *p = big_site();
		if (keep_blocks)
			keep(p);
		else
			free(p);
	}
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, churn_thread, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (unsigned i = 0; i < 100000; i++)
		churn_mix(i);
}

static void free_kept(void)
{
	void *p = malloc(1);   /* an allocation first: a rate change asked for while idle is taken */
	KEEP(p);
	free(p);
	while (nkept)
		free(kept[--nkept]);
}

int main(int argc, char **argv)
{
	static void *blocks[1000064 + 200];
	kept = blocks;
	if (argc < 2 || !strcmp(argv[1], "once")) {
		phase(1);
		return 0;
	}
	if (strcmp(argv[1], "wait")) {
		fprintf(stderr, "usage: sample_known [once|wait]\n");
		return 2;
	}
	printf("%d\n", (int)getpid());
	fflush(stdout);
	char line[64];
	for (int n = 1; fgets(line, sizeof(line), stdin) && line[0] != 'q'; n++) {
		if (line[0] == 'f')
			free_kept();
		else if (!nkept || line[0] != 'k')
			phase(line[0] == 'k');
		printf("done %d\n", n);
		fflush(stdout);
	}
	return 0;
}
