/* faults_touch.c - a known physical footprint for --faults: 80 MiB
 * reserved with malloc (mmap-backed: fresh pages), 8 MiB of it touched in
 * touch_eight and 16 MiB in touch_sixteen, the rest never.  With an
 * argument "wait", it prints its pid and waits for a line on stdin before
 * touching (a process to attach to), and starts the touching in threads
 * created after that line (threads born after the attach). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1024 * 1024)

static char *arena;
static volatile unsigned sink;

/* Writes one byte per 4 KiB page: every page faults once. */
__attribute__((noinline)) static void touch(char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	sink += (unsigned)p[n - 1];
}

__attribute__((noinline)) void touch_eight(char *p)
{
	touch(p, 8 * MIB);
	sink++;
}

__attribute__((noinline)) void touch_sixteen(char *p)
{
	touch(p, 16 * MIB);
	sink++;
}

static void *thread_eight(void *arg)
{
	touch_eight(arg);
	return NULL;
}

static void *thread_sixteen(void *arg)
{
	touch_sixteen(arg);
	return NULL;
}

int main(int argc, char **argv)
{
	int wait = argc > 1 && !strcmp(argv[1], "wait");
	arena = malloc(80 * MIB);
	if (!arena)
		return 1;
	if (wait) {
		char line[16];
		printf("%d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
		pthread_t a, b;
		pthread_create(&a, NULL, thread_eight, arena);
		pthread_create(&b, NULL, thread_sixteen, arena + 32 * MIB);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
	} else {
		touch_eight(arena);
		touch_sixteen(arena + 32 * MIB);
	}
	printf("touched 24 MiB of 80\n");
	free(arena);
	return 0;
}
