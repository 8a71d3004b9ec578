/* live_stacks.c - a target for the live bench: allocates from N distinct
 * call stacks (default 100,000; 17 levels of two call sites each pick a
 * path), prints "ready", then keeps allocating and freeing from random ones
 * until the file argv[1] exists. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define LEVELS 17

static void *volatile sink;
void down(int level, unsigned bits);

__attribute__((noinline)) void left(int level, unsigned bits)
{
	down(level, bits);
	__asm__ volatile("");   /* keep the call a call, not a tail jump */
}

__attribute__((noinline)) void right(int level, unsigned bits)
{
	down(level, bits);
	__asm__ volatile("");
}

__attribute__((noinline)) void down(int level, unsigned bits)
{
	if (level == LEVELS) {
		void *p = malloc(16 + (bits & 63));
		if (bits & 1)
			free(sink);
		sink = p;
		return;
	}
	if (bits >> level & 1)
		right(level + 1, bits);
	else
		left(level + 1, bits);
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	unsigned n = argc > 2 ? (unsigned)atoi(argv[2]) : 100000, x = 12345;
	/* One call site for every path, so each path is one stack. */
	for (unsigned i = 0;; i++) {
		unsigned b = i;
		if (i >= n) {
			x = x * 1103515245 + 12345;
			b = (x >> 8) % n;
		}
		down(0, b);
		if (i + 1 == n) {
			printf("ready %d\n", (int)getpid());
			fflush(stdout);
		}
		if (i >= n && i % 1000 == 0) {
			if (argc < 2 || !access(argv[1], F_OK))
				break;
			usleep(1000);
		}
	}
	return 0;
}
