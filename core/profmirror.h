/* profmirror.h - one growing profile mirrored from successive whole
 * profiles of one process (a Go service's heap profile fetched again and
 * again): frames, stacks and samples are only appended, counters are
 * replaced in place, so snapshots and view reloads work as over a hooked
 * process's segment. No I/O. */
#ifndef MPROF_PROFMIRROR_H
#define MPROF_PROFMIRROR_H

#include "core/prof.h"
#include "core/u64map.h"

/* What a mirror_update changed (the values of follow.h's FOLLOW_*). */
enum { MIRROR_COUNTS = 1, MIRROR_STACKS = 2, MIRROR_FRAMES = 4 };

typedef struct prof_mirror {
	prof *p;             /* owned; grows */
	u64map stack_of;     /* hash of a stack's frames -> stack (probing on a clash) */
	u64map sample_of;    /* hash of (stack, size) -> sample */
	uint32_t *fmap;      /* scratch: frame of the fetched profile -> frame of p */
	size_t fmap_cap;
} prof_mirror;

/* 0, or -1 on ENOMEM. */
int mirror_init(prof_mirror *m);
void mirror_free(prof_mirror *m);
/* Makes p's counters q's: q's new frames, modules, stacks and samples are
 * appended, p's samples q no longer has are zeroed. MIRROR_* flags, or -1
 * on ENOMEM. */
int mirror_update(prof_mirror *m, const prof *q);

#endif
