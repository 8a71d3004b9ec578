/* live_leaker.c - a target for the live tests: leak_here() leaks 1000 B
 * every 10 ms (100,000 B/s, on a schedule that catches up after a late
 * wake-up, so the rate holds on a loaded machine), churn() allocates and
 * frees beside it. Prints its pid, then runs until the file argv[1] exists
 * or argv[2] seconds (default 60) have passed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *volatile head;   /* the leak, chained through the blocks */

__attribute__((noinline)) void leak_here(void)
{
	void **p = malloc(1000);
	if (!p)
		return;
	memset(p, 0, 1000);
	*p = head;
	head = p;
}

__attribute__((noinline)) void churn(int i)
{
	char *a = malloc((size_t)(i % 500) + 16);
	char *b = malloc(4096);
	if (a)
		a[0] = 1;
	free(b);
	free(a);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double limit = argc > 2 ? atof(argv[2]) : 60, t0 = now_s();
	long done = 0;
	printf("%d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0;; i++) {
		double el = now_s() - t0;
		if (el > limit || (argc > 1 && !access(argv[1], F_OK)))
			break;
		for (long due = (long)(el * 100); done < due; done++)
			leak_here();
		churn(i);
		usleep(2000);
	}
	printf("leaked %ld blocks\n", done);
	return 0;
}
