/* allocs_ui.h - which allocators the hook found in a process and how it
 * reaches each (the segment's allocator table), in words: for --info
 * --attach PID, after --inject, and in live mode's status line. */
#ifndef MPROF_ALLOCS_UI_H
#define MPROF_ALLOCS_UI_H

#include <stddef.h>
#include <stdio.h>

#include "attach/shared/segment.h"

/* One entry as a line: "jemalloc je_ in PATH: entry-patched: 13 functions (...)". */
void allocs_describe(const seg_alloc *a, char *buf, size_t cap);
/* The entries of the segment data (len bytes), each line after lead; only
 * the allocators beyond the program's malloc with others_only.  The lines
 * printed. */
int allocs_print(FILE *out, const void *data, size_t len, const char *lead, int others_only);
/* A short summary of the allocators beyond the program's malloc ("je_
 * jemalloc: entry-patched"), "" when there are none. */
void allocs_summary(const void *data, size_t len, char *buf, size_t cap);
/* --info --attach PID: the process, how the hook is in it, its allocators. */
int allocs_info_print(const char *pid_arg);

#endif
