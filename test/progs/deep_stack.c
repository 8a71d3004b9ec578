/* deep_stack.c - a recursion N frames deep (argv[1], default 200) that
 * leaks one block of 3000 B at its bottom, in leak_at_bottom; every level
 * does work after its recursive call, so no call is a tail call and each
 * frame stays on the stack.  With argv[2] = PATH it prints its pid after
 * the leak and waits (at the bottom, every frame still live) until PATH
 * exists.  Exit status 0. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void *volatile keep;
static volatile int sink;
static const char *wait_path;

__attribute__((noinline)) static void leak_at_bottom(void)
{
	keep = malloc(3000);
	__asm__ volatile("" ::: "memory");
	if (!wait_path)
		return;
	char pid[24];   /* no stdio: its buffer would be a second deep allocation */
	int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (write(1, pid, (size_t)n) != n)
		return;
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	while (access(wait_path, F_OK))
		nanosleep(&ts, NULL);
}

__attribute__((noinline)) static int dive(int n)
{
	if (n <= 1) {
		leak_at_bottom();
		return 1;
	}
	int r = dive(n - 1);
	sink = r;   /* work after the call: not a tail call */
	__asm__ volatile("" ::: "memory");
	return r + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	wait_path = argc > 2 ? argv[2] : NULL;
	return dive(n) == n ? 0 : 1;
}
