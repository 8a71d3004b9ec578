/* view.c - the view state machine: every key as a state change. */
#include "core/view.h"
#include "core/names.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const view_help_line view_help_lines[] = {
	{ "", "Screens" },
	{ "Enter", "callers/callees of the selected row (re-centres on a caller/callee)" },
	{ "t", "top-down call tree from the outermost frames" },
	{ "l", "source pane: the row's inline chain (addr2line -Cif), its file with bytes per line" },
	{ "Backspace Esc", "back to the previous screen" },
	{ "q", "back from a sub-screen; quit from the main table" },
	{ "Q", "quit from anywhere" },
	{ "? F1", "this help" },
	{ "", "What is counted" },
	{ "s", "switch in use / alloc space" },
	{ "o", "switch bytes / objects" },
	{ "g", "granularity: next of address, function, line, module (those built)" },
	{ "", "Two files (mprof-tui BASE NEW) and exports" },
	{ "d", "toggle the diff NEW - BASE on every screen (signed deltas)" },
	{ "e", "export the view: pprof, folded, skynet or native, to a file" },
	{ "", "Sorting (main table)" },
	{ "F", "sort by flat (the node is the leaf)" },
	{ "C", "sort by cum (the node is anywhere in the stack)" },
	{ "< >", "sort by the previous / next column: flat, cum, objects, name" },
	{ "r", "reverse the order" },
	{ "", "Filters (shown in the header)" },
	{ "/", "focus: table rows whose name matches a regex (smart case)" },
	{ "n N", "next / previous row matching the focus regex" },
	{ "\\ h", "hide frames matching a regex from every stack (pprof's hide)" },
	{ "c", "clear the focus and hide regexes" },
	{ "", "Call tree" },
	{ "Right +", "expand the selected node" },
	{ "Left -", "collapse it (or go to its parent)" },
	{ "*", "expand the heaviest path below the selected node" },
	{ "", "Moving" },
	{ "Up Down k j", "previous / next row" },
	{ "PgUp PgDn", "previous / next page" },
	{ "Home End", "first / last row" },
	{ "mouse", "wheel scrolls, click selects" },
	{ "", "Live mode (--attach PID, -- CMD) and writing" },
	{ "m", "take a snapshot (numbered, with its time and total)" },
	{ "d", "diff two snapshots (now counts as one): growth per row, NEW rows; d again closes" },
	{ "p", "pause / resume the updates" },
	{ "w W", "write now, a snapshot (#N FILE) or the diff: native (w) or skynet v1 (W)" },
	{ "", "Recordings (mprof-tui DIR): every screen shows the heap at the cursor" },
	{ "Left Right", "move the cursor a 100 ms bucket (Shift-Left/Right in the tree)" },
	{ "{ }", "move ten buckets" },
	{ "[ ]", "previous / next local peak" },
	{ "P", "the run's peak" },
	{ "m", "set the mark at the cursor" },
	{ "d", "growth from the mark to the cursor; d again closes" },
	{ "L", "allocations made between mark and cursor still alive at the end" },
	{ "T", "temporary allocations per stack, lifetime histogram of the row" },
};
const size_t view_help_count = sizeof(view_help_lines) / sizeof(view_help_lines[0]);

static void status(view *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->status, sizeof(v->status), fmt, ap);
	va_end(ap);
}

static int oom(view *v)
{
	status(v, "out of memory");
	return -1;
}

const char *view_sort_name(enum view_sort s)
{
	static const char *const n[] = { "flat", "cum", "objects", "name" };
	return s < VIEW_NSORT ? n[s] : "?";
}

char *view_fmt_value(char *buf, size_t len, int64_t v, int objects)
{
	if (objects) {
		snprintf(buf, len, "%lld", (long long)v);
		return buf;
	}
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double x = (double)v, a = x < 0 ? -x : x;
	int u = 0;
	if (a < 1024) {
		snprintf(buf, len, "%lld B", (long long)v);
		return buf;
	}
	while (a >= 1024 && u < 5) {
		a /= 1024;
		x /= 1024;
		u++;
	}
	snprintf(buf, len, a < 10 ? "%.2f %s" : a < 100 ? "%.1f %s" : "%.0f %s", x, unit[u]);
	return buf;
}

const char *view_node_name(const view *v, uint32_t node)
{
	return node < v->m->nnodes ? nodemap_name(v->m, node) : "";
}

/* Focus matches the name a row shows (skynet.so+0xb55d) as well as the whole one. */
static int focus_match(const view *v, uint32_t node)
{
	char sb[512];
	const char *name = nodemap_name(v->m, node);
	if (filter_match(&v->focus, name))
		return 1;
	const char *shown = name_short(v->p, name, sb, sizeof(sb));
	return shown != name && filter_match(&v->focus, shown);
}

/* ---- the table ---------------------------------------------------------- */

static int row_cmp(const void *pa, const void *pb, void *ctx)
{
	const view *v = ctx;
	uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
	const agg_vals *a = &v->a->v[x], *b = &v->a->v[y];
	int m = view_metric(v), o = view_metric_other(v);
	int64_t k[3][2];
	int nk = 0, r = 0;
	switch (v->sort) {
	case VIEW_SORT_FLAT:
		k[0][0] = a->flat[m], k[0][1] = b->flat[m];
		k[1][0] = a->cum[m], k[1][1] = b->cum[m];
		nk = 2;
		break;
	case VIEW_SORT_CUM:
		k[0][0] = a->cum[m], k[0][1] = b->cum[m];
		k[1][0] = a->flat[m], k[1][1] = b->flat[m];
		nk = 2;
		break;
	case VIEW_SORT_OBJS:
		k[0][0] = a->cum[o], k[0][1] = b->cum[o];
		k[1][0] = a->cum[m], k[1][1] = b->cum[m];
		nk = 2;
		break;
	default:
		break;
	}
	for (int i = 0; i < nk && !r; i++)
		if (k[i][0] != k[i][1])
			r = k[i][0] < k[i][1] ? 1 : -1;   /* descending */
	if (!r)
		r = strcmp(nodemap_name(v->m, x), nodemap_name(v->m, y));
	if (!r)
		r = x < y ? -1 : x > y;
	return v->reverse ? -r : r;
}

static int rows_rebuild(view *v)
{
	free(v->rows);
	v->nrows = 0;
	v->rows = malloc((v->a->nnodes ? v->a->nnodes : 1) * sizeof(*v->rows));
	if (!v->rows)
		return -1;
	uint8_t mask = view_seen_mask(v);
	for (uint32_t i = 0; i < v->a->nnodes; i++)
		if ((v->a->flags[i] & mask) && focus_match(v, i))
			v->rows[v->nrows++] = i;
	qsort_r(v->rows, v->nrows, sizeof(*v->rows), row_cmp, v);
	return 0;
}

/* ---- rows of any screen ------------------------------------------------- */

size_t view_nrows(const view *v)
{
	const view_screen *s = &v->hist[v->depth - 1];
	switch (s->kind) {
	case VIEW_TABLE: return v->nrows;
	case VIEW_PEEK: return v->cg_valid ? v->cg.ncallers_shown + 1 + v->cg.ncallees_shown : 0;
	case VIEW_TREE: return v->tree_valid ? v->tree.nvis : 0;
	case VIEW_HELP: return view_help_count;
	case VIEW_SOURCE: return v->source_rows;
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

static void clamp(view *v)
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

/* What the cursor is on, so a recomputation can put it back. */
typedef struct sel_key {
	uint32_t node;   /* table/peek: node; tree: tree index */
	int part;        /* peek: 0 caller, 1 centre, 2 callee */
} sel_key;

static sel_key sel_save(const view *v)
{
	const view_screen *s = &v->hist[v->depth - 1];
	sel_key k = { UINT32_MAX, 0 };
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

static void sel_restore(view *v, sel_key k)
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
	clamp(v);
}

/* Brings the data of the screen on top up to date with the state. */
static int refresh(view *v)
{
	view_screen *s = view_cur(v);
	if (s->kind == VIEW_PEEK) {
		if (!v->cg_valid || v->cg.node != s->node) {
			if (v->cg_valid)
				callgraph_free(&v->cg);
			v->cg_valid = 0;
			if (callgraph_compute(&v->cg, v->p, v->m, s->node))
				return oom(v);
			v->cg_valid = 1;
		}
		callgraph_sort(&v->cg, view_metric(v), view_seen_mask(v));
	} else if (s->kind == VIEW_TREE) {
		if (!v->tree_valid) {
			if (tree_build(&v->tree, v->p, v->m))
				return oom(v);
			v->tree_valid = 1;
		}
		if (tree_visible(&v->tree, view_metric(v), view_seen_mask(v)))
			return oom(v);
	}
	clamp(v);
	return 0;
}

static int push(view *v, enum view_kind kind, uint32_t node)
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
	return refresh(v);
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
	if (rows_rebuild(v)) {
		view_free(v);
		return -1;
	}
	return 0;
}

static void drop_hidden(view *v)
{
	if (v->hid_owned) {
		agg_free(&v->hid_a);
		nodemap_free(&v->hid_m);
		v->hid_owned = 0;
	}
}

static void drop_derived(view *v)
{
	if (v->cg_valid)
		callgraph_free(&v->cg);
	if (v->tree_valid)
		tree_free(&v->tree);
	v->cg_valid = v->tree_valid = 0;
}

void view_free(view *v)
{
	drop_derived(v);
	drop_hidden(v);
	for (unsigned i = 0; i < v->ngran; i++)
		if (v->gran[i].owned) {
			agg_free(v->gran[i].a);
			nodemap_free(v->gran[i].m);
			free(v->gran[i].a);
			free(v->gran[i].m);
		}
	filter_clear(&v->focus);
	filter_clear(&v->hide);
	free(v->rows);
	memset(v, 0, sizeof(*v));
}

void view_add_gran(view *v, const char *name)
{
	if (v->ngran < VIEW_MAX_GRAN)
		v->gran[v->ngran++] = (view_gran){ name, NULL, NULL, 0 };
}

void view_set_gran_builder(view *v, view_gran_fn build, void *ctx)
{
	v->gran_build = build;
	v->gran_ctx = ctx;
}

/* ---- keys ---------------------------------------------------------------- */

/* Re-derives the screen on top after a metric or order change. */
static int resort(view *v)
{
	sel_key k = sel_save(v);
	if (rows_rebuild(v))
		return oom(v);
	if (refresh(v))
		return -1;
	sel_restore(v, k);
	return 0;
}

int view_toggle_alloc(view *v)
{
	v->alloc = !v->alloc;
	return resort(v);
}

int view_toggle_objects(view *v)
{
	v->objects = !v->objects;
	return resort(v);
}

static int table_only(view *v)
{
	if (view_cur(v)->kind != VIEW_TABLE) {
		status(v, "sorting applies to the main table (callers/callees and tree are by %s)",
		       "the metric");
		return -1;
	}
	return 0;
}

int view_sort_by(view *v, enum view_sort s)
{
	if (table_only(v) || s >= VIEW_NSORT)
		return -1;
	v->sort = s;
	v->reverse = 0;
	return resort(v);
}

int view_sort_step(view *v, int dir)
{
	if (table_only(v))
		return -1;
	v->sort = (enum view_sort)(((int)v->sort + VIEW_NSORT + (dir < 0 ? -1 : 1)) % VIEW_NSORT);
	v->reverse = 0;
	return resort(v);
}

int view_sort_reverse(view *v)
{
	if (table_only(v))
		return -1;
	v->reverse = !v->reverse;
	return resort(v);
}

int view_move(view *v, long delta)
{
	view_screen *s = view_cur(v);
	size_t n = view_nrows(v);
	if (!n)
		return -1;
	long to = (long)s->sel + delta;
	s->sel = to < 0 ? 0 : (size_t)to >= n ? n - 1 : (size_t)to;
	clamp(v);
	return 0;
}

int view_move_to(view *v, size_t row)
{
	view_screen *s = view_cur(v);
	size_t n = view_nrows(v);
	if (!n)
		return -1;
	s->sel = row >= n ? n - 1 : row;
	clamp(v);
	return 0;
}

int view_enter(view *v)
{
	view_screen *s = view_cur(v);
	if (s->kind == VIEW_HELP || s->kind == VIEW_SOURCE)
		return view_back(v);
	uint32_t node = view_row_node(v, s->sel);
	if (node == UINT32_MAX) {
		status(v, "no row selected");
		return -1;
	}
	if (s->kind == VIEW_PEEK && node == s->node) {
		status(v, "already centred on this node");
		return -1;
	}
	return push(v, VIEW_PEEK, node);
}

int view_back(view *v)
{
	if (v->depth <= 1) {
		status(v, "already at the main table (q quits)");
		return -1;
	}
	v->depth--;
	sel_key k = sel_save(v);
	if (refresh(v))
		return -1;
	sel_restore(v, k);
	return 0;
}

int view_open_tree(view *v)
{
	if (view_cur(v)->kind == VIEW_TREE) {
		status(v, "already in the call tree");
		return -1;
	}
	return push(v, VIEW_TREE, UINT32_MAX);
}

static uint32_t tree_sel(view *v)
{
	view_screen *s = view_cur(v);
	if (s->kind != VIEW_TREE) {
		status(v, "expand and collapse work in the call tree (t)");
		return UINT32_MAX;
	}
	if (s->sel >= v->tree.nvis) {
		status(v, "the tree is empty");
		return UINT32_MAX;
	}
	return v->tree.vis[s->sel];
}

static void tree_select(view *v, uint32_t ti)
{
	long r = tree_row_of(&v->tree, ti);
	if (r >= 0)
		view_cur(v)->sel = (size_t)r;
	clamp(v);
}

int view_tree_expand(view *v)
{
	uint32_t ti = tree_sel(v);
	if (ti == UINT32_MAX)
		return -1;
	if (tree_expand(&v->tree, ti))
		return oom(v);
	if (!v->tree.n[ti].nkids) {
		status(v, "no callees below this node");
		return -1;
	}
	tree_select(v, ti);
	return 0;
}

int view_tree_collapse(view *v)
{
	uint32_t ti = tree_sel(v);
	if (ti == UINT32_MAX)
		return -1;
	tree_node *x = &v->tree.n[ti];
	if (x->expanded && x->nkids) {
		tree_collapse(&v->tree, ti);
		tree_select(v, ti);
		return 0;
	}
	if (x->parent == 0 || x->parent == UINT32_MAX) {
		status(v, "at the top level");
		return -1;
	}
	tree_select(v, x->parent);
	return 0;
}

int view_tree_heaviest(view *v)
{
	uint32_t ti = view_cur(v)->kind == VIEW_TREE && v->tree.nvis ? tree_sel(v) : 0;
	if (view_cur(v)->kind != VIEW_TREE)
		return (void)tree_sel(v), -1;
	uint32_t deep = tree_expand_heaviest(&v->tree, ti);
	if (deep == UINT32_MAX)
		return oom(v);
	tree_select(v, deep);
	return 0;
}

static int apply_hide(view *v)
{
	drop_derived(v);
	drop_hidden(v);
	view_gran *g = &v->gran[v->cur_gran];
	v->m = g->m;
	v->a = g->a;
	if (filter_active(&v->hide)) {
		if (filter_hide_map(&v->hid_m, g->m, &v->hide))
			return oom(v);
		if (agg_hide(&v->hid_a, g->a, v->p, &v->hid_m)) {
			nodemap_free(&v->hid_m);
			return oom(v);
		}
		v->hid_owned = 1;
		v->m = &v->hid_m;
		v->a = &v->hid_a;
	}
	return 0;
}

/* After the map or aggregate changed: the tree's indices are stale, so tree
 * screens start again at the top; peek centres keep their node ids. */
static int remap(view *v)
{
	sel_key k = sel_save(v);
	for (int i = 0; i < v->depth; i++)
		if (v->hist[i].kind == VIEW_TREE)
			v->hist[i].sel = v->hist[i].top = 0;
	if (rows_rebuild(v))
		return oom(v);
	if (refresh(v))
		return -1;
	if (view_cur(v)->kind != VIEW_TREE)
		sel_restore(v, k);
	return 0;
}

int view_filter_set(view *v, const char *re)
{
	if (filter_set(&v->focus, re, v->status, sizeof(v->status)))
		return -1;
	sel_key k = sel_save(v);
	if (rows_rebuild(v))
		return oom(v);
	sel_restore(v, k);
	if (filter_active(&v->focus))
		status(v, "focus /%s/: %zu rows match", v->focus.pattern, v->nrows);
	return 0;
}

int view_hide_set(view *v, const char *re)
{
	if (filter_set(&v->hide, re, v->status, sizeof(v->status)))
		return -1;
	if (apply_hide(v) || remap(v))
		return -1;
	return 0;
}

int view_filters_clear(view *v)
{
	if (!filter_active(&v->focus) && !filter_active(&v->hide)) {
		status(v, "no focus or hide regex to clear");
		return -1;
	}
	int had_hide = filter_active(&v->hide);
	filter_clear(&v->focus);
	filter_clear(&v->hide);
	if (had_hide)
		return apply_hide(v) || remap(v) ? -1 : 0;
	sel_key k = sel_save(v);
	if (rows_rebuild(v))
		return oom(v);
	sel_restore(v, k);
	return 0;
}

int view_next_match(view *v, int dir)
{
	if (!filter_active(&v->focus)) {
		status(v, "no focus regex: press / first");
		return -1;
	}
	view_screen *s = view_cur(v);
	size_t n = view_nrows(v);
	for (size_t i = 1; i <= n; i++) {
		size_t r = (s->sel + n + (dir < 0 ? n - i : i)) % n;
		uint32_t node = view_row_node(v, r);
		if (node != UINT32_MAX && focus_match(v, node)) {
			s->sel = r;
			clamp(v);
			return 0;
		}
	}
	status(v, "no row matches /%s/", v->focus.pattern);
	return -1;
}

int view_gran_next(view *v)
{
	if (v->ngran <= 1) {
		status(v, "granularity: only %s is available", v->gran[0].name);
		return -1;
	}
	unsigned idx = (v->cur_gran + 1) % v->ngran;
	view_gran *g = &v->gran[idx];
	if (!g->m) {
		char err[VIEW_STATUS_LEN] = "no builder";
		prof_nodemap *m = calloc(1, sizeof(*m));
		agg *a = calloc(1, sizeof(*a));
		if (!m || !a || !v->gran_build ||
		    v->gran_build(v->gran_ctx, idx, v->p, m, err, sizeof(err))) {
			free(m);
			free(a);
			status(v, "granularity %s: %s", g->name, err);
			return -1;
		}
		if (agg_compute(a, v->p, m)) {
			nodemap_free(m);
			free(m);
			free(a);
			return oom(v);
		}
		g->m = m;
		g->a = a;
		g->owned = 1;
	}
	/* Node ids differ between maps: keep the selected name, reset history. */
	const char *was = NULL;
	uint32_t node = view_cur(v)->kind == VIEW_TABLE ? view_row_node(v, view_cur(v)->sel) : UINT32_MAX;
	char *name = node != UINT32_MAX ? strdup(view_node_name(v, node)) : NULL;
	was = name;
	v->cur_gran = idx;
	v->depth = 1;
	memset(&v->hist[0], 0, sizeof(v->hist[0]));
	if (apply_hide(v) || rows_rebuild(v)) {
		free(name);
		return oom(v);
	}
	for (size_t r = 0; was && r < v->nrows; r++)
		if (!strcmp(view_node_name(v, v->rows[r]), was)) {
			v->hist[0].sel = r;
			break;
		}
	free(name);
	clamp(v);
	status(v, "granularity: %s", g->name);
	return 0;
}

int view_help(view *v)
{
	if (view_cur(v)->kind == VIEW_HELP)
		return view_back(v);
	return push(v, VIEW_HELP, UINT32_MAX);
}

int view_open_source(view *v, uint32_t node, size_t nrows, size_t sel)
{
	if (view_cur(v)->kind == VIEW_SOURCE)
		v->depth--;   /* one source pane at a time */
	v->source_rows = nrows;
	if (push(v, VIEW_SOURCE, node))
		return -1;
	view_cur(v)->sel = sel;
	/* The cursor line a third down the page, for context above it. */
	size_t page = v->page ? v->page : 1;
	view_cur(v)->top = sel > page / 3 ? sel - page / 3 : 0;
	clamp(v);
	return 0;
}

int view_unavailable(view *v, int key)
{
	const char *what = key == 'd' ? "diff" : key == 'm' ? "snapshot" : key == 'p' ? "pause"
		: key == 'w' ? "write .pro" : key == 'l' ? "live" : "this key";
	status(v, "'%c' (%s): not available in this mode", key, what);
	return -1;
}

/* ---- a profile that changes under the view (live mode) -------------------- */

static uint32_t node_by_name(const view *v, const char *name)
{
	for (uint32_t n = 0; name && n < v->m->nnodes; n++)
		if (!strcmp(nodemap_name(v->m, n), name))
			return n;
	return UINT32_MAX;
}

/* A tree path as node names joined by '\x1f', root first; the caller frees. */
static char *tree_path(const view *v, uint32_t ti)
{
	size_t len = 1;
	for (uint32_t i = ti; i && i != UINT32_MAX; i = v->tree.n[i].parent)
		len += strlen(view_node_name(v, v->tree.n[i].node)) + 1;
	char *s = malloc(len);
	if (!s)
		return NULL;
	size_t at = len - 1;
	s[at] = 0;
	for (uint32_t i = ti; i && i != UINT32_MAX; i = v->tree.n[i].parent) {
		const char *nm = view_node_name(v, v->tree.n[i].node);
		size_t n = strlen(nm);
		if (at < len - 1)
			s[--at] = '\x1f';
		at -= n;
		memcpy(s + at, nm, n);
	}
	return s;
}

/* Expands the tree along path (see tree_path); the tree index reached, 0
 * (the root) when the first step is not found. */
static uint32_t tree_follow(view *v, const char *path)
{
	uint32_t ti = 0;
	while (*path) {
		size_t n = strcspn(path, "\x1f");
		if (tree_expand(&v->tree, ti))
			return ti;
		uint32_t next = UINT32_MAX;
		for (uint32_t k = 0; k < v->tree.n[ti].nkids; k++) {
			uint32_t c = v->tree.n[ti].kids[k];
			const char *nm = view_node_name(v, v->tree.n[c].node);
			if (strlen(nm) == n && !memcmp(nm, path, n)) {
				next = c;
				break;
			}
		}
		if (next == UINT32_MAX)
			return ti;
		ti = next;
		path += n + (path[n] ? 1 : 0);
	}
	return ti;
}

int view_reload(view *v, const prof *p, int frames_changed)
{
	if (!v->gran_build) {
		status(v, "this view cannot reload");
		return -1;
	}
	/* What the screens show, by name. */
	char *centre[VIEW_HISTORY] = { 0 }, *tsel = NULL, *top_sel = NULL;
	char **expanded = NULL;
	size_t nexp = 0;
	int top_part = 0, rc = 0;
	view_screen *cur = view_cur(v);
	for (int i = 1; i < v->depth; i++)
		if (v->hist[i].kind == VIEW_PEEK || v->hist[i].kind == VIEW_SOURCE)
			centre[i] = strdup(view_node_name(v, v->hist[i].node));
	if (v->hist[0].sel < v->nrows)
		tsel = strdup(view_node_name(v, v->rows[v->hist[0].sel]));
	if (cur->kind == VIEW_TREE && v->tree_valid) {
		expanded = calloc(v->tree.len ? v->tree.len : 1, sizeof(*expanded));
		for (uint32_t i = 1; expanded && i < v->tree.len; i++)
			if (v->tree.n[i].expanded && v->tree.n[i].nkids)
				expanded[nexp++] = tree_path(v, i);
		if (cur->sel < v->tree.nvis)
			top_sel = tree_path(v, v->tree.vis[cur->sel]);
	} else if (cur->kind == VIEW_PEEK && v->cg_valid) {
		sel_key k = sel_save(v);
		top_part = k.part;
		if (k.node != UINT32_MAX)
			top_sel = strdup(view_node_name(v, k.node));
	}

	/* New data: maps (if frames changed) and the current aggregate. */
	drop_derived(v);
	drop_hidden(v);
	v->p = p;
	for (unsigned i = 0; i < v->ngran; i++) {
		view_gran *g = &v->gran[i];
		int keep_map = g->owned && !frames_changed && i == v->cur_gran;
		if (g->owned) {
			agg_free(g->a);
			if (!keep_map) {
				nodemap_free(g->m);
				free(g->m);
				free(g->a);
			}
		}
		if (!keep_map)
			*g = (view_gran){ g->name, NULL, NULL, 0 };
	}
	view_gran *g = &v->gran[v->cur_gran];
	char err[VIEW_STATUS_LEN] = "";
	if (!g->m) {
		g->m = calloc(1, sizeof(*g->m));
		g->a = calloc(1, sizeof(*g->a));
		if (!g->m || !g->a || v->gran_build(v->gran_ctx, v->cur_gran, p, g->m, err, sizeof(err))) {
			free(g->m);
			free(g->a);
			g->m = NULL;
			g->a = NULL;
			rc = -1;
			goto out;
		}
		g->owned = 1;
	}
	if (agg_compute(g->a, p, g->m)) {
		nodemap_free(g->m);
		free(g->m);
		free(g->a);
		*g = (view_gran){ g->name, NULL, NULL, 0 };
		rc = -1;
		goto out;
	}
	if (apply_hide(v) || rows_rebuild(v)) {
		rc = -1;
		goto out;
	}

	/* Put the screens back. */
	for (int i = 1; i < v->depth; i++) {
		if (v->hist[i].kind == VIEW_SOURCE) {   /* its text stays; the node may go */
			v->hist[i].node = node_by_name(v, centre[i]);
			continue;
		}
		if (v->hist[i].kind != VIEW_PEEK)
			continue;
		uint32_t n = node_by_name(v, centre[i]);
		if (n == UINT32_MAX) {
			status(v, "%s: no longer in the profile", centre[i] ? centre[i] : "?");
			v->depth = i;
			break;
		}
		v->hist[i].node = n;
	}
	for (size_t r = 0; tsel && r < v->nrows; r++)
		if (!strcmp(view_node_name(v, v->rows[r]), tsel)) {
			v->hist[0].sel = r;
			break;
		}
	cur = view_cur(v);
	if (refresh(v)) {
		rc = -1;
		goto out;
	}
	if (cur->kind == VIEW_TREE && v->tree_valid && (expanded || top_sel)) {
		for (size_t i = 0; i < nexp; i++)
			if (expanded[i])
				tree_follow(v, expanded[i]);
		uint32_t ti = top_sel ? tree_follow(v, top_sel) : 0;
		/* tree_follow expands its target too: keep the user's choice. */
		if (ti && top_sel) {
			int was_open = 0;
			for (size_t i = 0; i < nexp; i++)
				if (expanded[i] && !strcmp(expanded[i], top_sel))
					was_open = 1;
			if (!was_open)
				tree_collapse(&v->tree, ti);
		}
		if (tree_visible(&v->tree, view_metric(v), view_seen_mask(v))) {
			rc = -1;
			goto out;
		}
		if (ti)
			tree_select(v, ti);
	} else if (cur->kind == VIEW_PEEK && top_sel) {
		sel_restore(v, (sel_key){ node_by_name(v, top_sel), top_part });
	}
	clamp(v);
	for (int i = 0; i < v->depth; i++) {   /* lower screens: keep in range */
		size_t n = i == 0 ? v->nrows : SIZE_MAX;
		if (v->hist[i].sel >= n)
			v->hist[i].sel = n ? n - 1 : 0;
	}
out:
	if (rc && !v->status[0])
		status(v, "reloading: %s", err[0] ? err : "out of memory");
	if (rc) {   /* leave a consistent (empty) table rather than stale maps */
		v->depth = 1;
		memset(&v->hist[0], 0, sizeof(v->hist[0]));
	}
	for (int i = 0; i < VIEW_HISTORY; i++)
		free(centre[i]);
	for (size_t i = 0; i < nexp; i++)
		free(expanded[i]);
	free(expanded);
	free(tsel);
	free(top_sel);
	return rc;
}
