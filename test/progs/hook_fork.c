/* hook_fork.c - parent and child leak different amounts after fork; the
 * child prints its pid so a test can find its dump. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* volatile: the compiler may drop a malloc whose result is never read. */
void *volatile keep[16];

__attribute__((noinline)) void parent_leak(void)   /* 2 x 500 B */
{
	keep[0] = malloc(500);
	keep[1] = malloc(500);
}

__attribute__((noinline)) void child_leak(void)    /* 3 x 300 B */
{
	for (int i = 0; i < 3; i++)
		keep[2 + i] = malloc(300);
}

int main(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		child_leak();
		printf("child %d\n", (int)getpid());
		return 0;
	}
	int st;
	waitpid(pid, &st, 0);
	parent_leak();
	printf("parent done\n");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
