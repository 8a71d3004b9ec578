/* rec_parked.c - a thread that allocates and then sleeps for good, as a
 * worker parked after its setup does: parked_fn allocates PARK_BLOCKS x
 * PARK_SIZE bytes at the start and its thread never calls the allocator
 * again.  The main thread idles until 600 ms, allocates and frees small
 * blocks in busy_fn until 900 ms, and leaves with exit() while the worker
 * still sleeps (never joined).  argv[1], if given: a file to wait for
 * first (a recorder attaching from outside); argv[2], if given: no busy_fn
 * (every thread quiet from the worker's setup to the exit).  No stdio. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define PARK_BLOCKS 50
#define PARK_SIZE 100000   /* 50 x 100,000 = 5,000,000 bytes */

static struct timespec t0;
static int ready[2];

static long since_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
}

__attribute__((noinline)) static void parked_fn(void **blocks)
{
	for (int i = 0; i < PARK_BLOCKS; i++) {
		blocks[i] = malloc(PARK_SIZE);
		*(volatile char *)blocks[i] = 1;
	}
	__asm__ volatile("" ::: "memory");   /* not a tail call */
}

static void *worker(void *arg)
{
	(void)arg;
	static void *blocks[PARK_BLOCKS];
	parked_fn(blocks);
	char c = 1;
	if (write(ready[1], &c, 1) != 1)
		return NULL;
	for (;;)
		pause();   /* parked: never allocates again */
	return NULL;
}

__attribute__((noinline)) static void busy_fn(void)
{
	void *p = malloc(64);
	*(volatile char *)p = 1;
	free(p);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	while (argc > 1 && access(argv[1], F_OK))
		usleep(1000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pipe(ready))
		return 1;
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	char c;
	if (read(ready[0], &c, 1) != 1)
		return 1;
	while (since_ms() < 600)
		usleep(10000);
	while (argc < 3 && since_ms() < 900) {
		busy_fn();
		usleep(100);
	}
	exit(0);
}
