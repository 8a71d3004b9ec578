/* flamegraph.h - a self-contained interactive SVG flame graph (click to
 * zoom, search, reset), written without any outside script. */
#ifndef MPROF_FLAMEGRAPH_H
#define MPROF_FLAMEGRAPH_H

#include <stdio.h>

#include "core/agg.h"
#include "core/load.h"

/* Writes the flame graph of metric over p's stacks (root at the bottom),
 * frames named by m (NULL: the frames' own names). diff: p holds deltas
 * (diff_build): widths are the absolute deltas, red grows, blue shrinks.
 * 0, or -1 with err filled. */
int flamegraph_write(FILE *out, const prof *p, const prof_nodemap *m, enum agg_metric metric, int diff,
		     const char *title, prof_error *err);
/* The same into path (replaced atomically). */
int flamegraph_save(const prof *p, const prof_nodemap *m, enum agg_metric metric, int diff,
		    const char *title, const char *path, prof_error *err);

/* s into out with XML's (and HTML's) special characters escaped and
 * control characters left out. */
void flamegraph_put_escaped(FILE *out, const char *s);

#endif
