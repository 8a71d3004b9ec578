/* rec_handoff.c - blocks freed by another thread before their allocation
 * reaches the ring, as a server's I/O threads free what its main thread
 * made: the main thread allocates a block in handoff_fn (100 bytes, then
 * 104: one size class, so glibc gives the same address back when tcache
 * is off, GLIBC_TUNABLES=glibc.malloc.tcache_count=0) and hands it to the
 * worker, which frees it and fills a slot of events at once (drop_fn,
 * worker_fn), so the free is in the ring while the allocation still waits
 * in the main thread's slot; every second block the main thread fills its
 * own (main_fn).  Then the other way round: the worker's free waits in
 * its slot while the main thread makes a block again at that address
 * (reuse_fn, 100 then 104 bytes) and publishes it first.  HANDOFF_ROUNDS x
 * (100 + 104) bytes from each, all freed: nothing of handoff_fn or
 * reuse_fn is alive at the end.  argv[1], if given: a file to wait for
 * first (a recorder attaching from outside).  No stdio. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define HANDOFF_ROUNDS 200
#define HANDOFF_BURST 200   /* allocations that fill a slot (about 160 events) */

static int to_worker[2], to_main[2];

__attribute__((noinline)) static void *handoff_fn(size_t n)
{
	void *p = malloc(n);
	*(volatile char *)p = 1;
	__asm__ volatile("" ::: "memory");   /* not a tail call */
	return p;
}

__attribute__((noinline)) static void *reuse_fn(size_t n)
{
	void *p = malloc(n);
	*(volatile char *)p = 1;
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) static void burst(size_t n)
{
	for (int i = 0; i < HANDOFF_BURST; i++) {
		void *p = malloc(n);
		*(volatile char *)p = 1;
		free(p);
	}
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void main_fn(void)
{
	burst(40);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void worker_fn(void)
{
	burst(24);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void drop_fn(void *p)
{
	free(p);
	__asm__ volatile("" ::: "memory");
}

/* A block for the worker to free, and whether it then fills a slot. */
typedef struct handoff {
	void *p;
	int publish;
} handoff;

static void *worker(void *arg)
{
	(void)arg;
	handoff m;
	while (read(to_worker[0], &m, sizeof(m)) == sizeof(m)) {
		drop_fn(m.p);
		if (m.publish)
			worker_fn();
		char c = 1;
		if (write(to_main[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	while (argc > 1 && access(argv[1], F_OK))
		usleep(1000);
	if (pipe(to_worker) || pipe(to_main))
		return 1;
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	char c;
	for (int i = 0; i < 2 * HANDOFF_ROUNDS; i++) {
		handoff m = { handoff_fn(i & 1 ? 104 : 100), 1 };
		if (write(to_worker[1], &m, sizeof(m)) != sizeof(m) || read(to_main[0], &c, 1) != 1)
			return 1;
		if (i & 1)
			main_fn();
	}
	for (int i = 0; i < 2 * HANDOFF_ROUNDS; i++) {
		handoff m = { reuse_fn(i & 1 ? 104 : 100), i & 1 };
		main_fn();   /* the allocation is in the ring; the free waits in the worker's slot ... */
		if (write(to_worker[1], &m, sizeof(m)) != sizeof(m) || read(to_main[0], &c, 1) != 1)
			return 1;
	}   /* ... while the block made next at its address gets there first */
	close(to_worker[1]);
	pthread_join(t, NULL);
	return 0;
}
