/* hook_fnptr.c - allocates through malloc's and free's addresses.  Built
 * without -fPIE (as Debian's python3 is), taking a function's address makes
 * the executable's PLT stub that function's address for every module: the
 * hook must not take the stub for the allocator.  Leaks 6 x 50 B in
 * leak_ptr; frees 10 blocks in no_leak.  With two file arguments it prints
 * its pid, waits for the first before the work and for the second (at most
 * 30 s) after printing "done". */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void *(*volatile alloc_fn)(size_t) = malloc;
void (*volatile free_fn)(void *) = free;
void *volatile kept[6];

__attribute__((noinline)) void leak_ptr(void)
{
	for (int i = 0; i < 6; i++)
		kept[i] = alloc_fn(50);
}

__attribute__((noinline)) void no_leak(void)
{
	for (int i = 0; i < 10; i++)
		free_fn(alloc_fn(100 + (size_t)i));
}

static void wait_for(const char *path)
{
	for (int i = 0; i < 3000 && access(path, F_OK); i++)
		usleep(10000);
}

int main(int argc, char **argv)
{
	if (argc > 2) {
		printf("%d\n", (int)getpid());
		fflush(stdout);
		wait_for(argv[1]);
	}
	leak_ptr();
	no_leak();
	printf("done\n");
	fflush(stdout);
	if (argc > 2)
		wait_for(argv[2]);
	return 0;
}
