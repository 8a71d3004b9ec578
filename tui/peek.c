/* peek.c - callers above, the node in the middle, callees below. */
#include <string.h>

#include "tui/app_state.h"
#include "tui/chrome.h"
#include "tui/nodeinfo.h"

enum { W_VAL = 9, W_PCT = 6, W_OBJ = 8 };

/* The list line of row r: a label line precedes callers and callees. */
static long line_of(const view *v, long r)
{
	return r <= (long)v->cg.ncallers_shown ? r + 1 : r + 2;
}

static void peek_row(app *a, int yy, long r, int sel)
{
	view *v = &a->v;
	const cg_edge *e;
	int part = view_peek_row(v, (size_t)r, &e);
	enum agg_metric m = view_metric(v), o = view_metric_other(v);
	int64_t val = e ? e->v[m] : v->cg.cum[m];
	int64_t oval = e ? e->v[o] : v->cg.cum[o];
	attr_t at = sel ? a->attr[ATTR_SEL] : part == 1 ? A_BOLD : A_NORMAL;
	char b[64], name[900], lb[700];
	int x = 0;
	line_set(a, yy, r);
	/* A snapshot diff: growths carry their sign. */
	const char *(*fmt)(char *, size_t, int64_t, int) = app_in_diff(a) ? fmt_delta : fmt_val;
	put_right(a, yy, x, W_VAL, fmt(b, sizeof(b), val, v->objects), at);
	put_text(a, yy, x + W_VAL, 1, " ", at, 1);
	x += W_VAL + 1;
	put_right(a, yy, x, W_PCT, fmt_pct(b, sizeof(b), val, view_total(v)), at);
	put_text(a, yy, x + W_PCT, 1, " ", at, 1);
	x += W_PCT + 1;
	put_right(a, yy, x, W_PCT, fmt_pct(b, sizeof(b), val, v->cg.cum[m]), at);
	put_text(a, yy, x + W_PCT, 1, " ", at, 1);
	x += W_PCT + 1;
	put_right(a, yy, x, W_OBJ, fmt(b, sizeof(b), oval, !v->objects), at);
	put_text(a, yy, x + W_OBJ, 1, " ", at, 1);
	x += W_OBJ + 1;
	/* The arrow (the node) or the indent (a caller, a callee), a NEW or GONE
	 * mark in a diff, then the name. */
	x += put_text(a, yy, x, a->wd - x, part == 1 ? (a->utf8 ? "\xe2\x96\xb6 " : "> ") : "    ", at, 0);
	if (part == 1 || e)
		x += put_diff_mark(a, yy, x, part == 1 ? v->cg.node : e->node, at);
	if (part == 1) {
		char flat[32];
		fmt(flat, sizeof(flat), v->cg.flat[m], v->objects);
		int w = a->wd - x - (int)strlen(flat) - 9;   /* "  (flat )" */
		snprintf(name, sizeof(name), "%s  (flat %s)", row_label_fit(a, (size_t)r, w, lb, sizeof(lb)), flat);
	} else {
		/* An inlined call: the callee's code is inside the caller's. */
		int inl = e && (part == 0 ? nodeinfo_inline_edge(a, v->cg.node, e->node)
				: nodeinfo_inline_edge(a, e->node, v->cg.node));
		int w = a->wd - x - (inl ? 10 : 0);   /* "  (inline)" */
		snprintf(name, sizeof(name), "%s%s", e ? row_label_fit(a, (size_t)r, w, lb, sizeof(lb)) : "",
			 inl ? "  (inline)" : "");
	}
	put_text(a, yy, x, a->wd - x, name, at, 1);
}

static void peek_draw(app *a)
{
	view *v = &a->v;
	view_screen *s = view_cur(v);
	const head_col cols[] = { { W_VAL, v->objects ? "objects" : "bytes", 0 }, { W_PCT, "total%", 0 },
				  { W_PCT, "node%", 0 }, { W_OBJ, v->objects ? "bytes" : "objects", 0 } };
	head_line(a, cols, 4, "name", 0);

	if (!v->cg_valid)
		return;
	size_t nc = v->cg.ncallers_shown, ne = v->cg.ncallees_shown, n = nc + 1 + ne;
	long nlines = (long)n + 2;
	long top = scroll_lines(a, s->sel == 0 ? 0 : line_of(v, (long)s->sel), nlines, a->list_h);
	for (int i = 0; i < a->list_h; i++) {
		long l = top + i;
		int yy = a->list_y + i;
		if (l >= nlines)
			break;
		if (l == 0) {
			put_text(a, yy, 0, a->wd, nc ? "callers (how much reaches it through each)"
					       : "callers: none (an outermost frame)", a->attr[ATTR_LABEL], 0);
			continue;
		}
		if (l == (long)nc + 2) {
			put_text(a, yy, 0, a->wd, ne ? "callees (cum through each)" : "callees: none (it is a leaf)",
				 a->attr[ATTR_LABEL], 0);
			continue;
		}
		long r = l <= (long)nc + 1 ? l - 1 : l - 2;
		peek_row(a, yy, r, (size_t)r == s->sel);
	}
}

static int peek_key(app *a, int key)
{
	switch (key) {
	case '\n': case '\r': case KEY_ENTER: view_enter(&a->v); return REACT_REDRAW;
	}
	return REACT_UNHANDLED;
}

static int peek_page(const app *a)
{
	return a->list_h > 3 ? a->list_h - 2 : 1;
}

static const keybar_item peek_keys[] = {
	{ "F1", "Help " }, { "Enter", "Recentre " }, { "Esc", "Back " }, { "s", "Alloc " },
	{ "o", "Objs " }, { "t", "Tree " }, { "/", "Focus " }, { "q", "Back " }, { NULL, NULL },
};

const screen_ops peek_ops = { "Callers/callees", peek_keys, peek_draw, peek_key, peek_page };
