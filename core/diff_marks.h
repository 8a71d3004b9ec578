/* diff_marks.h - which rows of a file diff are NEW and which are GONE.
 * NEW: NEW allocated through the node and BASE nothing; GONE, the mirror:
 * BASE allocated through it and NEW nothing (a removed path, a site that
 * no longer allocates). d = diff_build(base, cur) keeps cur's frames at the
 * same indices, so a map over d is also a map over cur, and per node
 * cum(BASE) = cum(cur) - cum(d). No I/O. */
#ifndef MPROF_DIFF_MARKS_H
#define MPROF_DIFF_MARKS_H

#include <stdint.h>

#include "core/agg.h"

/* A node's mark in a diff (file diffs here, moments in core/snapdiff.h). */
enum diff_mark { DIFF_MARK_NONE = 0, DIFF_MARK_NEW = 1, DIFF_MARK_GONE = 2 };

/* out (m->nnodes bytes) gets each node's enum diff_mark; ad is d's
 * aggregate over m. 0 or -1 (ENOMEM). */
int diff_marks_nodes(const prof *cur, const agg *ad, const prof_nodemap *m, uint8_t *out);

#endif
