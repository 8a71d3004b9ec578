/* rebuild_app.c - one program built twice for diffs across builds
 * (diff_rebuild.sh): the test inserts code above everything (every
 * offset and line shifts), renames the binary, frees the leak (-DFIXED)
 * or drops a function (-DNO_OLD). argv[1] requests are handled; each
 * leaks 64 B through make_label (marker KEPT) and frees a 4 KiB one
 * (marker TEMP); steady keeps 100 x 1 KiB in every build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *keep[100000];
static int nkeep;

__attribute__((noinline)) void store(void *p)
{
	keep[nkeep++] = p;
}

__attribute__((noinline)) void *make_label(size_t n)
{
	char *p = malloc(n);
	memset(p, 'x', n);
	return p;
}

__attribute__((noinline)) void handle_request(int i)
{
	char *tmp = make_label(4096); /* TEMP */
	free(tmp);
#ifdef FIXED
	void *k = make_label(64); /* KEPT */
	free(k);
#else
	store(make_label(64)); /* KEPT */
#endif
	(void)i;
}

__attribute__((noinline)) void steady(void)
{
	static void *s[100];
	for (int i = 0; i < 100; i++)
		s[i] = malloc(1024);
}

#ifndef NO_OLD
/* Only in BASE's build: 10 x 100 B kept. */
__attribute__((noinline)) void old_path(void)
{
	for (int i = 0; i < 10; i++)
		store(malloc(100));
}
#endif

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	steady();
#ifndef NO_OLD
	old_path();
#endif
	for (int i = 0; i < n; i++)
		handle_request(i);
	printf("%d\n", nkeep);
	return 0;
}
