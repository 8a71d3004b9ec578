/* counts.h - the four counters kept per stack everywhere: in the hook's
 * segment, in recordings, in profiles and snapshots.  Header-only (the
 * hook includes it); its layout is part of attach/shared/segment.h's and
 * core/recfmt.h's contracts. */
#ifndef MPROF_CORE_COUNTS_H
#define MPROF_CORE_COUNTS_H

#include <stdint.h>

typedef struct mp_counts {
	uint64_t alloc_objs, alloc_bytes, free_objs, free_bytes;
} mp_counts;

_Static_assert(sizeof(mp_counts) == 32, "mp_counts is a file and shared-memory layout");

/* d += s, wrapping as unsigned counters do. */
static inline void counts_add(mp_counts *d, const mp_counts *s)
{
	d->alloc_objs += s->alloc_objs;
	d->alloc_bytes += s->alloc_bytes;
	d->free_objs += s->free_objs;
	d->free_bytes += s->free_bytes;
}

/* Objects and bytes in use, never below 0 (a lane read a little stale,
 * or frees of blocks allocated before the counts began). */
static inline void counts_inuse(const mp_counts *c, uint64_t *objs, uint64_t *bytes)
{
	*objs = c->alloc_objs > c->free_objs ? c->alloc_objs - c->free_objs : 0;
	*bytes = c->alloc_bytes > c->free_bytes ? c->alloc_bytes - c->free_bytes : 0;
}

#endif
