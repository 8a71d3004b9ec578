/* budget_app.c - a known leak and a known peak, for --budget (budget.sh):
 * leak_one leaks one block of 4000 bytes; grow_step then allocates STEPS
 * blocks of 1 MiB (argv[1], 3 by default), freed before exit unless
 * argv[2] is "hold"; it exits with argv[3] (0 by default). In use at exit:
 * 4000 B in 1 object (plus the blocks held); the peak: STEPS MiB + 4000 B.
 * No stdio: nothing else allocates. */
#include <stdlib.h>
#include <string.h>

#define MIB (1024 * 1024)

static void *blocks[64];

__attribute__((noinline)) static void leak_one(void)
{
	char *p = malloc(4000);
	memset(p, 1, 64);
	__asm__ volatile("" ::"r"(p) : "memory");   /* no tail call, and p is gone: a leak */
}

__attribute__((noinline)) static void grow_step(int i)
{
	blocks[i] = malloc(MIB);
	memset(blocks[i], 1, 64);
	__asm__ volatile("" ::: "memory");   /* no tail call: grow_step stays on the stack */
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 3;
	if (steps < 0 || steps > 64)
		return 2;
	leak_one();
	for (int i = 0; i < steps; i++)
		grow_step(i);
	if (argc <= 2 || strcmp(argv[2], "hold"))
		for (int i = 0; i < steps; i++)
			free(blocks[i]);
	return argc > 3 ? atoi(argv[3]) : 0;
}
