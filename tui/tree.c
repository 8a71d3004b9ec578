/* tree.c - the top-down call tree, expandable per node. */
#include <string.h>

#include "tui/app_state.h"
#include "tui/chrome.h"

enum { W_VAL = 9, W_PCT = 6 };

static void tree_draw(app *a)
{
	view *v = &a->v;
	view_screen *s = view_cur(v);
	const head_col cols[] = { { W_VAL, "cum", 0 }, { W_PCT, "cum%", 0 }, { W_VAL, "flat", 0 }, { W_PCT, "flat%", 0 } };
	head_line(a, cols, 4, "call path (outermost first)", 0);
	size_t n = view_nrows(v);
	if (!n) {
		put_text(a, a->list_y + 1, 2, a->wd - 2, v->alloc ? "This profile has no samples."
				: "Nothing is in use in this profile: s shows alloc space.", A_BOLD, 0);
		return;
	}
	long top = scroll_lines(a, (long)s->sel, (long)n, a->list_h);
	enum agg_metric m = view_metric(v);
	int64_t total = view_total(v);
	const char *(*fmt)(char *, size_t, int64_t, int) = app_in_diff(a) ? fmt_delta : fmt_val;
	char b[64], name[900], lb[700];
	for (int i = 0; i < a->list_h && (size_t)(top + i) < n; i++) {
		long r = top + i;
		const tree_node *t = &v->tree.n[v->tree.vis[r]];
		int yy = a->list_y + i;
		attr_t at = (size_t)r == s->sel ? a->attr[ATTR_SEL] : A_NORMAL;
		line_set(a, yy, r);
		int x = 0;
		put_right(a, yy, x, W_VAL, fmt(b, sizeof(b), t->cum[m], v->objects), at);
		put_text(a, yy, x + W_VAL, 1, " ", at, 1);
		x += W_VAL + 1;
		put_right(a, yy, x, W_PCT, fmt_pct(b, sizeof(b), t->cum[m], total), at);
		put_text(a, yy, x + W_PCT, 1, " ", at, 1);
		x += W_PCT + 1;
		put_right(a, yy, x, W_VAL, fmt(b, sizeof(b), t->flat[m], v->objects), at);
		put_text(a, yy, x + W_VAL, 1, " ", at, 1);
		x += W_VAL + 1;
		put_right(a, yy, x, W_PCT, fmt_pct(b, sizeof(b), t->flat[m], total), at);
		put_text(a, yy, x + W_PCT, 1, " ", at, 1);
		x += W_PCT + 1;
		/* A leaf: every sample through the path ends here. */
		int leaf = t->built ? !t->nkids
			: t->cum[AGG_ALLOC_OBJS] == t->flat[AGG_ALLOC_OBJS] && t->cum[AGG_ALLOC_BYTES] == t->flat[AGG_ALLOC_BYTES];
		const char *mark = leaf ? " " : t->expanded ? (a->utf8 ? "\xe2\x96\xbe" : "-")
							    : (a->utf8 ? "\xe2\x96\xb8" : "+");
		int ind = (int)t->depth;
		if (ind > 40)
			ind = 40;
		snprintf(name, sizeof(name), "%*s%s ", ind, "", mark);
		x += put_text(a, yy, x, a->wd - x, name, at, 0);
		x += put_diff_mark(a, yy, x, t->node, at);
		put_text(a, yy, x, a->wd - x, row_label_fit(a, (size_t)r, a->wd - x, lb, sizeof(lb)), at, 1);
	}
}

static int tree_key(app *a, int key)
{
	view *v = &a->v;
	switch (key) {
	case KEY_RIGHT: case '+': view_tree_expand(v); return REACT_REDRAW;
	case KEY_LEFT: case '-': view_tree_collapse(v); return REACT_REDRAW;
	case '*': view_tree_heaviest(v); return REACT_REDRAW;
	case '\n': case '\r': case KEY_ENTER: view_enter(v); return REACT_REDRAW;
	}
	return REACT_UNHANDLED;
}

static int tree_page(const app *a)
{
	return a->list_h;
}

static const keybar_item tree_keys[] = {
	{ "F1", "Help " }, { "->", "Expand " }, { "<-", "Collapse " },
	{ "*", "Heaviest " }, { "Enter", "Callers " }, { "s", "Alloc " }, { "Esc", "Back " },
	{ NULL, NULL },
};

const screen_ops tree_ops = { "Call tree (top-down)", tree_keys, tree_draw, tree_key, tree_page };
