/* table.c - the main screen: one row per node, flat and cum, sortable. */
#include <string.h>

#include "tui/app_state.h"
#include "tui/chrome.h"

enum { W_RANK = 5, W_VAL = 9, W_PCT = 6, W_OBJ = 8 };

static void table_draw(app *a)
{
	view *v = &a->v;
	view_screen *s = view_cur(v);
	const head_col cols[] = {
		{ W_RANK, "#", 0 },
		{ W_VAL, "flat", v->sort == VIEW_SORT_FLAT },
		{ W_PCT, "flat%", 0 },
		{ W_PCT, "sum%", 0 },
		{ W_VAL, "cum", v->sort == VIEW_SORT_CUM },
		{ W_PCT, "cum%", 0 },
		{ W_OBJ, v->objects ? "bytes" : "objects", v->sort == VIEW_SORT_OBJS },
	};
	head_line(a, cols, (int)(sizeof(cols) / sizeof(cols[0])),
		  v->sort == VIEW_SORT_NAME ? (v->reverse ? "name ^" : "name v") : "name",
		  v->sort == VIEW_SORT_NAME ? A_BOLD : 0);

	size_t n = view_nrows(v);
	if (!n) {
		const char *msg = filter_active(&v->focus) ? "No name matches the focus regex (c clears it)."
			: !v->alloc && v->a->total[AGG_ALLOC_OBJS] ? "Nothing is in use in this profile (total 0): s shows alloc space."
			: "This profile has no samples.";
		put_text(a, a->list_y + 1, 2, a->wd - 2, msg, A_BOLD, 0);
		return;
	}
	long top = scroll_lines(a, (long)s->sel, (long)n, a->list_h);
	/* A snapshot diff: signed growths, rows new since the earlier one marked. */
	int diff = app_in_diff(a);
	const char *(*fmt)(char *, size_t, int64_t, int) = diff ? fmt_delta : fmt_val;
	enum agg_metric m = view_metric(v), o = view_metric_other(v);
	int64_t total = view_total(v), sum = 0;
	for (long r = 0; r < top; r++)
		sum += v->a->v[v->rows[r]].flat[m];
	char b[64], lb[700];
	for (int i = 0; i < a->list_h && (size_t)(top + i) < n; i++) {
		long r = top + i;
		uint32_t node = v->rows[r];
		const agg_vals *av = &v->a->v[node];
		sum += av->flat[m];
		int yy = a->list_y + i, sel = (size_t)r == s->sel;
		attr_t at = sel ? a->attr[ATTR_SEL] : A_NORMAL;
		line_set(a, yy, r);
		int x = 0;
		snprintf(b, sizeof(b), "%ld", r + 1);
		put_right(a, yy, x, W_RANK, b, at);
		put_text(a, yy, x + W_RANK, 1, " ", at, 1);
		x += W_RANK + 1;
		int64_t vals[] = { av->flat[m], av->cum[m] };
		put_right(a, yy, x, W_VAL, fmt(b, sizeof(b), vals[0], v->objects), at);
		put_text(a, yy, x + W_VAL, 1, " ", at, 1);
		x += W_VAL + 1;
		put_right(a, yy, x, W_PCT, fmt_pct(b, sizeof(b), vals[0], total), at);
		put_text(a, yy, x + W_PCT, 1, " ", at, 1);
		x += W_PCT + 1;
		put_right(a, yy, x, W_PCT, fmt_pct(b, sizeof(b), sum, total), at);
		put_text(a, yy, x + W_PCT, 1, " ", at, 1);
		x += W_PCT + 1;
		put_right(a, yy, x, W_VAL, fmt(b, sizeof(b), vals[1], v->objects), at);
		put_text(a, yy, x + W_VAL, 1, " ", at, 1);
		x += W_VAL + 1;
		put_right(a, yy, x, W_PCT, fmt_pct(b, sizeof(b), vals[1], total), at);
		put_text(a, yy, x + W_PCT, 1, " ", at, 1);
		x += W_PCT + 1;
		put_right(a, yy, x, W_OBJ, fmt(b, sizeof(b), av->cum[o], !v->objects), at);
		put_text(a, yy, x + W_OBJ, 1, " ", at, 1);
		x += W_OBJ + 1;
		x += put_diff_mark(a, yy, x, node, at);
		put_text(a, yy, x, a->wd - x, row_label_fit(a, (size_t)r, a->wd - x, lb, sizeof(lb)), at, 1);
	}
}

static int table_key(app *a, int key)
{
	view *v = &a->v;
	switch (key) {
	case '\n': case '\r': case KEY_ENTER: view_enter(v); return REACT_REDRAW;
	case 'F': view_sort_by(v, VIEW_SORT_FLAT); return REACT_REDRAW;
	case 'C': view_sort_by(v, VIEW_SORT_CUM); return REACT_REDRAW;
	case '<': case ',': view_sort_step(v, -1); return REACT_REDRAW;
	case '>': case '.': view_sort_step(v, +1); return REACT_REDRAW;
	case 'r': view_sort_reverse(v); return REACT_REDRAW;
	}
	return REACT_UNHANDLED;
}

static int table_page(const app *a)
{
	return a->list_h;
}

static const keybar_item table_keys[] = {
	{ "F1", "Help " }, { "Enter", "Callers " }, { "s", "Alloc " }, { "o", "Objs " },
	{ "F", "Flat " }, { "C", "Cum " }, { "t", "Tree " }, { "l", "Source " }, { "/", "Focus " },
	{ "q", "Quit " }, { NULL, NULL },
};

const screen_ops table_ops = { "Main table", table_keys, table_draw, table_key, table_page };
