/* mapmem.h - page-granular memory straight from the kernel, for code that
 * must not use the allocator it watches (the hook, the recording writer,
 * elfsym.c); mapmem.c. */
#ifndef MPROF_MAPMEM_H
#define MPROF_MAPMEM_H

#include <stddef.h>

/* mmap-backed memory for the hook; sizes rounded to pages. */
void *hook_map(size_t size);
void hook_unmap(void *p, size_t size);
void hook_populate(void *p, size_t size);

#endif
