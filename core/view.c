/* view.c - the view state machine: the stack of screens, their rows and
 * cursor, the metric, moving, and opening and leaving screens. The table's
 * order and focus are in view_table.c, the tree's keys in view_tree.c, the
 * granularity and hide filter in view_map.c, a changing profile in
 * view_reload.c. */
#include "core/view.h"
#include "core/view_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void view_status(view *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->status, sizeof(v->status), fmt, ap);
	va_end(ap);
}

int view_oom(view *v)
{
	view_status(v, "out of memory");
	return -1;
}

/* ---- rows of any screen ------------------------------------------------- */

const char *view_node_name(const view *v, uint32_t node)
{
	return node < v->m->nnodes ? nodemap_name(v->m, node) : "";
}

size_t view_nrows(const view *v)
{
	const view_screen *s = &v->hist[v->depth - 1];
	switch (s->kind) {
	case VIEW_TABLE: return v->nrows;
	case VIEW_PEEK: return v->cg_valid ? v->cg.ncallers_shown + 1 + v->cg.ncallees_shown : 0;
	case VIEW_TREE: return v->tree_valid ? v->tree.nvis : 0;
	case VIEW_HELP: case VIEW_SOURCE: return v->pane_rows;
	}
	return 0;
}

int view_peek_row(const view *v, size_t row, const cg_edge **e)
{
	size_t nc = v->cg.ncallers_shown;
	*e = NULL;
	if (row < nc) {
		*e = &v->cg.callers[row];
		return 0;
	}
	if (row == nc)
		return 1;
	if (row - nc - 1 < v->cg.ncallees_shown)
		*e = &v->cg.callees[row - nc - 1];
	return 2;
}

uint32_t view_row_node(const view *v, size_t row)
{
	const view_screen *s = &v->hist[v->depth - 1];
	if (row >= view_nrows(v))
		return UINT32_MAX;
	switch (s->kind) {
	case VIEW_TABLE: return v->rows[row];
	case VIEW_PEEK: {
		const cg_edge *e;
		view_peek_row(v, row, &e);
		return e ? e->node : v->cg.node;
	}
	case VIEW_TREE: return v->tree.n[v->tree.vis[row]].node;
	case VIEW_HELP: case VIEW_SOURCE: return UINT32_MAX;
	}
	return UINT32_MAX;
}

void view_clamp(view *v)
{
	view_screen *s = view_cur(v);
	size_t n = view_nrows(v);
	if (s->sel >= n)
		s->sel = n ? n - 1 : 0;
	size_t page = v->page ? v->page : 1;
	if (s->sel < s->top)
		s->top = s->sel;
	if (s->sel >= s->top + page)
		s->top = s->sel - page + 1;
	if (s->top + page > n)
		s->top = n > page ? n - page : 0;
}

view_sel view_sel_save(const view *v)
{
	const view_screen *s = &v->hist[v->depth - 1];
	view_sel k = { UINT32_MAX, 0 };
	if (s->sel >= view_nrows(v))
		return k;
	if (s->kind == VIEW_TREE) {
		k.node = v->tree.vis[s->sel];
	} else if (s->kind == VIEW_PEEK) {
		const cg_edge *e;
		k.part = view_peek_row(v, s->sel, &e);
		k.node = e ? e->node : v->cg.node;
	} else {
		k.node = view_row_node(v, s->sel);
	}
	return k;
}

void view_sel_restore(view *v, view_sel k)
{
	view_screen *s = view_cur(v);
	size_t n = view_nrows(v);
	for (size_t r = 0; k.node != UINT32_MAX && r < n; r++) {
		int hit;
		if (s->kind == VIEW_TREE) {
			hit = v->tree.vis[r] == k.node;
		} else if (s->kind == VIEW_PEEK) {
			const cg_edge *e;
			int part = view_peek_row(v, r, &e);
			hit = part == k.part && (e ? e->node : v->cg.node) == k.node;
		} else {
			hit = view_row_node(v, r) == k.node;
		}
		if (hit) {
			s->sel = r;
			break;
		}
	}
	view_clamp(v);
}

/* Brings the data of the screen on top up to date with the state. */
int view_refresh(view *v)
{
	view_screen *s = view_cur(v);
	if (s->kind == VIEW_PEEK) {
		if (!v->cg_valid || v->cg.node != s->node) {
			if (v->cg_valid)
				callgraph_free(&v->cg);
			v->cg_valid = 0;
			if (callgraph_compute(&v->cg, v->p, v->m, s->node))
				return view_oom(v);
			v->cg_valid = 1;
		}
		callgraph_sort(&v->cg, view_metric(v), view_seen_mask(v));
	} else if (s->kind == VIEW_TREE) {
		if (!v->tree_valid) {
			if (tree_build(&v->tree, v->p, v->m))
				return view_oom(v);
			v->tree_valid = 1;
		}
		if (tree_visible(&v->tree, view_metric(v), view_seen_mask(v)))
			return view_oom(v);
	}
	view_clamp(v);
	return 0;
}

int view_push(view *v, enum view_kind kind, uint32_t node)
{
	if (v->depth == VIEW_HISTORY) {
		/* Forget the oldest sub-screen; the table stays at the bottom. */
		memmove(&v->hist[1], &v->hist[2], (VIEW_HISTORY - 2) * sizeof(v->hist[0]));
		v->depth--;
	}
	view_screen *s = &v->hist[v->depth++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->node = node;
	return view_refresh(v);
}

/* ---- life cycle ---------------------------------------------------------- */

int view_init(view *v, const prof *p, const prof_nodemap *m, const agg *a, const char *path)
{
	memset(v, 0, sizeof(*v));
	v->p = p;
	v->path = path;
	v->gran[0] = (view_gran){ "address", (prof_nodemap *)m, (agg *)a, 0 };
	v->ngran = 1;
	v->m = m;
	v->a = a;
	v->sort = VIEW_SORT_FLAT;
	v->page = 20;
	v->depth = 1;
	v->hist[0].kind = VIEW_TABLE;
	if (view_rows_rebuild(v)) {
		view_free(v);
		return -1;
	}
	return 0;
}

void view_drop_hidden(view *v)
{
	if (v->hid_owned) {
		agg_free(&v->hid_a);
		nodemap_free(&v->hid_m);
		v->hid_owned = 0;
	}
}

void view_drop_derived(view *v)
{
	if (v->cg_valid)
		callgraph_free(&v->cg);
	if (v->tree_valid)
		tree_free(&v->tree);
	v->cg_valid = v->tree_valid = 0;
}

void view_free(view *v)
{
	view_drop_derived(v);
	view_drop_hidden(v);
	for (unsigned i = 0; i < v->ngran; i++)
		if (v->gran[i].owned) {
			agg_free(v->gran[i].a);
			nodemap_free(v->gran[i].m);
			free(v->gran[i].a);
			free(v->gran[i].m);
		}
	filter_clear(&v->focus);
	filter_clear(&v->hide);
	view_peak_free(v);
	free(v->rows);
	memset(v, 0, sizeof(*v));
}

/* ---- the metric, moving, opening and leaving screens --------------------- */

/* Re-derives the screen on top after a metric or order change. */
int view_resort(view *v)
{
	view_sel k = view_sel_save(v);
	if (view_rows_rebuild(v))
		return view_oom(v);
	if (view_refresh(v))
		return -1;
	view_sel_restore(v, k);
	return 0;
}

int view_toggle_objects(view *v)
{
	v->objects = !v->objects;
	return view_resort(v);
}

int view_move(view *v, long delta)
{
	view_screen *s = view_cur(v);
	size_t n = view_nrows(v);
	if (!n)
		return -1;
	long to = (long)s->sel + delta;
	s->sel = to < 0 ? 0 : (size_t)to >= n ? n - 1 : (size_t)to;
	view_clamp(v);
	return 0;
}

int view_page(view *v, int dir)
{
	view_screen *s = view_cur(v);
	size_t n = view_nrows(v);
	if (!n)
		return -1;
	/* A pager's page: the rows on screen scroll by a page, the cursor with them. */
	long page = v->page ? (long)v->page : 1;
	long to = (long)s->sel + dir * page, top = (long)s->top + dir * page;
	s->sel = to < 0 ? 0 : (size_t)to >= n ? n - 1 : (size_t)to;
	s->top = top < 0 ? 0 : (size_t)top;
	view_clamp(v);
	return 0;
}

int view_move_to(view *v, size_t row)
{
	view_screen *s = view_cur(v);
	size_t n = view_nrows(v);
	if (!n)
		return -1;
	s->sel = row >= n ? n - 1 : row;
	view_clamp(v);
	return 0;
}

int view_enter(view *v)
{
	view_screen *s = view_cur(v);
	if (s->kind == VIEW_HELP || s->kind == VIEW_SOURCE)
		return view_back(v);
	uint32_t node = view_row_node(v, s->sel);
	if (node == UINT32_MAX) {
		view_status(v, "no row selected");
		return -1;
	}
	if (s->kind == VIEW_PEEK && node == s->node) {
		view_status(v, "already centred on this node");
		return -1;
	}
	return view_push(v, VIEW_PEEK, node);
}

int view_back(view *v)
{
	if (v->depth <= 1) {
		view_status(v, "already at the main table");
		return -1;
	}
	v->depth--;
	view_sel k = view_sel_save(v);
	if (view_refresh(v))
		return -1;
	view_sel_restore(v, k);
	return 0;
}

int view_help(view *v, size_t nlines)
{
	if (view_cur(v)->kind == VIEW_HELP)
		return view_back(v);
	v->pane_rows = nlines;
	return view_push(v, VIEW_HELP, UINT32_MAX);
}

int view_open_source(view *v, uint32_t node, size_t nrows, size_t sel)
{
	if (view_cur(v)->kind == VIEW_SOURCE)
		v->depth--;   /* one source pane at a time */
	v->pane_rows = nrows;
	if (view_push(v, VIEW_SOURCE, node))
		return -1;
	view_cur(v)->sel = sel;
	/* The cursor line a third down the page, for context above it. */
	size_t page = v->page ? v->page : 1;
	view_cur(v)->top = sel > page / 3 ? sel - page / 3 : 0;
	view_clamp(v);
	return 0;
}
