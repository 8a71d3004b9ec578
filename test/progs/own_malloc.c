/* own_malloc.c - an executable that defines and exports (-rdynamic) its own
 * malloc over a static je_-prefixed jemalloc (test/tools/je_prefixed.sh),
 * as skynet does: malloc puts a 16-byte header before each block (je_malloc
 * of n + 16, p + 16 returned), free gives p - 16 to je_free.
 *
 *   own_malloc run [ROUNDS]  four producer threads make blocks in make_block
 *                            (the program's malloc of 0 to 199 bytes, or
 *                            je_realloc directly, grown once) and push them
 *                            on a shared queue;
 *                            two consumers pop them and free them (free, or
 *                            je_free), keeping every 7th; then it prints
 *                            "held OBJECTS BYTES" (what make_block made
 *                            that is still held) and returns from main
 *   own_malloc wait          prints "ready", sleeps until a signal kills it
 * Built with -DPASS, malloc hands on je_malloc's blocks with no header, and
 * the consumers free je_realloc's blocks with free, malloc's with je_free.
 * Blocks are checked: a wrong one prints CORRUPT and exits 3. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *je_malloc(size_t n);
void *je_realloc(void *p, size_t n);
void je_free(void *p);

#ifdef PASS   /* malloc hands je_malloc's blocks on as they are: each family frees the other's */
#define HDR 0
#define FREE_JE free
#define FREE_MALLOC je_free
#else
#define HDR 16
#define FREE_JE je_free
#define FREE_MALLOC free
#endif

__attribute__((noinline)) void *malloc(size_t n)
{
	char *p = je_malloc(n + HDR);
	return p ? p + HDR : NULL;
}

__attribute__((noinline)) void free(void *p)
{
	if (p)
		je_free((char *)p - HDR);
}

void *calloc(size_t n, size_t m)
{
	if (m && n > (size_t)-1 / m)
		return NULL;
	char *p = malloc(n * m);
	if (p)
		memset(p, 0, n * m);
	return p;
}

void *realloc(void *p, size_t n)
{
	if (!p)
		return malloc(n);
	char *q = je_realloc((char *)p - HDR, n + HDR);
	return q ? q + HDR : NULL;
}

/* Not expected: nothing here asks for aligned blocks. */
void *memalign(size_t al, size_t n) { (void)al, (void)n; abort(); }
void *aligned_alloc(size_t al, size_t n) { (void)al, (void)n; abort(); }
int posix_memalign(void **out, size_t al, size_t n) { (void)out, (void)al, (void)n; abort(); }

typedef struct blk {
	unsigned char *p;
	size_t n;
	int je;
} blk;

#define QCAP 64
static blk q[QCAP];
static int qhead, qn, producers = 4;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static blk held[1 << 16];
static size_t nheld, held_bytes;
static long rounds = 20000;

__attribute__((noinline)) static blk make_block(unsigned i)
{
	blk b = { NULL, i % 200, (int)(i & 1) };
	if (b.je) {   /* 8 bytes and more: je_realloc(p, 0) would free it */
		b.n += 8;
		b.p = je_realloc(NULL, b.n / 2);
		b.p = je_realloc(b.p, b.n);
	} else {      /* malloc(0) too: its pointer is where a 16-byte je block may start */
		b.p = malloc(b.n);
	}
	if (b.p)
		memset(b.p, (int)(b.n & 255), b.n);
	return b;
}

static void *produce(void *arg)
{
	unsigned seed = (unsigned)(size_t)arg;
	for (long i = 0; i < rounds; i++) {
		blk b = make_block(seed + (unsigned)i * 7);
		pthread_mutex_lock(&mu);
		while (qn == QCAP)
			pthread_cond_wait(&cv, &mu);
		q[(qhead + qn++) % QCAP] = b;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	pthread_mutex_lock(&mu);
	producers--;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *consume(void *arg)
{
	(void)arg;
	for (unsigned k = 0;; k++) {
		pthread_mutex_lock(&mu);
		while (!qn && producers)
			pthread_cond_wait(&cv, &mu);
		if (!qn) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		blk b = q[qhead];
		qhead = (qhead + 1) % QCAP;
		qn--;
		pthread_cond_broadcast(&cv);
		int keep = k % 7 == 0 && nheld < sizeof(held) / sizeof(held[0]);
		if (keep) {
			held[nheld++] = b;
			held_bytes += b.n;
		}
		pthread_mutex_unlock(&mu);
		for (size_t j = 0; j < b.n; j++)
			if (b.p[j] != (unsigned char)(b.n & 255)) {
				fprintf(stderr, "CORRUPT\n");
				exit(3);
			}
		if (!keep)
			b.je ? FREE_JE(b.p) : FREE_MALLOC(b.p);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "wait")) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (argc > 2)
		rounds = atol(argv[2]);
	pthread_t t[6];
	for (long i = 0; i < 6; i++)
		pthread_create(&t[i], NULL, i < 4 ? produce : consume, (void *)(i * 1000));
	for (int i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	printf("held %zu %zu\n", nheld, held_bytes);
	return 0;
}
