/* snapdiff.h - snapshots of one live process and the growth between two.
 * A live profile only ever appends frames, stacks and samples and raises
 * its counters, so a snapshot is a copy of the counters of the samples that
 * existed then, and two snapshots subtract sample by sample: no matching by
 * name or address is needed (core/diff.h does that across runs). No I/O. */
#ifndef MPROF_SNAPDIFF_H
#define MPROF_SNAPDIFF_H

#include <stddef.h>
#include <stdint.h>

#include "core/agg.h"
#include "core/diff_marks.h"
#include "core/load.h"

typedef struct snap {
	int number;            /* 1, 2, ... as the user took them */
	int64_t wall;          /* unix seconds */
	int64_t mono_ns;       /* since the process started (segment clock) */
	size_t n;              /* samples of the profile covered: [0, n) */
	mp_counts *c;        /* owned: n entries */
	int64_t total[AGG_NMETRIC];
} snap;

/* Copies p's sample counters into s (free with snap_free). 0 or -1 (ENOMEM). */
int snap_take(snap *s, const prof *p, int number, int64_t wall, int64_t mono_ns);
void snap_free(snap *s);

/* Per stack of a snap_delta result, what it was at the two moments. */
enum {
	SNAP_STACK_NEW = 1,        /* no allocation at the earlier moment */
	SNAP_STACK_HELD_FROM = 2,  /* something in use at the earlier moment */
	SNAP_STACK_HELD_TO = 4,    /* something in use at the later one */
};

/* A new profile (caller frees with prof_free) with p's frames, stacks,
 * modules and metadata and, per sample, the counters of `to` minus those of
 * `from`: from NULL is the empty start, to NULL is p now. Samples whose
 * counters did not move are left out; stacks keep their indices. When
 * flags is not NULL it gets (caller frees with free()) one byte per stack
 * of the result: its SNAP_STACK_* bits. NULL with err on ENOMEM or when
 * `to` is older than `from`. */
prof *snap_delta(const prof *p, const snap *from, const snap *to, uint8_t **flags, prof_error *err);

/* Per node of m (over d, a snap_delta result) its enum diff_mark: NEW when
 * the node is on no stack that had allocated at the earlier moment (every
 * stack through it SNAP_STACK_NEW); GONE, the mirror over what is in use
 * (counters only rise, so nothing else can vanish): something through it
 * was in use at the earlier moment and nothing is at the later one. out
 * has m->nnodes bytes. 0 or -1 (ENOMEM). */
int snap_marks_nodes(const prof *d, const prof_nodemap *m, const uint8_t *flags, uint8_t *out);

#endif
