/* loc_leak.c - a request handler whose bytes in use and bytes allocated
 * go through different lines, for test/integration/tui_nodeloc.sh (built
 * -O0 -g, run under the hook). handle_request makes a big temporary that
 * it frees on one line and a small record that it keeps on another; main
 * keeps more and allocates more through warm_up than through all the
 * requests, but fewer objects, on another line than its calls of
 * handle_request. No allocation is a tail call, so every
 * line named here is on the stacks. */
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

/* volatile: the compiler may drop a malloc whose result is never read. */
void *volatile keep[64];
static int nkeep;

NOINLINE char *make_buf(size_t n)
{
	char *b = malloc(n); /* L:make_buf */
	memset(b, 7, n);
	return b;
}

NOINLINE void warm_up(void)   /* 128 KiB freed, 8 KiB kept */
{
	char *scratch = malloc(131072); /* L:scratch */
	char *w = malloc(8192); /* L:warm_buf */
	memset(scratch, 1, 131072);
	memcpy(w, scratch, 8192);
	free(scratch);
	keep[nkeep++] = w;
}

NOINLINE void handle_request(int i)   /* 4096 B freed, 64 B kept */
{
	char *tmp = make_buf(4096); /* L:temp */
	char *rec = make_buf(64); /* L:kept */
	rec[0] = tmp[i];
	free(tmp);
	keep[nkeep++] = rec;
}

int main(void)
{
	warm_up(); /* L:warm */
	for (int i = 0; i < 20; i++)
		handle_request(i); /* L:call */
	return 0;
}
