/* view_int.h - what the view's files share and nobody else calls: the
 * status line, the screen stack's upkeep and the derived data's life. */
#ifndef MPROF_VIEW_INT_H
#define MPROF_VIEW_INT_H

#include "core/view.h"

/* What the cursor is on, so a recomputation can put it back. */
typedef struct view_sel {
	uint32_t node;   /* table/peek: node; tree: tree index */
	int part;        /* peek: 0 caller, 1 centre, 2 callee */
} view_sel;

/* view.c: the status line (printf format), and "out of memory" with -1. */
void view_status(view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int view_oom(view *v);
/* view.c: keeps the cursor on a row and on the page. */
void view_clamp(view *v);
view_sel view_sel_save(const view *v);
void view_sel_restore(view *v, view_sel k);
/* view.c: brings the screen on top up to date with the state; pushes a
 * screen and brings it up; re-derives it after a metric or order change.
 * 0, or -1 with the status set. */
int view_refresh(view *v);
int view_push(view *v, enum view_kind kind, uint32_t node);
int view_resort(view *v);
/* view.c: drops the peek and tree data (stale after a map change), and the
 * map and aggregate owned for the hide filter. */
void view_drop_derived(view *v);
void view_drop_hidden(view *v);
/* view_table.c: the table's rows for the metric, order and focus. 0 or -1
 * (ENOMEM). */
int view_rows_rebuild(view *v);
/* view_tree.c: puts the cursor on tree index ti. */
void view_tree_select(view *v, uint32_t ti);
/* view_map.c: sets v->m and v->a to the granularity's, or to owned copies
 * with the hidden frames dropped. 0, or -1 with the status set. */
int view_apply_hide(view *v);
/* view_peak.c: p, or its at-peak copy while v->peak is on (view_reload
 * shows that); view_peak_free drops the copy and the mode. */
const prof *view_peak_of(view *v, const prof *p);
void view_peak_free(view *v);

#endif
