/* rec_peak.c - a heap that rises to a known peak at a known moment and
 * falls back: peak_fn allocates PEAK_BLOCKS x PEAK_SIZE bytes over about
 * 1 s, holds them 0.5 s and frees them; then the program idles 0.5 s with
 * only after_fn's small block alive. No stdio: nothing else allocates. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PEAK_BLOCKS 100
#define PEAK_SIZE 102400   /* 100 x 100 KiB = 10,240,000 bytes */

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

__attribute__((noinline)) static void peak_fn(void **blocks)
{
	for (int i = 0; i < PEAK_BLOCKS; i++) {
		blocks[i] = malloc(PEAK_SIZE);
		memset(blocks[i], 1, 64);
		nap_ms(10);
	}
}

__attribute__((noinline)) static void *after_fn(void)
{
	void *p = malloc(4096);
	memset(p, 2, 16);
	return p;
}

int main(void)
{
	static void *blocks[PEAK_BLOCKS];
	nap_ms(300);
	peak_fn(blocks);
	nap_ms(500);
	for (int i = 0; i < PEAK_BLOCKS; i++)
		free(blocks[i]);
	void *keep = after_fn();
	nap_ms(500);
	__asm__ volatile("" : : "r"(keep) : "memory");
	return 0;
}
