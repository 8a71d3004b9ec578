/* view.h - the analyzer's view state and every operation on it, with no
 * terminal: metric, sort, granularity, focus/hide filters, the screens'
 * navigation history with selection and scroll. The TUI draws what is here
 * and maps its keys onto these calls (key letters and help text are its
 * own); tests call them directly. */
#ifndef MPROF_VIEW_H
#define MPROF_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "core/agg.h"
#include "core/callgraph.h"
#include "core/filter.h"
#include "core/tree.h"

enum view_kind { VIEW_TABLE, VIEW_PEEK, VIEW_TREE, VIEW_HELP, VIEW_SOURCE };

/* Sortable columns of the table, in view_sort_step's order. */
enum view_sort { VIEW_SORT_FLAT, VIEW_SORT_CUM, VIEW_SORT_OBJS, VIEW_SORT_NAME, VIEW_NSORT };

#define VIEW_HISTORY 64
#define VIEW_MAX_GRAN 4
#define VIEW_STATUS_LEN 256

/* One screen in the history: what it shows and where its cursor is. */
typedef struct view_screen {
	enum view_kind kind;
	uint32_t node;      /* PEEK: the centre node; SOURCE: the row's node */
	size_t sel, top;    /* selected row, first row drawn */
} view_screen;

/* Builds the node map of granularity idx (0 = address) for p into *m; fills
 * *m and returns 0, or returns -1 with a reason in err. */
typedef int (*view_gran_fn)(void *ctx, unsigned idx, const prof *p, prof_nodemap *m,
			    char *err, size_t errlen);

typedef struct view_gran {
	const char *name;
	prof_nodemap *m;    /* NULL until built */
	agg *a;
	int owned;          /* built here: freed by view_free */
} view_gran;

typedef struct view {
	const prof *p;      /* borrowed */
	const char *path;   /* borrowed: shown in the header */
	view_gran gran[VIEW_MAX_GRAN];
	unsigned ngran, cur_gran;
	view_gran_fn gran_build;
	void *gran_ctx;
	/* The map and aggregate in use: the granularity's, or owned copies
	 * with the hidden frames dropped. */
	const prof_nodemap *m;
	const agg *a;
	prof_nodemap hid_m;
	agg hid_a;
	int hid_owned;

	int alloc, objects;           /* the metric */
	int peak;                     /* at peak: p is peak_p, peak_src's counters at the peak */
	prof peak_p;                  /* peak_src's frames and stacks, samples owned (view_peak.c) */
	const prof *peak_src;
	enum view_sort sort;
	int reverse;
	int by_change;                /* a diff: the biggest change first, shrink or growth */
	name_filter focus, hide;

	uint32_t *rows;               /* the table's node ids, owned */
	size_t nrows;
	callgraph cg;                 /* the current peek screen's */
	int cg_valid;
	calltree tree;
	int tree_valid;

	view_screen hist[VIEW_HISTORY];
	int depth;                    /* hist[depth - 1] is on screen */
	size_t page;                  /* rows per page, set by the drawer */
	size_t pane_rows;             /* HELP, SOURCE: lines of the pane, set by its opener */
	char status[VIEW_STATUS_LEN]; /* one-line message; "" for none */
} view;

/* Opens the table over m/a (borrowed, granularity "address") of p. Returns
 * 0 or -1 (ENOMEM). Free with view_free. */
int view_init(view *v, const prof *p, const prof_nodemap *m, const agg *a, const char *path);
void view_free(view *v);
/* Declares more granularities (view_gran_next cycles them); build makes
 * their maps. */
void view_add_gran(view *v, const char *name);
void view_set_gran_builder(view *v, view_gran_fn build, void *ctx);

static inline view_screen *view_cur(view *v)
{
	return &v->hist[v->depth - 1];
}
static inline enum agg_metric view_metric(const view *v)
{
	return agg_metric_of(v->alloc, v->objects);
}
/* The other unit of the same mode (objects for bytes and back). */
static inline enum agg_metric view_metric_other(const view *v)
{
	return agg_metric_of(v->alloc, !v->objects);
}
static inline uint8_t view_seen_mask(const view *v)
{
	return v->alloc ? AGG_SEEN_ALLOC : AGG_SEEN_INUSE;
}
static inline int64_t view_total(const view *v)
{
	return v->a->total[view_metric(v)];
}

/* Rows of the screen on top, and the node of a row (UINT32_MAX: none). */
size_t view_nrows(const view *v);
uint32_t view_row_node(const view *v, size_t row);
const char *view_node_name(const view *v, uint32_t node);
/* PEEK: row -> 0 caller, 1 centre, 2 callee; the edge through *e if any. */
int view_peek_row(const view *v, size_t row, const cg_edge **e);

/* Operations (the TUI's keys map onto them). Each returns 0, or -1 with
 * v->status saying why nothing changed. */
int view_toggle_alloc(view *v);                    /* in use -> alloc (-> at peak, when p has one) -> in use */
int view_toggle_objects(view *v);                  /* bytes <-> objects */
int view_sort_by(view *v, enum view_sort s);       /* the table by a column */
int view_sort_step(view *v, int dir);              /* previous (-1) / next (+1) column */
int view_sort_reverse(view *v);
/* The table of a diff orders by the size of the change (on), or by value;
 * re-sorts when that changes, the cursor on the top row.  0, or -1 on ENOMEM. */
int view_sort_by_change(view *v, int on);
int view_move(view *v, long delta);                /* rows up (<0) or down */
int view_page(view *v, int dir);                /* PgDn (1), PgUp (-1): a page */
int view_move_to(view *v, size_t row);             /* SIZE_MAX: the last */
int view_enter(view *v);                           /* peek at the row */
int view_back(view *v);                            /* the previous screen */
int view_open_tree(view *v);
int view_tree_expand(view *v);
int view_tree_collapse(view *v);                   /* or up to the parent */
int view_tree_heaviest(view *v);                   /* expand the heaviest path */
int view_filter_set(view *v, const char *re);      /* focus: rows matching re */
int view_hide_set(view *v, const char *re);        /* hide frames matching re */
int view_filters_clear(view *v);                   /* focus and hide */
int view_next_match(view *v, int dir);             /* next (+1) / previous (-1) focus match */
int view_gran_next(view *v);
/* The help screen of nlines lines (the TUI's text); on it: back. */
int view_help(view *v, size_t nlines);
/* The source pane of node, nrows lines (the caller's text), the cursor on
 * line sel. */
int view_open_source(view *v, uint32_t node, size_t nrows, size_t sel);

/* The profile under the view changed (a live refresh, a switch to or from
 * a snapshot diff): p (borrowed) replaces it. Needs the builder: with
 * frames_changed every node map is rebuilt through it, otherwise only the
 * current granularity's aggregate is recomputed (the others are dropped and
 * rebuilt when chosen). Screens keep their place: selections and peek
 * centres by node name (a centre that is gone closes its screens), the tree
 * its expanded paths. 0, or -1 with v->status set. */
int view_reload(view *v, const prof *p, int frames_changed);

/* Formats a value in human units ("2.81 KiB", "32 B") or, for objects, as a
 * plain count, into buf; returns buf. */
char *view_fmt_value(char *buf, size_t len, int64_t v, int objects);
const char *view_sort_name(enum view_sort s);

#endif
