/* diff_paths.c - runs to diff. `diff_paths base` and `diff_paths new` both
 * keep shared_fn's blocks; only base runs old_path (a code path the new
 * version removed: GONE in NEW - BASE) and only new runs new_path (NEW
 * there). `diff_paths phases A B` is both in one live process: base's
 * blocks until the file A exists, then old_path's blocks freed and
 * new_path's made, until B exists (each wait at most 60 s). Blocks are
 * kept in `keep` and no malloc is a tail call, so each stack ends in its
 * function. No stdio. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

void *volatile keep[16];
static int nkeep, old_at;

NOINLINE static void shared_fn(void)      /* both: 2 x 512 B */
{
	for (int i = 0; i < 2; i++)
		keep[nkeep++] = malloc(512); /* L:shared_fn */
}

NOINLINE static void old_path(void)       /* base only: 3 x 200 B */
{
	old_at = nkeep;
	for (int i = 0; i < 3; i++)
		keep[nkeep++] = malloc(200); /* L:old_path */
}

NOINLINE static void new_path(void)       /* new only: 4 x 300 B */
{
	for (int i = 0; i < 4; i++)
		keep[nkeep++] = malloc(300); /* L:new_path */
}

NOINLINE static void dispatch(int is_new)
{
	shared_fn();
	if (is_new)
		new_path(); /* L:call_new */
	else
		old_path(); /* L:call_old */
	nkeep += 0;
}

/* Waits until path exists, at most 60 s. */
static void wait_file(const char *path)
{
	struct timespec ts = { 0, 20000000 };
	for (int i = 0; i < 3000 && access(path, F_OK); i++)
		nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	if (argc > 3 && !strcmp(argv[1], "phases")) {
		dispatch(0);
		wait_file(argv[2]);
		for (int i = old_at; i < old_at + 3; i++)
			free(keep[i]);
		new_path();
		wait_file(argv[3]);
		return 0;
	}
	dispatch(argc > 1 && !strcmp(argv[1], "new"));
	return 0;
}
