/* bytes.c - the one formatter of sizes shown to people (bytes.h): bytes
 * below 1 KiB as they are, above in the largest binary unit that keeps the
 * value at least 1, with two, one or no decimals so that three figures show;
 * and the exact form of a setting (bytes_exact). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"

char *bytes_fmt(char *buf, size_t len, int64_t v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double x = (double)v, a = x < 0 ? -x : x;
	int u = 0;
	if (a < 1024) {
		snprintf(buf, len, "%lld B", (long long)v);
		return buf;
	}
	while (a >= 1024 && u < 5) {
		a /= 1024;
		x /= 1024;
		u++;
	}
	snprintf(buf, len, a < 10 ? "%.2f %s" : a < 100 ? "%.1f %s" : "%.0f %s", x, unit[u]);
	return buf;
}

int bytes_parse(const char *s, uint64_t max, uint64_t *v)
{
	if (*s < '0' || *s > '9')
		return -1;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(s, &end, 10);
	int shift = 0;
	if (*end && !end[1] && strchr("kKmMgG", *end))
		shift = *end == 'k' || *end == 'K' ? 10 : *end == 'm' || *end == 'M' ? 20 : 30;
	else if (*end)
		return -1;
	if (errno || n > (max >> shift))
		return -1;
	*v = (uint64_t)n << shift;
	return 0;
}

char *bytes_exact(char *buf, size_t len, uint64_t v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;
	while (u < 4 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)v, unit[u]);
	return buf;
}
