/* inject_target.c - a program started WITHOUT the hook, for the injection
 * tests: 3 threads churn (malloc, calloc, realloc, free, a ring of 64 live
 * blocks each, so blocks from before an injection are freed after it) and
 * one leaks 1000 B every 10 ms in leak_fn (a schedule that catches up
 * after a late wake-up: 100,000 B/s).  argv[1]: seconds to run; argv[2]
 * "busy": the churn threads never sleep (always in malloc/free); "stuck":
 * one more thread sits inside dl_iterate_phdr (holding the loader's lock)
 * for the whole run, so no moment is safe for an injection.  argv[3]: a
 * file whose appearance ends the run early (tests stop it when done, not
 * on a timer a loaded machine might miss).  Prints
 * its pid first, "inject_target: leaked N blocks" last, exits with 7. */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double limit;
static int busy;
static volatile int stop;
static void *volatile head;   /* the leak, chained through the blocks */
static long leaked;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void leak_fn(void)
{
	void **p = malloc(1000);
	if (!p)
		abort();
	memset(p, 0, 1000);
	*p = head;
	head = p;
	leaked++;
}

static void *leaker(void *arg)
{
	double t0 = *(double *)arg;
	while (!stop) {
		long due = (long)((now_s() - t0) * 100);
		while (leaked < due)
			leak_fn();
		usleep(2000);
	}
	return NULL;
}

__attribute__((noinline)) static void churn_step(void **ring, unsigned i)
{
	unsigned k = i % 64;
	free(ring[k]);
	switch (i % 3) {
	case 0: ring[k] = malloc(16 + i % 2000); break;
	case 1: ring[k] = calloc(1, 32 + i % 500); break;
	default:
		ring[k] = realloc(malloc(24), 64 + i % 300);
		break;
	}
	if (!ring[k])
		abort();
	((char *)ring[k])[0] = (char)i;
}

static void *churner(void *arg)
{
	(void)arg;
	void *ring[64] = { 0 };
	for (unsigned i = 0; !stop; i++) {
		churn_step(ring, i);
		if (!busy && i % 16 == 0)
			usleep(1000);
	}
	for (int k = 0; k < 64; k++)
		free(ring[k]);
	return NULL;
}

static int stuck_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)info;
	(void)size;
	(void)arg;
	while (!stop)
		usleep(1000);
	return 1;
}

static void *stuck(void *arg)
{
	(void)arg;
	dl_iterate_phdr(stuck_cb, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	limit = argc > 1 ? atof(argv[1]) : 10;
	busy = argc > 2 && !strcmp(argv[2], "busy");
	printf("%d\n", (int)getpid());
	fflush(stdout);
	double t0 = now_s();
	pthread_t t[4];
	pthread_create(&t[0], NULL, leaker, &t0);
	for (int i = 1; i < 4; i++)
		pthread_create(&t[i], NULL, churner, NULL);
	pthread_t st;
	if (argc > 2 && !strcmp(argv[2], "stuck"))
		pthread_create(&st, NULL, stuck, NULL);
	const char *stop_file = argc > 3 ? argv[3] : NULL;
	while (now_s() - t0 < limit && !(stop_file && access(stop_file, F_OK) == 0))
		usleep(5000);
	stop = 1;
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	if (argc > 2 && !strcmp(argv[2], "stuck"))
		pthread_join(st, NULL);
	printf("inject_target: leaked %ld blocks\n", leaked);
	return 7;
}
