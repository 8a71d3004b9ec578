/* hook_core.c - the two load.c functions that core's reader/writer files
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
