/* hook_wait.c - leaks, optionally dumps itself with SIGUSR2, has a signal
 * handler that allocates, then waits for a file to appear (so a test can
 * take a live snapshot) and exits. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* volatile: the compiler may drop a malloc whose result is never read. */
void *volatile keep[64];
static volatile sig_atomic_t ticks;

__attribute__((noinline)) void wait_leak(int n)   /* n x 1000 B */
{
	for (int i = 0; i < n; i++)
		keep[i] = malloc(1000);
}

/* Not async-signal-safe on purpose: programs do this, the hook must cope. */
static void on_alarm(int sig)
{
	(void)sig;
	free(malloc(64));
	ticks++;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	wait_leak(3);
	if (argc > 2 && !strcmp(argv[2], "usr2")) {
		raise(SIGUSR2);
		wait_leak(5);
	}
	/* glibc's malloc is not reentrant: the loop stays on one tcache bin
	 * (1-24 B) and the handler on another (64 B, warmed here), so the
	 * handler never meets glibc half-way through the same list, and any
	 * crash or hang would be the hook's. */
	free(malloc(64));
	signal(SIGALRM, on_alarm);
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < 200000; i++)
		free(malloc((size_t)(i % 24) + 1));
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	printf("%d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0; i < 1000 && access(argv[1], F_OK); i++)
		usleep(10000);
	return ticks > 0 ? 0 : 3;
}
