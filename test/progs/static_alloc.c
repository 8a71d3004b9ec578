/* static_alloc.c - a program whose allocator no symbol interposition
 * reaches, wrapped in its own functions (app_malloc, app_free, ...), as
 * skynet wraps its je_malloc.  Built one of three ways:
 *   -DJE  linked with a static jemalloc whose API is renamed je_*
 *         (test/tools/je_prefixed.sh), called as je_malloc, je_free, ...
 *   -DTC  linked with the static libtcmalloc_minimal.a: malloc is the
 *         executable's own, tc_* too
 *   -DUSER  app_malloc and friends over the system malloc, for MPROF_FUNCS
 *
 *   static_alloc exact          the leaks below, checked and freed, then the
 *                               leaks again (left in use), "static_alloc: ok"
 *   static_alloc run GO END     prints its pid; three threads allocate and
 *                               free through app_malloc/app_free (checking
 *                               every block) until END exists; after GO
 *                               the main thread makes the leaks, prints
 *                               "done", and once END exists checks and
 *                               frees everything and says "static_alloc: ok"
 *
 * The leaks (in use, bytes and objects, of one round; alloc in brackets):
 *   leak_alloc     10 x app_malloc(100)                  1000 10
 *   leak_calloc    5 x app_calloc(4, 12)                 240 5
 *   leak_realloc   2 x app_realloc(app_malloc(10), 2000) 4000 2   [4020 4]
 *   leak_direct    JE: 3 x je_posix_memalign(64, 96), 2 x je_mallocx(64)
 *                  288+128 = 416 5; TC: 3 x tc_posix_memalign(64, 96),
 *                  2 x tc_new(64) = 416 5; USER: nothing
 *   leak_sys       4 x malloc(33) (the system's, or TC's own)   132 4
 *   churn          1000 x app_malloc(i + 1), app_free    0 0      [500500 1000]
 * A corrupted block makes it print CORRUPT on stderr and exit 3. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(JE)
void *je_malloc(size_t n);
void *je_calloc(size_t n, size_t m);
void *je_realloc(void *p, size_t n);
void je_free(void *p);
int je_posix_memalign(void **out, size_t al, size_t n);
void *je_mallocx(size_t n, int flags);
void je_sdallocx(void *p, size_t n, int flags);
#define A_MALLOC je_malloc
#define A_CALLOC je_calloc
#define A_REALLOC je_realloc
#define A_FREE je_free
#elif defined(TC)
void *tc_malloc(size_t n);
void *tc_calloc(size_t n, size_t m);
void *tc_realloc(void *p, size_t n);
void tc_free(void *p);
int tc_posix_memalign(void **out, size_t al, size_t n);
void *tc_new(size_t n);
void tc_delete(void *p);
#define A_MALLOC tc_malloc
#define A_CALLOC tc_calloc
#define A_REALLOC tc_realloc
#define A_FREE tc_free
#else
#define A_MALLOC malloc
#define A_CALLOC calloc
#define A_REALLOC realloc
#define A_FREE free
#endif

#define KEEP 64
static void *kept[KEEP];
static int nkept;
static void *volatile sink;

__attribute__((noinline)) void *app_malloc(size_t n) { return A_MALLOC(n); }
__attribute__((noinline)) void *app_calloc(size_t n, size_t m) { return A_CALLOC(n, m); }
__attribute__((noinline)) void *app_realloc(void *p, size_t n) { return A_REALLOC(p, n); }
__attribute__((noinline)) void app_free(void *p) { A_FREE(p); }

static void corrupt(const char *what)
{
	fprintf(stderr, "CORRUPT: %s\n", what);
	exit(3);
}

static void keep(void *p, size_t n, int pattern)
{
	if (!p)
		corrupt("allocation failed");
	memset(p, pattern, n);
	if (nkept < KEEP)
		kept[nkept++] = p;
}

__attribute__((noinline)) void leak_alloc(void)
{
	for (int i = 0; i < 10; i++)
		keep(app_malloc(100), 100, 0x11);
}

__attribute__((noinline)) void leak_calloc(void)
{
	for (int i = 0; i < 5; i++) {
		unsigned char *p = app_calloc(4, 12);
		for (int k = 0; p && k < 48; k++)
			if (p[k])
				corrupt("calloc's block is not zeroed");
		keep(p, 48, 0x22);
	}
}

__attribute__((noinline)) void leak_realloc(void)
{
	for (int i = 0; i < 2; i++) {
		char *p = app_malloc(10);
		memset(p, 0x33, 10);
		p = app_realloc(p, 2000);
		if (p && p[9] != 0x33)
			corrupt("realloc lost the contents");
		keep(p, 2000, 0x33);
	}
}

__attribute__((noinline)) void leak_direct(void)
{
#if defined(JE) || defined(TC)
	for (int i = 0; i < 3; i++) {
		void *p = NULL;
#if defined(JE)
		int rc = je_posix_memalign(&p, 64, 96);
#else
		int rc = tc_posix_memalign(&p, 64, 96);
#endif
		if (rc || ((uintptr_t)p & 63))
			corrupt("posix_memalign");
		keep(p, 96, 0x44);
	}
	for (int i = 0; i < 2; i++)
#if defined(JE)
		keep(je_mallocx(64, 0), 64, 0x55);
#else
		keep(tc_new(64), 64, 0x55);
#endif
#endif
}

__attribute__((noinline)) void leak_sys(void)
{
	for (int i = 0; i < 4; i++)
		keep(malloc(33), 33, 0x66);
}

__attribute__((noinline)) void churn(void)
{
	for (int i = 0; i < 1000; i++) {
		unsigned char *p = app_malloc((size_t)i + 1);
		if (!p)
			corrupt("allocation failed");
		p[i] = (unsigned char)i;
		sink = p;
		if (p[i] != (unsigned char)i)
			corrupt("churn");
		app_free(p);
	}
}

static void leaks(void)
{
	leak_alloc();
	leak_calloc();
	leak_realloc();
	leak_direct();
	leak_sys();
	churn();
}

/* Checks the kept blocks' contents, then frees them the way they were made. */
static void check_and_free(void)
{
	static const struct { int n, size, pattern; } made[] = {
		{ 10, 100, 0x11 }, { 5, 48, 0x22 }, { 2, 2000, 0x33 },
#if defined(JE) || defined(TC)
		{ 3, 96, 0x44 }, { 2, 64, 0x55 },
#endif
		{ 4, 33, 0x66 },
	};
	int k = 0;
	for (size_t g = 0; g < sizeof(made) / sizeof(made[0]); g++)
		for (int i = 0; i < made[g].n; i++, k++) {
			const unsigned char *p = kept[k];
			for (int b = 0; b < made[g].size; b++)
				if (p[b] != made[g].pattern)
					corrupt("a kept block changed");
#if defined(JE)
			if (made[g].pattern == 0x55)
				je_sdallocx(kept[k], 64, 0);
			else
#elif defined(TC)
			if (made[g].pattern == 0x55)
				tc_delete(kept[k]);
			else
#endif
			if (made[g].pattern == 0x66)
				free(kept[k]);
			else
				app_free(kept[k]);
		}
}

static volatile int stop;

static void *worker(void *arg)
{
	unsigned char mark = (unsigned char)(uintptr_t)arg;
	uint64_t seed = (uintptr_t)arg;
	void *ring[32] = { 0 };
	size_t sizes[32] = { 0 };
	for (unsigned long i = 0; !stop; i++) {
		int k = (int)(i % 32);
		if (ring[k]) {
			const unsigned char *p = ring[k];
			for (size_t b = 0; b < sizes[k]; b++)
				if (p[b] != (unsigned char)(k + mark))
					corrupt("a worker's block changed");
			app_free(ring[k]);
		}
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		sizes[k] = 16 + (size_t)(seed >> 40) % 500;
		ring[k] = app_malloc(sizes[k]);
		if (!ring[k])
			corrupt("allocation failed");
		memset(ring[k], k + mark, sizes[k]);
	}
	for (int k = 0; k < 32; k++)
		if (ring[k])
			app_free(ring[k]);
	return NULL;
}

static void wait_for(const char *path)
{
	for (int i = 0; i < 60000 && access(path, F_OK); i++)
		usleep(1000);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "exact")) {
		leaks();
		check_and_free();
		leaks();   /* left in use at exit: what the dump shows */
		printf("static_alloc: ok\n");
		return 0;
	}
	if (argc != 4 || strcmp(argv[1], "run")) {
		fprintf(stderr, "usage: static_alloc exact | run GO END\n");
		return 2;
	}
	printf("%d\n", (int)getpid());
	fflush(stdout);
	pthread_t t[3];
	for (uintptr_t i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	wait_for(argv[2]);
	leaks();
	printf("done\n");
	fflush(stdout);
	wait_for(argv[3]);
	stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	check_and_free();
	printf("static_alloc: ok\n");
	return 0;
}
