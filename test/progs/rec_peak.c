/* rec_peak.c - a heap that rises to a known peak at a known moment and
 * falls back: peak_fn allocates PEAK_BLOCKS x PEAK_SIZE bytes over about
 * 1 s, holds them 0.5 s and frees them; then the program idles 0.5 s with
 * only after_fn's small block alive. No stdio: nothing else allocates.
 * Every step sleeps until a deadline from the start (not for a length), so
 * late wake-ups on a busy machine do not add up and shift the schedule. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PEAK_BLOCKS 100
#define PEAK_SIZE 102400   /* 100 x 100 KiB = 10,240,000 bytes */

static struct timespec t0;

/* Sleeps until ms after the start. */
static void until_ms(long ms)
{
	struct timespec ts = { t0.tv_sec + ms / 1000, t0.tv_nsec + (ms % 1000) * 1000000L };
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

__attribute__((noinline)) static void peak_fn(void **blocks)
{
	for (int i = 0; i < PEAK_BLOCKS; i++) {
		blocks[i] = malloc(PEAK_SIZE);
		memset(blocks[i], 1, 64);
		until_ms(300 + 10 * (i + 1));
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
	clock_gettime(CLOCK_MONOTONIC, &t0);
	until_ms(300);
	peak_fn(blocks);
	until_ms(1800);
	for (int i = 0; i < PEAK_BLOCKS; i++)
		free(blocks[i]);
	void *keep = after_fn();
	until_ms(2300);
	__asm__ volatile("" : : "r"(keep) : "memory");
	return 0;
}
