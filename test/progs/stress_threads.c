/* stress_threads.c - many threads at once under the hook: each keeps a ring
 * of live blocks (thread_alloc) and trades blocks with the others through a
 * shared box (box_alloc; whoever swaps a block out frees it, usually another
 * thread).  argv: threads (16), operations per thread (200000), seconds
 * (0: run the operations; N: repeat rounds until N seconds have passed).
 * Prints on stderr "RING_BYTES RING_OBJS BOX_BYTES BOX_OBJS ALLOCS": what
 * must be in use at exit in each function, and the allocations made. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RING 64
#define BOX 1024
#define BOX_SIZE 32

static void *box[BOX];
static long ops = 200000;
static double until;
static uint64_t ring_bytes[256], allocs[256];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The empty asm keeps the call from becoming a tail call (no frame). */
__attribute__((noinline)) static void *thread_alloc(size_t n)
{
	void *p = malloc(n);
	__asm__ volatile("" : : "r"(p) : "memory");
	return p;
}

__attribute__((noinline)) static void *box_alloc(void)
{
	void *p = malloc(BOX_SIZE);
	__asm__ volatile("" : : "r"(p) : "memory");
	return p;
}

static void *worker(void *arg)
{
	long t = (long)arg;
	void *ring[RING] = { 0 };
	size_t sizes[RING] = { 0 };
	uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(t + 1), n = 0;
	do {
		for (long i = 0; i < ops; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			int k = (int)(i % RING);
			free(ring[k]);
			sizes[k] = 1 + (size_t)(x % 2048);
			ring[k] = thread_alloc(sizes[k]);
			n++;
			if ((i & 15) == 0) {
				void *old = __atomic_exchange_n(&box[(x >> 32) % BOX], box_alloc(), __ATOMIC_ACQ_REL);
				free(old);
				n++;
			}
		}
	} while (until > 0 && now() < until);
	for (int k = 0; k < RING; k++)
		ring_bytes[t] += sizes[k];
	allocs[t] = n;
	return NULL;   /* the ring is left allocated on purpose */
}

int main(int argc, char **argv)
{
	long threads = argc > 1 ? atol(argv[1]) : 16;
	if (argc > 2)
		ops = atol(argv[2]);
	if (argc > 3 && atof(argv[3]) > 0)
		until = now() + atof(argv[3]);
	if (threads < 1 || threads > 256 || ops < 1)
		return 2;
	pthread_t th[256];
	for (long t = 0; t < threads; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	uint64_t rb = 0, n = 0, boxed = 0;
	for (long t = 0; t < threads; t++) {
		pthread_join(th[t], NULL);
		rb += ring_bytes[t];
		n += allocs[t];
	}
	for (int i = 0; i < BOX; i++)
		boxed += box[i] != NULL;
	fprintf(stderr, "%llu %ld %llu %llu %llu\n", (unsigned long long)rb, threads * RING,
		(unsigned long long)(boxed * BOX_SIZE), (unsigned long long)boxed, (unsigned long long)n);
	return 0;
}
