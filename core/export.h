/* export.h - writing a profile for other tools: pprof protobuf (gzipped),
 * folded stacks (flamegraph.pl, speedscope, inferno), skynet v1, native.
 * Frame names come from a node map when one is given (the granularity the
 * user chose, inline frames expanded), else from the frames themselves. */
#ifndef MPROF_EXPORT_H
#define MPROF_EXPORT_H

#include <stdio.h>

#include "core/agg.h"
#include "core/load.h"

enum export_format { EXPORT_PPROF, EXPORT_FOLDED, EXPORT_SKYNET, EXPORT_NATIVE };

/* "pprof", "folded", "skynet" (or "v1"), "native"; -1 if unknown. */
int export_parse(const char *name);

/* Folded stacks, root first, ';'-separated, weight = metric per distinct
 * stack (zero and negative weights are left out). m may be NULL. */
int export_folded(FILE *out, const prof *p, const prof_nodemap *m, enum agg_metric metric);
/* pprof profile.proto, gzipped: sample types alloc_objects, alloc_space,
 * inuse_objects, inuse_space; mappings with build ids; one location per
 * frame whose lines are its nodes in m (innermost first), or its name. */
int export_pprof(int fd, const prof *p, const prof_nodemap *m, prof_error *err);

/* Writes p to path in format f (replaced atomically via path.tmp).
 * 0, or -1 with err filled ("PATH: reason"). */
int export_write(const prof *p, const prof_nodemap *m, enum export_format f, enum agg_metric metric,
		 const char *path, prof_error *err);

#endif
