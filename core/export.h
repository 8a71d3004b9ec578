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
 * stack (zero and negative weights are left out). m may be NULL.  stable:
 * an unresolved frame is named module+offset as the screen names it, the
 * same in every run (with symbols); 0 keeps the names as recorded. */
int export_folded(FILE *out, const prof *p, const prof_nodemap *m, enum agg_metric metric, int stable);
/* A frame's source, for pprof: one level of its inline chain. */
typedef struct export_line {
	const char *func;   /* NULL: unknown */
	const char *file;   /* NULL: unknown */
	int line;           /* 0: unknown */
} export_line;
/* Where the source comes from (symbols/: sym_export_lines): get fills out
 * with frame's chain, innermost first, at most cap levels; 0 when unknown. */
typedef struct export_lines {
	size_t (*get)(void *ctx, uint32_t frame, export_line *out, size_t cap);
	void *ctx;
} export_lines;

/* pprof profile.proto, gzipped: sample types alloc_objects, alloc_space,
 * inuse_objects, inuse_space; mappings with build ids; one location per
 * frame.  With lines, a location's lines are the frame's inline chain
 * (innermost first), each a function (name and file) and a line number,
 * so pprof's -list, -lines and -functions work; a frame with none, and
 * every frame without lines, gets its nodes in m, or its name. */
int export_pprof(int fd, const prof *p, const prof_nodemap *m, const export_lines *lines, prof_error *err);
/* The same with another default sample type (Go's allocs: "alloc_space"). */
int export_pprof_as(int fd, const prof *p, const prof_nodemap *m, const export_lines *lines, const char *dflt,
		    prof_error *err);

/* Writes p to path in format f (replaced atomically via path.tmp); lines
 * (may be NULL) for pprof.  0, or -1 with err filled ("PATH: reason"). */
int export_write(const prof *p, const prof_nodemap *m, const export_lines *lines, enum export_format f,
		 enum agg_metric metric, const char *path, prof_error *err);

#endif
