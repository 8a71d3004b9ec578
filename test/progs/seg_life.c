/* seg_life.c - processes whose segments must not outlive them.
 *  fork DIR [UID GID]: prints its pid and "ready", waits for DIR/go, forks
 *    a child that allocates (drops to UID/GID with setgid+setuid when
 *    given), prints "child PID" and leaves with _exit(0) (as a redis
 *    BGSAVE child does), reaps it ("reaped"), waits for DIR/end and exits 0.
 *  drop UID GID HOW: forks a child that allocates, drops to UID/GID with
 *    HOW (setuid: setgid+setuid, setresuid: setresgid+setresuid,
 *    setreuid: setregid+setreuid, seteuid: setegid+seteuid), allocates
 *    again, prints "child PID EUID" and exits 0 (an nginx worker under a
 *    root master); the parent reaps it and prints "reaped".
 *  vfork: a vfork child leaves with _exit (as posix_spawn's does when exec
 *    fails); the parent then prints whether its segment is still there. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void *volatile keep[4];

static void wait_file(const char *dir, const char *name)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	struct stat st;
	for (int i = 0; i < 1200 && stat(p, &st); i++)
		usleep(50000);
}

static int drop(uid_t u, gid_t g, const char *how)
{
	if (!strcmp(how, "setuid"))
		return setgid(g) || setuid(u);
	if (!strcmp(how, "setresuid"))
		return setresgid(g, g, g) || setresuid(u, u, u);
	if (!strcmp(how, "setreuid"))
		return setregid(g, g) || setreuid(u, u);
	if (!strcmp(how, "seteuid"))
		return setegid(g) || seteuid(u);
	return -1;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 5) && !strcmp(argv[1], "fork")) {
		printf("%d\nready\n", (int)getpid());
		fflush(stdout);
		wait_file(argv[2], "go");
		pid_t c = fork();
		if (c == 0) {
			keep[0] = malloc(100);
			if (argc == 5 && drop((uid_t)atoi(argv[3]), (gid_t)atoi(argv[4]), "setuid"))
				_exit(1);
			printf("child %d\n", (int)getpid());
			fflush(stdout);
			_exit(0);
		}
		int st;
		waitpid(c, &st, 0);
		printf("reaped\n");
		fflush(stdout);
		wait_file(argv[2], "end");
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "drop")) {
		keep[0] = malloc(100);
		fflush(stdout);
		pid_t c = fork();
		if (c == 0) {
			keep[1] = malloc(200);
			if (drop((uid_t)atoi(argv[2]), (gid_t)atoi(argv[3]), argv[4])) {
				perror(argv[4]);
				exit(1);
			}
			keep[2] = malloc(300);
			printf("child %d %d\n", (int)getpid(), (int)geteuid());
			fflush(stdout);
			exit(0);
		}
		int st;
		waitpid(c, &st, 0);
		printf("reaped %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "vfork")) {
		keep[0] = malloc(100);
		pid_t c = vfork();
		if (c == 0)
			_exit(0);
		waitpid(c, NULL, 0);
		char p[64];
		snprintf(p, sizeof(p), "/dev/shm/mprof-%d", (int)getpid());
		struct stat st;
		printf("segment %s\n", stat(p, &st) ? "gone" : "there");
		return 0;
	}
	fprintf(stderr, "usage: seg_life fork DIR [UID GID] | drop UID GID HOW | vfork\n");
	return 2;
}
