/* loadutil.c - the small loader helpers that the readers and writers
 * reference: error text, dropping parsed pages, the memory guard. None
 * allocates, so libmprof.so links this file as it is. */
#include "core/load.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

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
	if (!src->mapped)
		return;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	from = (from + pg - 1) & ~(pg - 1);
	to &= ~(pg - 1);
	if (from < pg)
		from = pg;   /* keep the first page: readers may look back at the header */
	if (to > from)
		madvise((void *)(src->data + from), to - from, MADV_DONTNEED);
}

size_t prof_mem_avail(void)
{
	long pages = sysconf(_SC_AVPHYS_PAGES), pg = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || pg <= 0)
		return SIZE_MAX / 2;
	return (size_t)pages * (size_t)pg;
}

int prof_mem_check(const prof_src *src, size_t off, uint64_t need, prof_error *err)
{
	size_t avail = prof_mem_avail();
	if (need <= avail)
		return 0;
	prof_errorf(err, "%s: offset %zu: the profile needs %.1f GiB of memory, %.1f GiB are available",
		    src->name, off, (double)need / (1 << 30), (double)avail / (1 << 30));
	return -1;
}
