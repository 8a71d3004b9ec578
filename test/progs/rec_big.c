/* rec_big.c - large blocks for the sampled-recording test (record.sh): at
 * MPROF_SAMPLE=524288 a 1 MiB block is sampled with p = 1 - e^-2 (0.865),
 * so each sampled one stands for 1.156 blocks, and a count rounded per
 * event would be 13.5 % short.  6 rounds, each: big_temp allocates 500
 * blocks of 1 MiB and frees each at once, big_kept allocates 40 and keeps
 * them (never touched: no memory used); then a 150 ms pause, so the
 * recorder writes out and, with a small MPROF_RECORD_SIZE, starts a new
 * file.  Prints "temp 3000 kept 240". */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")

static void *kept[240];
static int nkept;

NOINLINE static void big_temp(void)
{
	for (int i = 0; i < 500; i++) {
		void *p = malloc(1 << 20);
		KEEP(p);
		free(p);
	}
}

NOINLINE static void big_kept(void)
{
	for (int i = 0; i < 40; i++) {
		kept[nkept] = malloc(1 << 20);
		KEEP(kept[nkept]);
		nkept++;
	}
}

int main(void)
{
	for (int r = 0; r < 6; r++) {
		big_temp();
		big_kept();
		usleep(150000);
	}
	printf("temp 3000 kept %d\n", nkept);
	return 0;
}
