/* alloc_check.c - a target that proves the profiler never corrupts the
 * program it watches (test/integration/real_allocators.sh).  Every block it
 * allocates is filled with a pattern derived from its address and size; the
 * pattern is checked right before the block is freed or resized and, at the
 * end, in every block still held.  A realloc'd block must still hold the
 * old block's pattern in its first min(old, new) bytes.  Also checked:
 * calloc'd memory is zero, aligned allocations are aligned, and
 * malloc_usable_size is at least the size asked for.  Any mismatch prints
 * "alloc_check: CORRUPT ..." on stderr and exits with 3.
 *
 * argv: MODE [SECONDS [STOPFILE]]  (SECONDS: 10 when left out)
 *   exact  a fixed set of allocations (all freed again, in exact_churn) and
 *          the leaks below, then exit; SECONDS is ignored.
 *   run    3 threads churn (churn_step: a ring of 256 live blocks each,
 *          replaced in random order, and a slow ring of 64 replaced one per
 *          128 steps, so blocks live across an injection and a detach) with
 *          malloc, calloc, realloc (grow and shrink), posix_memalign,
 *          aligned_alloc, memalign, realloc(NULL, n); one thread leaks
 *          1000 B every 10 ms in leak_fn (catching up after a late wake-up:
 *          100,000 B/s, at most 8192 blocks); until SECONDS have passed or
 *          STOPFILE exists.
 * stdout: the pid first (flushed), "alloc_check: ok" last; exit status 0.
 * Out of memory: exit status 1; bad arguments: 2.
 *
 * exact mode's leaks, in use at exit (everything else is freed):
 *   leak_malloc          10 x malloc(100)                     1000 B, 10 objects
 *   leak_calloc           5 x calloc(6, 8)                      240 B,  5 objects
 *   leak_realloc          malloc(64) grown to 500, then 3000;
 *                         malloc(5000) shrunk to 1000         4000 B,  2 objects
 *   leak_memalign         2 x memalign(64, 200)                 400 B,  2 objects
 *   leak_posix_memalign   3 x posix_memalign(32, 96)            288 B,  3 objects
 *   leak_aligned_alloc    2 x aligned_alloc(128, 256)           512 B,  2 objects
 *   all six                                                    6440 B, 24 objects
 * Each leak function is noinline and calls the allocator directly, never
 * in tail position: the leak is that function's flat. */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alloc_pattern.h"

#define NOINLINE __attribute__((noinline))

/* ---- the pattern ------------------------------------------------------------ */

static void fill(void *p, size_t n)
{
	pattern_fill(p, n, pattern_seed((uintptr_t)p, n));
}

static void fail(const char *what, const void *p, size_t n, const char *detail)
{
	fflush(stdout);
	fprintf(stderr, "alloc_check: CORRUPT %s: block %p of %zu bytes: %s\n", what, p, n, detail);
	_exit(3);
}

static void oom(size_t n)
{
	fflush(stdout);
	fprintf(stderr, "alloc_check: out of memory allocating %zu bytes\n", n);
	_exit(1);
}

/* Checks the first len bytes of p against the pattern seeded with seed
 * (the pattern of the block that was at addr with size n). */
static void check_seed(const unsigned char *p, size_t len, uint64_t seed, const char *what, size_t n)
{
	size_t j = 0;
	for (; j * 8 < len; j++) {
		uint64_t w = pattern_word(seed, j);
		size_t k = len - j * 8 < 8 ? len - j * 8 : 8;
		if (memcmp(p + j * 8, &w, k)) {
			for (size_t b = 0; b < k; b++) {
				unsigned char want = ((const unsigned char *)&w)[b];
				if (p[j * 8 + b] != want) {
					char d[128];
					snprintf(d, sizeof(d), "byte %zu is 0x%02x, want 0x%02x", j * 8 + b,
						 p[j * 8 + b], want);
					fail(what, p, n, d);
				}
			}
		}
	}
}

static void check(const void *p, size_t n, const char *what)
{
	check_seed(p, n, pattern_seed((uintptr_t)p, n), what, n);
}

/* What every fresh block must satisfy. */
static void check_new(void *p, size_t n, size_t align, const char *what)
{
	if (!p)
		oom(n);
	if (align && (uintptr_t)p % align) {
		char d[64];
		snprintf(d, sizeof(d), "not aligned to %zu", align);
		fail(what, p, n, d);
	}
	size_t u = malloc_usable_size(p);
	if (u < n) {
		char d[64];
		snprintf(d, sizeof(d), "malloc_usable_size says %zu", u);
		fail(what, p, n, d);
	}
}

static void check_zero(const unsigned char *p, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (p[i]) {
			char d[64];
			snprintf(d, sizeof(d), "calloc'd byte %zu is 0x%02x", i, p[i]);
			fail(what, p, n, d);
		}
}

/* Around a realloc of p (n bytes, holding its pattern) to m bytes: the
 * block is checked before; after, the surviving prefix is the old pattern,
 * and the new block gets its own.  pre_resize returns the old seed. */
static uint64_t pre_resize(void *p, size_t n, const char *what)
{
	check(p, n, what);
	return pattern_seed((uintptr_t)p, n);
}

static void post_resize(void *q, size_t n, size_t m, uint64_t old_seed, const char *what)
{
	check_new(q, m, 0, what);
	check_seed(q, n < m ? n : m, old_seed, "realloc lost the old content", m);
	fill(q, m);
}

static void *resize(void *p, size_t n, size_t m, const char *what)
{
	uint64_t s = pre_resize(p, n, what);
	void *q = realloc(p, m);
	post_resize(q, n, m, s, what);
	return q;
}

static void release(void *p, size_t n, const char *what)
{
	check(p, n, what);
	free(p);
}

/* ---- exact mode ------------------------------------------------------------- */

typedef struct held {
	void *p;
	size_t n;
} held;

static held kept[64];
static int nkept;

static void keep(void *p, size_t n)
{
	kept[nkept].p = p;
	kept[nkept].n = n;
	nkept++;
}

NOINLINE void leak_malloc(void)
{
	for (int i = 0; i < 10; i++) {
		void *p = malloc(100);
		check_new(p, 100, 0, "malloc");
		fill(p, 100);
		keep(p, 100);
	}
}

NOINLINE void leak_calloc(void)
{
	for (int i = 0; i < 5; i++) {
		void *p = calloc(6, 8);
		check_new(p, 48, 0, "calloc");
		check_zero(p, 48, "calloc");
		fill(p, 48);
		keep(p, 48);
	}
}

NOINLINE void leak_realloc(void)
{
	/* realloc is called here, not in a helper: the leak is this flat. */
	void *p = malloc(64);
	check_new(p, 64, 0, "malloc");
	fill(p, 64);
	uint64_t s = pre_resize(p, 64, "realloc grow");
	void *q = realloc(p, 500);
	post_resize(q, 64, 500, s, "realloc grow");
	s = pre_resize(q, 500, "realloc grow");
	p = realloc(q, 3000);
	post_resize(p, 500, 3000, s, "realloc grow");
	keep(p, 3000);
	p = malloc(5000);
	check_new(p, 5000, 0, "malloc");
	fill(p, 5000);
	s = pre_resize(p, 5000, "realloc shrink");
	q = realloc(p, 1000);
	post_resize(q, 5000, 1000, s, "realloc shrink");
	keep(q, 1000);
}

NOINLINE void leak_memalign(void)
{
	for (int i = 0; i < 2; i++) {
		void *p = memalign(64, 200);
		check_new(p, 200, 64, "memalign");
		fill(p, 200);
		keep(p, 200);
	}
}

NOINLINE void leak_posix_memalign(void)
{
	for (int i = 0; i < 3; i++) {
		void *p = NULL;
		int rc = posix_memalign(&p, 32, 96);
		if (rc)
			oom(96);
		check_new(p, 96, 32, "posix_memalign");
		fill(p, 96);
		keep(p, 96);
	}
}

NOINLINE void leak_aligned_alloc(void)
{
	for (int i = 0; i < 2; i++) {
		void *p = aligned_alloc(128, 256);
		check_new(p, 256, 128, "aligned_alloc");
		fill(p, 256);
		keep(p, 256);
	}
}

/* Every function once, a few hundred blocks live at a time, all freed. */
NOINLINE void exact_churn(void)
{
	static held b[300];
	for (int i = 0; i < 300; i++) {
		size_t n = 1 + (size_t)(i * 37 % 3000);
		void *p = NULL;
		switch (i % 7) {
		case 0: p = malloc(n); check_new(p, n, 0, "malloc"); break;
		case 1: p = calloc(n, 1); check_new(p, n, 0, "calloc"); check_zero(p, n, "calloc"); break;
		case 2: p = realloc(NULL, n); check_new(p, n, 0, "realloc(NULL)"); break;
		case 3:
			if (posix_memalign(&p, 64, n))
				oom(n);
			check_new(p, n, 64, "posix_memalign");
			break;
		case 4: n = (n + 255) / 256 * 256; p = aligned_alloc(256, n); check_new(p, n, 256, "aligned_alloc"); break;
		case 5: p = memalign(32, n); check_new(p, n, 32, "memalign"); break;
		default: p = malloc(200000 + n); n += 200000; check_new(p, n, 0, "malloc (large)"); break;
		}
		fill(p, n);
		b[i].p = p;
		b[i].n = n;
	}
	/* Grow and shrink every third block; free in another order. */
	for (int i = 0; i < 300; i += 3) {
		size_t m = i % 2 ? b[i].n * 3 + 17 : b[i].n / 2 + 1;
		b[i].p = resize(b[i].p, b[i].n, m, i % 2 ? "realloc grow" : "realloc shrink");
		b[i].n = m;
	}
	for (int i = 0; i < 300; i++) {
		int k = (i * 7) % 300;   /* 7 and 300 are coprime: each block once */
		release(b[k].p, b[k].n, "free");
		b[k].p = NULL;
	}
}

static int run_exact(void)
{
	exact_churn();
	leak_malloc();
	leak_calloc();
	leak_realloc();
	leak_memalign();
	leak_posix_memalign();
	leak_aligned_alloc();
	exact_churn();
	size_t bytes = 0;
	for (int i = 0; i < nkept; i++) {
		check(kept[i].p, kept[i].n, "held at exit");
		bytes += kept[i].n;
	}
	printf("alloc_check: exact: %zu bytes in %d blocks held by 6 leak functions\n", bytes, nkept);
	return 0;
}

/* ---- run mode ------------------------------------------------------------ */

#define RING 256
#define SLOW 64
#define LEAK_SIZE 1000
#define LEAK_MAX 8192

static atomic_int stop;
static void *leaks[LEAK_MAX];
static long nleaks;

typedef struct worker {
	uint64_t rng;
	unsigned long ops;
	held ring[RING];
	held slow[SLOW];
	pthread_t thread;
} worker;

static uint64_t rnd(worker *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static size_t rnd_size(worker *w)
{
	uint64_t r = rnd(w);
	if (r % 512 == 0)
		return 131072 + (size_t)(r >> 20) % 200000;   /* past glibc's mmap threshold */
	if (r % 16 == 0)
		return 1 + (size_t)(r >> 20) % 65536;
	return 1 + (size_t)(r >> 20) % 2048;
}

static void block_new(worker *w, held *b)
{
	size_t n = rnd_size(w);
	void *p = NULL;
	switch (rnd(w) % 6) {
	case 0: p = malloc(n); check_new(p, n, 0, "malloc"); break;
	case 1: {
		size_t k = 1 + n / 64;
		n = k * 64;
		p = calloc(k, 64);
		check_new(p, n, 0, "calloc");
		check_zero(p, n, "calloc");
		break;
	}
	case 2: p = realloc(NULL, n); check_new(p, n, 0, "realloc(NULL)"); break;
	case 3: {
		size_t al = (size_t)16 << (rnd(w) % 6);   /* 16 .. 512 */
		if (posix_memalign(&p, al, n))
			oom(n);
		check_new(p, n, al, "posix_memalign");
		break;
	}
	case 4: {
		size_t al = (size_t)8 << (rnd(w) % 7);    /* 8 .. 512 */
		n = (n + al - 1) / al * al;
		p = aligned_alloc(al, n);
		check_new(p, n, al, "aligned_alloc");
		break;
	}
	default: {
		size_t al = (size_t)16 << (rnd(w) % 8);   /* 16 .. 2048 */
		p = memalign(al, n);
		check_new(p, n, al, "memalign");
		break;
	}
	}
	fill(p, n);
	b->p = p;
	b->n = n;
}

/* Replaces (or resizes) one block. */
static void block_step(worker *w, held *b)
{
	if (b->p && rnd(w) % 4 == 0) {
		size_t m = rnd(w) % 2 ? b->n + rnd_size(w) : 1 + b->n / 2;
		b->p = resize(b->p, b->n, m, m > b->n ? "realloc grow" : "realloc shrink");
		b->n = m;
		return;
	}
	if (b->p)
		release(b->p, b->n, "free");
	block_new(w, b);
}

NOINLINE void churn_step(worker *w)
{
	block_step(w, &w->ring[rnd(w) % RING]);
	if (++w->ops % 128 == 0)
		block_step(w, &w->slow[rnd(w) % SLOW]);
}

static void nap_us(long us)
{
	struct timespec ts = { 0, us * 1000 };
	nanosleep(&ts, NULL);
}

static void *churner(void *arg)
{
	worker *w = arg;
	while (!atomic_load(&stop)) {
		for (int i = 0; i < 64; i++)
			churn_step(w);
		nap_us(200);
	}
	for (int k = 0; k < RING; k++)
		if (w->ring[k].p)
			release(w->ring[k].p, w->ring[k].n, "free at the end");
	for (int k = 0; k < SLOW; k++)
		if (w->slow[k].p)
			release(w->slow[k].p, w->slow[k].n, "free at the end");
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

NOINLINE void leak_fn(void)
{
	void *p = malloc(LEAK_SIZE);
	check_new(p, LEAK_SIZE, 0, "malloc (leak)");
	fill(p, LEAK_SIZE);
	leaks[nleaks] = p;
	nleaks++;
}

static void *leaker(void *arg)
{
	double t0 = *(double *)arg;
	while (!atomic_load(&stop)) {
		long due = (long)((now_s() - t0) * 100);
		while (nleaks < due && nleaks < LEAK_MAX)
			leak_fn();
		nap_us(2000);
	}
	return NULL;
}

static int run_churn(double limit, const char *stop_file)
{
	static worker w[3];
	double t0 = now_s();
	pthread_t lt;
	if (pthread_create(&lt, NULL, leaker, &t0)) {
		fprintf(stderr, "alloc_check: cannot start a thread\n");
		return 1;
	}
	for (int i = 0; i < 3; i++) {
		w[i].rng = 0x2545f4914f6cdd1dULL * (uint64_t)(i + 1);
		if (pthread_create(&w[i].thread, NULL, churner, &w[i])) {
			fprintf(stderr, "alloc_check: cannot start a thread\n");
			_exit(1);
		}
	}
	while (now_s() - t0 < limit && !(stop_file && access(stop_file, F_OK) == 0))
		nap_us(5000);
	atomic_store(&stop, 1);
	pthread_join(lt, NULL);
	unsigned long ops = 0;
	for (int i = 0; i < 3; i++) {
		pthread_join(w[i].thread, NULL);
		ops += w[i].ops;
	}
	for (long i = 0; i < nleaks; i++)
		check(leaks[i], LEAK_SIZE, "leaked block at exit");
	printf("alloc_check: run: %lu churn steps, %ld blocks of %d B leaked\n", ops, nleaks, LEAK_SIZE);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "exact") && strcmp(argv[1], "run"))) {
		fprintf(stderr, "usage: alloc_check exact | run [SECONDS [STOPFILE]]\n");
		return 2;
	}
	printf("%d\n", (int)getpid());
	fflush(stdout);
	int rc = !strcmp(argv[1], "exact") ? run_exact()
					    : run_churn(argc > 2 ? atof(argv[2]) : 10, argc > 3 ? argv[3] : NULL);
	if (rc)
		return rc;
	printf("alloc_check: ok\n");
	return 0;
}
