/* grow_steps.c - a heap that grows and shrinks in known steps, for the
 * triggered dumps (dump_on.sh): grow_steps STEP_KIB STEP_MS GO CMD...
 * where each CMD is +N (grow_step allocates N blocks of STEP_KIB KiB, each
 * written through so the resident set grows too, sleeping STEP_MS after
 * each), -N (frees the N newest), sMS (sleeps), w (waits until the file GO
 * exists).  One line on stdout per step, written with write(2): nothing but
 * the steps' blocks is allocated after the start. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *blocks[4096];
static int held;

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts))
		;
}

static void say(const char *what, long kib)
{
	char buf[96];
	int n = snprintf(buf, sizeof(buf), "%s: %d blocks, %ld KiB held\n", what, held, kib * held);
	if (write(1, buf, (size_t)n) != n)
		exit(1);
}

__attribute__((noinline)) static void grow_step(size_t bytes)
{
	blocks[held] = malloc(bytes);
	memset(blocks[held], 1, bytes);
	held++;
	__asm__ volatile("" ::: "memory");   /* no tail call: the caller stays on the stack */
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	long kib = atol(argv[1]), ms = atol(argv[2]);
	for (int i = 4; i < argc; i++) {
		const char *c = argv[i];
		long n = atol(c + 1);
		if (c[0] == '+') {
			for (long k = 0; k < n && held < 4096; k++) {
				grow_step((size_t)kib * 1024);
				say("grow", kib);
				nap(ms);
			}
		} else if (c[0] == '-') {
			for (long k = 0; k < n && held > 0; k++) {
				free(blocks[--held]);
				say("shrink", kib);
				nap(ms);
			}
		} else if (c[0] == 's') {
			nap(n);
		} else if (c[0] == 'w') {
			while (access(argv[3], F_OK))
				nap(10);
		}
	}
	say("end", kib);
	return 0;
}
