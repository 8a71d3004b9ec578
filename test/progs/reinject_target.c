/* reinject_target.c - a program started WITHOUT the hook, for the
 * re-injection test: it does one step per line read on standard input and
 * prints "done STEP" after it, so a test decides what happens between an
 * injection, a detach and the next injection.  Prints its pid first.
 * Steps (each block kept in its own place until a step frees it):
 *   a1      keep_a1: 3 blocks of 1000 B, kept
 *   gone    gone_a1: 2 blocks of 300 B, freed at once
 *   big     make_big: one block of 8 MiB (touched), kept
 *   freebig the 8 MiB block freed
 *   d       made_detached: 2 blocks of 500 B, kept
 *   a2      keep_a2: 4 blocks of 700 B, kept
 *   fa1     one block of keep_a1 freed
 *   fd      one block of made_detached freed
 *   quit    exits with status 0 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Global, so the compiler keeps every allocation stored in them. */
void *a1[3], *big, *det[2], *a2[4];

/* Each maker stores its blocks (no tail call: the maker stays on the stack). */
__attribute__((noinline)) void keep_a1(void)
{
	for (int i = 0; i < 3; i++)
		a1[i] = malloc(1000);
}

__attribute__((noinline)) void gone_a1(void)
{
	void *p = malloc(300), *q = malloc(300);
	free(p);
	free(q);
}

__attribute__((noinline)) void make_big(void)
{
	big = malloc(8 << 20);
	if (big)
		memset(big, 1, 8 << 20);
}

__attribute__((noinline)) void made_detached(void)
{
	for (int i = 0; i < 2; i++)
		det[i] = malloc(500);
}

__attribute__((noinline)) void keep_a2(void)
{
	for (int i = 0; i < 4; i++)
		a2[i] = malloc(700);
}

int main(void)
{
	char line[64];
	printf("%d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		if (!strcmp(line, "a1"))
			keep_a1();
		else if (!strcmp(line, "gone"))
			gone_a1();
		else if (!strcmp(line, "big"))
			make_big();
		else if (!strcmp(line, "freebig")) {
			free(big);
			big = NULL;
		} else if (!strcmp(line, "d"))
			made_detached();
		else if (!strcmp(line, "a2"))
			keep_a2();
		else if (!strcmp(line, "fa1")) {
			free(a1[0]);
			a1[0] = NULL;
		} else if (!strcmp(line, "fd")) {
			free(det[0]);
			det[0] = NULL;
		} else if (!strcmp(line, "quit"))
			break;
		printf("done %s\n", line);
		fflush(stdout);
	}
	printf("reinject_target: end\n");
	return 0;
}
