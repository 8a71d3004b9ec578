/* hook_threads.c - 8 threads, 1,000,000 allocations and frees in all, each
 * thread keeping a ring of 100 live blocks: 800 blocks live at the end.
 * Prints the exact live bytes it expects on stderr. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 8
#define OPS (1000000 / THREADS)
#define RING 100

static size_t live_bytes[THREADS];

__attribute__((noinline)) static void *thread_alloc(size_t n)
{
	return malloc(n);
}

static void *worker(void *arg)
{
	long t = (long)arg;
	void *ring[RING] = { 0 };
	size_t sizes[RING] = { 0 };
	for (int i = 0; i < OPS; i++) {
		int k = i % RING;
		free(ring[k]);
		sizes[k] = 16 + (size_t)((i * 7 + t) % 50) * 8;
		ring[k] = thread_alloc(sizes[k]);
	}
	for (int k = 0; k < RING; k++)
		live_bytes[t] += sizes[k];
	return NULL;   /* the ring is left allocated on purpose */
}

int main(void)
{
	pthread_t th[THREADS];
	for (long t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	size_t total = 0;
	for (int t = 0; t < THREADS; t++) {
		pthread_join(th[t], NULL);
		total += live_bytes[t];
	}
	fprintf(stderr, "%zu %d\n", total, THREADS * RING);
	return 0;
}
