/* clock.h - the modes' refresh timers' clock (clock.c). */
#ifndef MPROF_TUI_CLOCK_H
#define MPROF_TUI_CLOCK_H

#include <stdint.h>

/* Milliseconds on the monotonic clock (the modes' refresh timers). */
int64_t app_mono_ms(void);

#endif
