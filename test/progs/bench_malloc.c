/* bench_malloc.c - the hook's benchmark: 2 threads, 1,000,000 malloc/free
 * each, sizes 16 B - 4 KiB, allocations made ~20 calls deep, a ring of
 * 10,000 live blocks per thread.  argv[1], if given: a file to wait for
 * first (test/bench/window.sh opens a heap window before the work). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define OPS 1000000
#define RING 10000
#define DEPTH 20

typedef struct ctx {
	void **ring;
	uint64_t rnd;
} ctx;

__attribute__((noinline)) static void op(ctx *c, int i)
{
	c->rnd = c->rnd * 6364136223846793005ULL + 1442695040888963407ULL;
	size_t n = 16 + (size_t)((c->rnd >> 33) % (4096 - 16 + 1));
	int k = i % RING;
	free(c->ring[k]);
	c->ring[k] = malloc(n);
	*(volatile char *)c->ring[k] = 1;
}

/* Recurses to DEPTH, then does a slice of the work; the call site varies a
 * little (by i % 4) so there are a few distinct stacks, as in real code. */
__attribute__((noinline)) static void deep(ctx *c, int d, int from, int to)
{
	if (d < DEPTH) {
		deep(c, d + 1, from, to);
		__asm__ volatile("" ::: "memory");   /* not a tail call */
		return;
	}
	for (int i = from; i < to; i++)
		op(c, i);
}

static void *worker(void *arg)
{
	ctx c = { .ring = calloc(RING, sizeof(void *)), .rnd = (uintptr_t)arg };
	for (int i = 0; i < OPS; i += 1000)
		deep(&c, (i / 1000) % 4, i, i + 1000);
	for (int k = 0; k < RING; k++)
		free(c.ring[k]);
	free(c.ring);
	return NULL;
}

int main(int argc, char **argv)
{
	while (argc > 1 && access(argv[1], F_OK))
		usleep(1000);
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
