/* filter.h - regex focus and hide over node names (POSIX extended regex).
 * Focus keeps the rows whose name matches; hide drops matching nodes from
 * every stack, as pprof's -hide does, so the next frame out becomes the leaf. */
#ifndef MPROF_FILTER_H
#define MPROF_FILTER_H

#include <regex.h>
#include <stddef.h>

#include "core/agg.h"

typedef struct name_filter {
	char *pattern;     /* owned copy; NULL when no filter is set */
	regex_t re;        /* compiled when pattern != NULL */
} name_filter;

/* Compiles pattern (case-insensitive unless it holds an upper-case letter);
 * an empty pattern clears. On a bad pattern returns -1 with a one-line
 * reason in err and leaves f unchanged. */
int filter_set(name_filter *f, const char *pattern, char *err, size_t errlen);
void filter_clear(name_filter *f);
static inline int filter_active(const name_filter *f)
{
	return f->pattern != NULL;
}
/* 1 if name matches (or no filter is set). */
int filter_match(const name_filter *f, const char *name);

/* Copies src into dst without the nodes whose names match hide: node ids and
 * names stay the same, hidden nodes just never appear in a stack. dst
 * borrows src's names (src outlives it) and is freed with nodemap_free.
 * Returns 0 or -1 (ENOMEM). */
int filter_hide_map(prof_nodemap *dst, const prof_nodemap *src, const name_filter *hide);

/* Removes from p the samples whose stack passes through a node of m whose
 * name matches ign, as pprof's -ignore does (a stack left out of every
 * figure); returns how many were removed, or -1 (ENOMEM, p unchanged). */
long filter_ignore(prof *p, const prof_nodemap *m, const name_filter *ign);

#endif
