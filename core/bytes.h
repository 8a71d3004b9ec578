/* bytes.h - a size in bytes as people read it (and give it): "40 B", "1.50 KiB",
 * "53.8 KiB", "512 MiB" (binary units, three significant figures, signed
 * for a diff). The one formatter for sizes shown on screens, in reports'
 * notes and summary lines. bytes_exact stays apart: it writes a setting
 * exactly ("1000 B", never "0.98 KiB"; a sampling rate, a trigger's
 * level), one the user gives back to --sample-rate or --dump-on, not a
 * size rounded for reading.  Allocation-free (the hook links it). */
#ifndef MPROF_CORE_BYTES_H
#define MPROF_CORE_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* v bytes into buf (len bytes); returns buf. */
char *bytes_fmt(char *buf, size_t len, int64_t v);
/* A size as people give it: digits, then at most one of K, M, G (1024s,
 * either case): "524288", "512K", "1G". 0 with *v (at most max), or -1. */
int bytes_parse(const char *s, uint64_t max, uint64_t *v);
/* v in the largest binary unit that divides it: "512 MiB", "1000 B". */
char *bytes_exact(char *buf, size_t len, uint64_t v);

#endif
