/* serve_leak.c - a target for the pprof endpoint's tests: leaks a known
 * amount from two functions, prints its pid, then waits on files in the
 * directory argv[1]: "grow" makes it leak grow_here()'s 25 x 800 B once,
 * "exit" ends it (60 s at most). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *volatile keep[64];
static int used;

/* Not inlined and the malloc not a tail call: each function names a stack. */
__attribute__((noinline)) void leak_small(int n)   /* n x 1000 B */
{
	for (int i = 0; i < n; i++)
		keep[used++] = malloc(1000);
}

__attribute__((noinline)) void leak_big(int n)   /* n x 40000 B */
{
	for (int i = 0; i < n; i++) {
		char *p = malloc(40000);
		memset(p, 1, 40000);
		keep[used++] = p;
	}
}

__attribute__((noinline)) void grow_here(void)   /* 25 x 800 B */
{
	for (int i = 0; i < 25; i++)
		keep[used++] = malloc(800);
}

static int has(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	leak_small(12);
	leak_big(3);
	for (int i = 0; i < 1000; i++)
		free(malloc((size_t)(i % 300) + 1));
	printf("%d\n", (int)getpid());
	fflush(stdout);
	int grown = 0;
	for (int i = 0; i < 6000 && !has(argv[1], "exit"); i++) {
		if (!grown && has(argv[1], "grow")) {
			grow_here();
			grown = 1;
		}
		usleep(10000);
	}
	return 0;
}
