/* bytes.h - a size in bytes as people read it (and give it): "40 B", "1.50 KiB",
 * "53.8 KiB", "512 MiB" (binary units, three significant figures, signed
 * for a diff). The one formatter for sizes shown on screens, in reports'
 * notes and summary lines. report_rate (report.c) stays apart: it writes
 * a sampling rate exactly ("1000 B", never "0.98 KiB"), a setting the
 * user gives back to --sample-rate, not a size rounded for reading. */
#ifndef MPROF_CORE_BYTES_H
#define MPROF_CORE_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* v bytes into buf (len bytes); returns buf. */
char *bytes_fmt(char *buf, size_t len, int64_t v);
/* A size as people give it: digits, then at most one of K, M, G (1024s,
 * either case): "524288", "512K", "1G". 0 with *v (at most max), or -1. */
int bytes_parse(const char *s, uint64_t max, uint64_t *v);

#endif
