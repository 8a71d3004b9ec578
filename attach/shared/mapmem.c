/* mapmem.c - page-granular memory straight from the kernel, for code that
 * must not use the allocator it watches (the hook, its dumps). */
#include "attach/shared/mapmem.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_round(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	return (n + pg - 1) & ~(pg - 1);
}

void *hook_map(size_t size)
{
	void *p = mmap(NULL, page_round(size ? size : 1), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void hook_unmap(void *p, size_t size)
{
	if (p)
		munmap(p, page_round(size ? size : 1));
}

/* Faults in the pages of [p, p + size) with one call: a page touched one by
 * one is a trap into the kernel each (several microseconds in a VM).
 * Kernels before 5.14 refuse the advice: the pages then fault as before. */
void hook_populate(void *p, size_t size)
{
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p & ~(pg - 1), e = ((uintptr_t)p + size + pg - 1) & ~(pg - 1);
	if (p && size)
		(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
}
