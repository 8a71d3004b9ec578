/* report.h - batch reports: skynet-mprof's -top=flat|cum and -info, and
 * a TSV form for scripts. Writes to a stdio stream; no terminal. */
#ifndef MPROF_REPORT_H
#define MPROF_REPORT_H

#include <stdio.h>

#include "core/agg.h"

enum report_sort { REPORT_FLAT, REPORT_CUM };

typedef struct report_opts {
	enum report_sort sort;
	int alloc;          /* alloc space instead of in use */
	int objects;        /* rank by objects instead of bytes */
	long limit;         /* at most this many rows; <= 0 all */
	int tsv;            /* flat_bytes, flat_objects, cum_bytes, cum_objects, name */
	const char *what;   /* the heading's word ("leaked"...); NULL: alloc or inuse */
	int magnitude;      /* a diff: the biggest change first, growth or shrink */
} report_opts;

/* The rows of a top report, in order: node ids into rows (caller frees
 * with free()). Returns the count, or -1 on ENOMEM. */
long report_rows(const agg *a, const prof_nodemap *m, const report_opts *o, uint32_t **rows);
/* Sorted exactly as the reference orders rows, with ties broken by name. */
int report_top(FILE *out, const agg *a, const prof_nodemap *m, const report_opts *o);
int report_info(FILE *out, const prof *p);
/* "512 KiB", "1 MiB", "1000 B": a sampling rate (mean bytes per sample). */
void report_rate(char *buf, size_t len, uint64_t rate);

#endif
