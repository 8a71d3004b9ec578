/* newmarks.h - the diff a mode shows and its NEW and GONE marks (enum
 * diff_mark, core/diff_marks.h), kept by the modes that diff (live,
 * recordings, two files) and read by the screens through app_node_mark. */
#ifndef MPROF_TUI_NEWMARKS_H
#define MPROF_TUI_NEWMARKS_H

#include <stdint.h>

#include "core/prof.h"

struct app;

/* Between two moments (live, recording):
 * d, a snap_delta result, and its SNAP_STACK_* flags per stack, both
 * owned.  Two files: newp, NEW's profile, borrowed. */
typedef struct new_marks {
	prof *d;                 /* owned: the diff shown, or NULL */
	uint8_t *flags;          /* owned: per stack of d */
	const prof *newp;        /* borrowed (two files) */
	unsigned gen;            /* bumped when d or the map under the view changes */
	uint8_t *node_mark;      /* owned: per node of map, built at gen built */
	const prof_nodemap *map;
	uint32_t n;
	unsigned built;
} new_marks;
/* Shows d with flags (owned from now on; either may be NULL), freeing the
 * previous ones. */
void newmarks_set(new_marks *nm, prof *d, uint8_t *flags);
/* The mark of node (of the map on screen): DIFF_MARK_NEW, _GONE or _NONE. */
int newmarks_node(new_marks *nm, const struct app *a, uint32_t node);
/* The marks of every node of m, another map over the profile on screen
 * (the source pane's lines), into out (m->nnodes bytes). 0, or -1 when
 * out of memory or no diff is known. */
int newmarks_map(const new_marks *nm, const struct app *a, const prof_nodemap *m, uint8_t *out);
/* Frees the diff and the marks. */
void newmarks_free(new_marks *nm);

#endif
