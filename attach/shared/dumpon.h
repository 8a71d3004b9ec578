/* dumpon.h - the triggers of MPROF_DUMP_ON and mprof-tui --dump-on, one
 * syntax for both binaries (dumpon.c parses it without allocating):
 *   heap:SIZE        the bytes in use on the heap reach SIZE
 *   rss:SIZE         the resident set reaches SIZE
 *   growth:SIZE/TIME the bytes in use grew by SIZE within the last TIME
 *   memhigh          the cgroup v2 memory.events "high" counter rises
 * comma-separated, at most DUMPON_MAX.  SIZE: bytes with an optional K, M,
 * G or T (powers of 1024), or N% (heap, rss) of the process's cgroup
 * memory.max; TIME: a number with ms, s, m or h. */
#ifndef MPROF_DUMPON_H
#define MPROF_DUMPON_H

#include <stddef.h>
#include <stdint.h>

#define DUMPON_MAX 8
#define DUMPON_SPEC_MAX 256

enum dumpon_kind { DUMPON_HEAP = 1, DUMPON_RSS, DUMPON_GROWTH, DUMPON_MEMHIGH };

typedef struct dumpon_trig {
	uint32_t kind;       /* enum dumpon_kind */
	uint32_t pct;        /* 1..100: size is a percentage of memory.max, not bytes */
	uint64_t size;       /* bytes (or the percentage) */
	uint64_t window_ms;  /* growth: the time it grew in */
} dumpon_trig;

typedef struct dumpon_spec {
	int n;
	dumpon_trig t[DUMPON_MAX];
} dumpon_spec;

/* Parses s into *out: 0, or -1 with a reason in why (naming the bad part). */
int dumpon_parse(const char *s, dumpon_spec *out, char *why, size_t cap);
/* "heap in use reaches 512 MiB" and such, for messages and status lines. */
void dumpon_describe(const dumpon_trig *t, char *buf, size_t cap);

#endif
