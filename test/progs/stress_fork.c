/* stress_fork.c - a fork storm: background threads allocate and free
 * without pause while the main thread forks children one after another
 * (several alive at once); each child leaks 100 + i bytes in leak_child
 * and exits.  The parent leaks 10 x 64 B in leak_parent.  argv: children
 * (200), threads (4).  Exit status 0 when every child exited 0. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int stop;
void *volatile keep[16];

__attribute__((noinline)) void leak_child(int i)
{
	keep[0] = malloc(100 + (size_t)i);
}

__attribute__((noinline)) void leak_parent(void)
{
	for (int i = 0; i < 10; i++)
		keep[i] = malloc(64);
}

static void *churn(void *arg)
{
	(void)arg;
	void *ring[32] = { 0 };
	for (unsigned i = 0; !stop; i++) {
		free(ring[i % 32]);
		ring[i % 32] = malloc(16 + i % 1000);
	}
	for (int k = 0; k < 32; k++)
		free(ring[k]);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	int nt = argc > 2 ? atoi(argv[2]) : 4;
	pthread_t th[64];
	if (nt > 64)
		nt = 64;
	for (int t = 0; t < nt; t++)
		pthread_create(&th[t], NULL, churn, NULL);
	int bad = 0, alive = 0;
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			leak_child(i);
			void *p = malloc(4000);   /* the child allocates and frees too */
			free(p);
			exit(0);
		}
		if (pid < 0) {
			bad++;
			continue;
		}
		if (++alive >= 8) {   /* keep a few alive at once */
			int st;
			if (wait(&st) > 0 && (!WIFEXITED(st) || WEXITSTATUS(st)))
				bad++;
			alive--;
		}
	}
	int st;
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	stop = 1;
	for (int t = 0; t < nt; t++)
		pthread_join(th[t], NULL);
	leak_parent();
	return bad ? 1 : 0;
}
