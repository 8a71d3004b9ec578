/* window_app.c - a program for mprof-tui --window, with the amounts it
 * allocates in each phase known to the byte.  argv[1]: a directory of
 * control files (the test makes "go", "go2" and "end"; the program makes
 * "done" and "done2").  Prints its pid first, "window_app: done" last,
 * exits 0 (3 when a control file never comes).
 *
 * Before the window: pre_alloc 100 x 3000 B, shared_alloc 50 x 700 B.
 * Window 1 ("go" .. "done"), expected alloc / in use at its end:
 *   win_keep     10 x 1000 B kept                   10000/10  10000/10
 *   win_temp     20 x 500 B, all freed              10000/20      0/0
 *   win_half     8 x 2048 B, 4 freed                16384/8    8192/4
 *   win_grow     5 x (malloc 100, realloc to 300)    2000/10   1500/5
 *   win_calloc   3 x calloc(4, 256) kept             3072/3    3072/3
 *   win_realloc_old  2 pre_alloc blocks realloc'd to 4000 B  8000/2  8000/2
 *   shared_alloc 7 x 700 B, 2 freed (the same stack as the 50 before)
 *                                                    4900/7    3500/5
 *   win_thread   6 x 128 B kept, on a second thread   768/6     768/6
 *   and frees of blocks from before: 60 of pre_alloc's, 10 of
 *   shared_alloc's (neither counts).  Total 55124/66, in use 35032/35.
 * Window 2 ("go2" .. "done2"): win_second 4 x 64 B kept (256/4, 256/4);
 *   every win_keep block of window 1 is freed (counts nowhere).
 * After "end": everything is freed. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static const char *dir;
static void *pre[100], *shared_pre[50];
static void *keep[10], *half[8], *grow[5], *cal[3], *shared_win[7], *second[4], *thr[6];
static int go_thread;
static volatile int phases = 2;   /* not a constant: the loop in main is not unrolled */

/* Every allocation through one function that is not inlined and does not
 * tail-call: the named function stays on the stack. */
NOINLINE static void *must(void *p)
{
	if (!p)
		abort();
	memset(p, 1, 1);
	return p;
}

NOINLINE void pre_alloc(void)
{
	for (int i = 0; i < 100; i++)
		pre[i] = must(malloc(3000));
}

NOINLINE void *shared_alloc(void)
{
	void *p = malloc(700);
	return must(p);
}

/* shared_alloc's blocks before the window (50) and in it (7, 2 of them
 * freed): called from one place, so both have the same stack. */
NOINLINE static void shared_phase(int in_window)
{
	void **dst = in_window ? shared_win : shared_pre;
	int n = in_window ? 7 : 50;
	for (int i = 0; i < n; i++)
		dst[i] = shared_alloc();
	for (int i = 0; in_window && i < 2; i++) {
		free(shared_win[i]);
		shared_win[i] = NULL;
	}
}

NOINLINE void win_keep(void)
{
	for (int i = 0; i < 10; i++)
		keep[i] = must(malloc(1000));
}

NOINLINE void win_temp(void)
{
	void *t[20];
	for (int i = 0; i < 20; i++)
		t[i] = must(malloc(500));
	for (int i = 0; i < 20; i++)
		free(t[i]);
}

NOINLINE void win_half(void)
{
	for (int i = 0; i < 8; i++)
		half[i] = must(malloc(2048));
	for (int i = 0; i < 4; i++) {
		free(half[i]);
		half[i] = NULL;
	}
}

NOINLINE void win_grow(void)
{
	for (int i = 0; i < 5; i++) {
		void *p = must(malloc(100));
		grow[i] = must(realloc(p, 300));
	}
}

NOINLINE void win_calloc(void)
{
	for (int i = 0; i < 3; i++)
		cal[i] = must(calloc(4, 256));
}

NOINLINE void win_realloc_old(void)
{
	for (int i = 98; i < 100; i++)
		pre[i] = must(realloc(pre[i], 4000));
}

NOINLINE void win_second(void)
{
	for (int i = 0; i < 4; i++)
		second[i] = must(malloc(64));
}

NOINLINE void win_thread(void)
{
	for (int i = 0; i < 6; i++)
		thr[i] = must(malloc(128));
}

static void *thread_main(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&go_thread, __ATOMIC_ACQUIRE))
		usleep(1000);
	win_thread();
	return NULL;
}

/* Waits for dir/name (polling without allocating); exits 3 after 60 s. */
static void wait_for(const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (int i = 0; access(path, F_OK); i++) {
		if (i > 12000)
			exit(3);
		usleep(5000);
	}
}

static void make(const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	dir = argv[1];
	printf("%d\n", (int)getpid());
	fflush(stdout);
	pre_alloc();
	pthread_t t;
	if (pthread_create(&t, NULL, thread_main, NULL))
		return 1;
	for (int ph = 0; ph < phases; ph++) {
		if (ph)
			wait_for("go");
		shared_phase(ph);
	}
	win_keep();
	win_temp();
	win_half();
	win_grow();
	win_calloc();
	win_realloc_old();
	for (int i = 0; i < 60; i++) {
		free(pre[i]);
		pre[i] = NULL;
	}
	for (int i = 0; i < 10; i++) {
		free(shared_pre[i]);
		shared_pre[i] = NULL;
	}
	__atomic_store_n(&go_thread, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	make("done");

	wait_for("go2");
	win_second();
	for (int i = 0; i < 10; i++) {
		free(keep[i]);
		keep[i] = NULL;
	}
	make("done2");

	wait_for("end");
	void **all[] = { pre, shared_pre, half, grow, cal, shared_win, second, thr };
	const int n[] = { 100, 50, 8, 5, 3, 7, 4, 6 };
	for (int a = 0; a < 8; a++)
		for (int i = 0; i < n[a]; i++)
			free(all[a][i]);
	printf("window_app: done\n");
	return 0;
}
