/* hook_core.c - the load.c functions that core's reader/writer files
 * reference, for libmprof.so (load.c itself, with every reader, is not part
 * of the hook; the hook never runs the readers). */
#include "core/load.h"

#include <stdarg.h>
#include <stdio.h>

void prof_errorf(prof_error *e, const char *fmt, ...)
{
	if (!e)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

void prof_src_drop(const prof_src *src, size_t from, size_t to)
{
	(void)src;
	(void)from;
	(void)to;
}

/* The v1 reader's memory guard (load.c); readers never run in the hook. */
int prof_mem_check(const prof_src *src, size_t off, uint64_t need, prof_error *err)
{
	(void)src;
	(void)off;
	(void)need;
	(void)err;
	return 0;
}
