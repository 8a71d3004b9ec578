/* stress_signals.c - signals arriving inside malloc: a fast interval timer
 * whose handler frees blocks of a pool (allocated in pool_alloc) while the
 * main loop runs malloc/free pairs under the hook.  Prints on stderr
 * "BYTES OBJECTS": what pool_alloc still has in use at exit (the blocks
 * the handler did not free).  argv[1]: loop iterations (default 2000000). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#define POOL 4000
#define SIZE 48

static void *pool[POOL];
static volatile sig_atomic_t next_free;

__attribute__((noinline)) static void pool_alloc(void)
{
	for (int i = 0; i < POOL; i++)
		pool[i] = malloc(SIZE);
}

/* Not async-signal-safe on purpose: programs do this, the hook must cope. */
static void on_alarm(int sig)
{
	(void)sig;
	if (next_free < POOL)
		free(pool[next_free++]);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	pool_alloc();
	signal(SIGALRM, on_alarm);
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	setitimer(ITIMER_REAL, &it, NULL);
	/* glibc's malloc is not reentrant: the loop stays on one tcache bin
	 * (1-24 B), the handler frees 48 B blocks (another bin, then fastbins),
	 * so any crash or hang would be the hook's. */
	for (long i = 0; i < n && next_free < POOL; i++)
		free(malloc((size_t)(i % 24) + 1));
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	int left = POOL - next_free;
	fprintf(stderr, "%d %d\n", left * SIZE, left);
	return 0;
}
