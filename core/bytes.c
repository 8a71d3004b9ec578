/* bytes.c - the one formatter of sizes shown to people (bytes.h): bytes
 * below 1 KiB as they are, above in the largest binary unit that keeps the
 * value at least 1, with two, one or no decimals so that three figures show. */
#include <stdio.h>

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
