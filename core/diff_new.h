/* diff_new.h - which rows of a file diff are NEW: nodes through which BASE
 * allocated nothing. d = diff_build(base, cur) keeps cur's frames at the
 * same indices, so a map over d is also a map over cur, and per node
 * cum(BASE) = cum(cur) - cum(d). No I/O. */
#ifndef MPROF_DIFF_NEW_H
#define MPROF_DIFF_NEW_H

#include <stdint.h>

#include "core/agg.h"

/* out (m->nnodes bytes) gets 1 for a node that cur allocated through and
 * BASE did not; ad is d's aggregate over m. 0 or -1 (ENOMEM). */
int diff_new_nodes(const prof *cur, const agg *ad, const prof_nodemap *m, uint8_t *out);

#endif
