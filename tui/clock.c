/* clock.c - milliseconds on the monotonic clock, what the live and faults
 * modes time their refreshes by. */
#include <stdint.h>
#include <time.h>

#include "tui/clock.h"

int64_t app_mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
