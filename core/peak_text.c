/* peak_text.c - the heap's peak as the title, --info and the live screens
 * say it: "peak 8.00 MiB (8 objects) at 06:55:12, 0.3 s in". */
#include "core/bytes.h"
#include "core/prof.h"

#include <stdio.h>
#include <time.h>

size_t prof_peak_text(const prof *p, char *buf, size_t cap)
{
	const prof_peak *pk = &p->meta.peak;
	if (!cap)
		return 0;
	buf[0] = 0;
	if (!pk->time_ns)
		return 0;
	char b[32], at[16] = "?", in[32] = "";
	time_t t = (time_t)(pk->time_ns / 1000000000);
	struct tm tm;
	if (localtime_r(&t, &tm))
		strftime(at, sizeof(at), "%H:%M:%S", &tm);
	if (pk->start_ns && pk->time_ns >= pk->start_ns)
		snprintf(in, sizeof(in), ", %.1f s in", (double)(pk->time_ns - pk->start_ns) / 1e9);
	int n = snprintf(buf, cap, "peak %s (%llu objects) at %s%s", bytes_fmt(b, sizeof(b), (int64_t)pk->bytes),
			 (unsigned long long)pk->objs, at, in);
	return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}
