/* sig_leak.c - leaks 7 blocks of 333 bytes from leak_before_wait, says
 * "ready" and waits to be signalled.  With an argument it first reports the
 * dispositions it sees for SIGTERM and SIGINT (sigaction, then signal), and
 * with "own" installs its own SIGTERM handler, which exits 3; with "sysv"
 * it installs that handler through sysv_signal (a path the hook does not
 * wrap) and says what sigaction reports then, and exits. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *keep[7];

__attribute__((noinline)) static void leak_before_wait(void)
{
	for (int i = 0; i < 7; i++) {
		keep[i] = malloc(333);
		memset(keep[i], i, 333);
	}
}

static const char *disp(void (*h)(int))
{
	return h == SIG_DFL ? "default" : h == SIG_IGN ? "ignored" : "handler";
}

static void own(int sig)
{
	(void)sig;
	_exit(3);
}

int main(int argc, char **argv)
{
	leak_before_wait();
	if (argc > 1 && !strcmp(argv[1], "sysv")) {
		sysv_signal(SIGTERM, own);
		struct sigaction a;
		sigaction(SIGTERM, NULL, &a);
		printf("sysv_signal, then sigaction: %s\n", disp(a.sa_handler));
		return 0;
	}
	if (argc > 1) {
		struct sigaction a, b;
		sigaction(SIGTERM, NULL, &a);
		sigaction(SIGINT, NULL, &b);
		void (*t)(int) = signal(SIGTERM, SIG_DFL);
		printf("sigaction %s %s, signal %s\n", disp(a.sa_handler), disp(b.sa_handler), disp(t));
		if (!strcmp(argv[1], "own"))
			signal(SIGTERM, own);
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
