/* settings.h - the one parser of the numeric MPROF_* settings, for
 * libmprof.so and mprof-tui alike; settings.c. */
#ifndef MPROF_SETTINGS_H
#define MPROF_SETTINGS_H

#include <stdint.h>

/* Says one line (no program name, no newline): the hook through hook_say,
 * mprof-tui on stderr (settings_warn_stderr). */
typedef void settings_warn_fn(const char *line);

/* The environment variable name as a decimal number in lo..hi; def when it
 * is unset or empty.  Anything else (not a decimal number, out of lo..hi)
 * is said through warn, one line naming the variable and its value, and
 * def is used.  Allocation-free; errno is left as it was. */
uint64_t settings_num(const char *name, uint64_t def, uint64_t lo, uint64_t hi, settings_warn_fn *warn);

/* mprof-tui's warn: "mprof-tui: LINE" on stderr (one write(2), no stdio). */
void settings_warn_stderr(const char *line);

#endif
