/* gomem.h - the "# runtime.MemStats" trailer of a Go heap profile (debug=1):
 * the figures read into the profile, and the words that compare the
 * sampled heap with what the Go runtime holds from the system. No I/O. */
#ifndef MPROF_GOMEM_H
#define MPROF_GOMEM_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* The MemStats fields mprof shows; have is 0 when the profile had none. */
typedef struct prof_gomem {
	int have;            /* the trailer was read */
	int in;              /* reading: inside the trailer */
	uint64_t alloc, total_alloc, sys, heap_alloc, heap_sys, heap_idle, heap_inuse, heap_released,
		heap_objects, stack_inuse, stack_sys, gc_sys, next_gc, num_gc, mspan_sys, mcache_sys,
		buckhash_sys, other_sys;
} prof_gomem;

/* One comment line of the profile, starting at '#' ([s, e)): 1 when it is
 * the trailer's header or one of its "# Name = N" lines (kept), else 0. */
int gomem_line(prof_gomem *g, const char *s, const char *e);
/* The title's line: "Go runtime: in use X of heap Y held (idle Z, released
 * W), stacks S, GC N cycles". */
size_t gomem_title(const prof_gomem *g, char *buf, size_t cap);
/* --info's lines, each ending in "\n", with the gap between the sampled
 * heap (sampled_inuse bytes) and what the process holds in words. */
size_t gomem_info(const prof_gomem *g, int64_t sampled_inuse, char *buf, size_t cap);

struct prof;
/* --info's MemStats section for p (nothing when it has none): 0, -1 on a
 * write error. */
int gomem_report(FILE *out, const struct prof *p);

#endif
