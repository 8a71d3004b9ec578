/* settings.c - the numeric MPROF_* settings read from the environment, one
 * way for both binaries: a decimal number within its bounds, the default
 * when unset or empty, and for a bad value (not a number, out of bounds)
 * one line naming the variable and its value, then the default.  Runs
 * inside the hook's start (the program's first malloc): no allocation, and
 * the host's errno is kept. */
#include "attach/shared/settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

uint64_t settings_num(const char *name, uint64_t def, uint64_t lo, uint64_t hi, settings_warn_fn *warn)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return def;
	int saved = errno;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	int bad = *s < '0' || *s > '9' || *end || errno == ERANGE || v < lo || v > hi;
	errno = saved;
	if (!bad)
		return v;
	char line[256];
	snprintf(line, sizeof(line), "%s=%.64s: not a number from %llu to %llu; using the default %llu", name, s,
		 (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)def);
	if (warn)
		warn(line);
	errno = saved;
	return def;
}

void settings_warn_stderr(const char *line)
{
	char buf[300];
	int n = snprintf(buf, sizeof(buf), "mprof-tui: %s\n", line);
	if (n <= 0)
		return;
	size_t len = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
	if (write(2, buf, len) < 0) {
		/* nowhere left to say it */
	}
}
