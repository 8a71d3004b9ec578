/* source.c - the source pane (l): the selected row's inline chain exactly
 * as `addr2line -Cif` prints it, then its source file with the line
 * highlighted and, per line, the bytes allocated there (pprof's list:
 * flat = the line is the innermost location, cum = anywhere in the stack).
 * The per-line values follow the profile on screen (a diff toggle too);
 * in a diff a line is marked NEW or GONE when its own node in a map of the
 * file's lines is (every stack through the line new, or gone). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/sym.h"
#include "tui/app_state.h"
#include "tui/chrome.h"
#include "tui/nodeinfo.h"
#include "tui/source.h"

enum { W_VAL = 9, W_LINE = 6, W_MARK = 5 };

typedef struct source_pane {
	const prof *p;           /* the profile vals were computed over */
	struct sym *sy;
	char **rows;             /* owned: chain lines, a file label, source lines */
	size_t nrows, nchain;    /* source line k (1-based) is rows[nchain + k - 1] */
	sym_line_vals *vals;     /* owned; nvals + 1 entries */
	uint8_t *marks;          /* owned: nvals + 1 entries (enum diff_mark), NULL out of a diff */
	long nvals;
	char file[1024];         /* as debug info names it */
	int line;                /* the highlighted line */
} source_pane;

static void pane_clear(source_pane *sp)
{
	for (size_t i = 0; i < sp->nrows; i++)
		free(sp->rows[i]);
	free(sp->rows);
	free(sp->vals);
	free(sp->marks);
	memset(sp, 0, sizeof(*sp));
}

void source_free(app *a)
{
	if (a->src) {
		pane_clear(a->src);
		free(a->src);
		a->src = NULL;
	}
}

static int add_row(source_pane *sp, size_t *cap, const char *s, size_t n)
{
	if (vec_grow((void **)&sp->rows, cap, sp->nrows + 1, sizeof(*sp->rows)))
		return -1;
	/* Tabs become spaces to the next multiple of 8; the rest is drawn
	 * escaped by put_text. */
	size_t tabs = 0;
	for (size_t i = 0; i < n; i++)
		tabs += s[i] == '\t';
	char *r = malloc(n + tabs * 7 + 1), *o = r;
	if (!r)
		return -1;
	for (size_t i = 0, col = 0; i < n; i++) {
		if (s[i] == '\t') {
			do
				*o++ = ' ';
			while (++col % 8);
		} else {
			*o++ = s[i];
			col++;
		}
	}
	*o = 0;
	sp->rows[sp->nrows++] = r;
	return 0;
}

/* Splits text into rows, a line each (no trailing empty row). */
static int add_lines(source_pane *sp, size_t *cap, const char *text, size_t len)
{
	size_t at = 0;
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		if (add_row(sp, cap, text + at, n))
			return -1;
		at += n + 1;
	}
	return 0;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		if (n == cap) {
			if (cap >= (64u << 20))
				break;   /* a source file bigger than 64 MiB: the start is enough */
			char *b = realloc(buf, cap * 2);
			if (!b) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = b;
			cap *= 2;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		if (!r)
			break;
		n += r;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* sp->marks: per line of the file, the mark of its node in a map of the
 * file's lines over the diff on screen (none out of a diff). 0 or -1. */
static int marks_update(app *a, source_pane *sp)
{
	prof_nodemap m;
	if (!app_in_diff(a) || !sp->nvals)
		return 0;
	if (sym_source_map(sp->sy, sp->p, sp->file, &m))
		return -1;
	uint8_t *out = malloc(m.nnodes ? m.nnodes : 1);
	sp->marks = calloc((size_t)sp->nvals + 1, 1);
	int rc = out && sp->marks ? 0 : -1;
	if (!rc && app_map_marks(a, &m, out))
		rc = 1;   /* no marks known: none drawn */
	for (uint32_t n = 0; !rc && n < m.nnodes; n++) {
		long ln = strtol(nodemap_name(&m, n), NULL, 10);
		if (ln > 0 && ln <= sp->nvals)
			sp->marks[ln] = out[n];
	}
	free(out);
	nodemap_free(&m);
	return rc < 0 ? -1 : 0;
}

static int vals_update(app *a, source_pane *sp)
{
	struct sym *sy = app_sym(a);
	if (sp->p == a->v.p && sp->sy == sy)
		return 0;
	free(sp->vals);
	free(sp->marks);
	sp->vals = NULL;
	sp->marks = NULL;
	sp->nvals = 0;
	sp->p = a->v.p;
	sp->sy = sy;
	if (!sy)
		return 0;
	long n = sym_source_lines(sy, sp->p, sp->file, &sp->vals);
	if (n < 0) {
		sp->vals = NULL;
		return -1;
	}
	sp->nvals = n;
	return marks_update(a, sp);
}

int source_open(app *a)
{
	view *v = &a->v;
	view_screen *s = view_cur(v);
	uint32_t node = view_row_node(v, s->sel);
	struct sym *sy = app_sym(a);
	if (s->kind == VIEW_SOURCE)
		return view_back(v), REACT_REDRAW;
	if (node == UINT32_MAX) {
		snprintf(v->status, sizeof(v->status), "l: no row selected");
		return REACT_REDRAW;
	}
	if (!sy) {
		snprintf(v->status, sizeof(v->status), "l: no symbols (--no-symbols): the source pane needs them");
		return REACT_REDRAW;
	}
	uint32_t frame, level = 0;
	if (!strcmp(v->gran[v->cur_gran].name, "module") || !nodeinfo_row_loc(a, s->sel, &frame, &level)[0] ||
	    frame == UINT32_MAX) {
		snprintf(v->status, sizeof(v->status), "l: no source line known for %.200s%s", view_node_name(v, node),
			 !strcmp(v->gran[v->cur_gran].name, "module") ? " (module granularity: g)" : " (no debug info)");
		return REACT_REDRAW;
	}
	const sym_info *si = sym_frame(sy, frame);
	if (!si || level >= si->nchain || !si->chain[level].file) {
		snprintf(v->status, sizeof(v->status), "l: out of memory");
		return REACT_REDRAW;
	}
	if (!a->src && !(a->src = calloc(1, sizeof(*a->src)))) {
		snprintf(v->status, sizeof(v->status), "l: out of memory");
		return REACT_REDRAW;
	}
	source_pane *sp = a->src;
	pane_clear(sp);
	size_t cap = 0;
	snprintf(sp->file, sizeof(sp->file), "%s", si->chain[level].file);
	sp->line = si->chain[level].line;
	char one[1];
	size_t clen = sym_chain_text(si, one, sizeof(one));
	char *chain = malloc(clen + 1);
	char local[4096], label[4400];
	const char *lp = sym_source_path(sy, sp->file, local, sizeof(local));
	size_t flen = 0;
	char *text = lp ? read_file(lp, &flen) : NULL;
	if (!chain)
		goto oom;
	sym_chain_text(si, chain, clen + 1);
	if (add_lines(sp, &cap, chain, strlen(chain)))
		goto oom;
	sp->nchain = sp->nrows + 1;   /* the label row is part of the head */
	if (text)
		snprintf(label, sizeof(label), "source %s%s%s", lp, strcmp(lp, sp->file) ? " for " : "",
			 strcmp(lp, sp->file) ? sp->file : "");
	else
		snprintf(label, sizeof(label), "%s: not readable here (--source-dir DIR maps build paths)", sp->file);
	if (add_row(sp, &cap, label, strlen(label)) || (text && add_lines(sp, &cap, text, flen)))
		goto oom;
	if (vals_update(a, sp))
		goto oom;
	free(chain);
	free(text);
	/* The view's rows are the source lines; the chain stays on top. */
	size_t nlines = sp->nrows - sp->nchain;
	size_t sel = sp->line > 0 && (size_t)sp->line <= nlines ? (size_t)sp->line - 1 : 0;
	if (view_open_source(v, node, nlines, sel))
		return REACT_REDRAW;
	snprintf(v->status, sizeof(v->status), "%.150s line %d%s", sp->file, sp->line,
		 text ? "" : ": source not readable");
	return REACT_REDRAW;
oom:
	free(chain);
	free(text);
	pane_clear(sp);
	snprintf(v->status, sizeof(v->status), "l: out of memory");
	return REACT_REDRAW;
}

/* Lines of the fixed head: the chain (at most half the list; its
 * outermost levels are cut first) and the file label. */
static int source_head(const app *a)
{
	const source_pane *sp = a->src;
	if (!sp || !sp->nchain)
		return 0;
	int max = a->list_h / 2 > 1 ? a->list_h / 2 : 1;
	return (int)sp->nchain < max ? (int)sp->nchain : max;
}

static void source_draw(app *a)
{
	view *v = &a->v;
	view_screen *s = view_cur(v);
	source_pane *sp = a->src;
	/* The text stands two apart from the line column, as in the rows. */
	const head_col cols[] = { { W_VAL, "flat", 0 }, { W_VAL, "cum", 0 }, { W_LINE, "line", 0 } };
	/* In a diff a column of marks keeps the code's indentation. */
	int wmark = app_in_diff(a) ? W_MARK : 0;
	head_line(a, cols, 3, " inline chain (addr2line -Cif), then the source", 0);
	if (!sp || !sp->nrows)
		return;
	if (vals_update(a, sp))
		snprintf(v->status, sizeof(v->status), "out of memory");
	/* The chain and the file label stay on top; the source scrolls below. */
	int head = source_head(a);
	for (int i = 0; i < head; i++) {
		size_t r = i + 1 == head ? sp->nchain - 1 : (size_t)i;
		put_text(a, a->list_y + i, 0, a->wd, sp->rows[r], r + 1 == sp->nchain ? a->attr[ATTR_LABEL] : A_BOLD, 1);
	}
	long h = a->list_h - head, n = (long)(sp->nrows - sp->nchain);
	long top = scroll_lines(a, (long)s->sel, n, h);
	enum agg_metric m = view_metric(v);
	const char *(*fmt)(char *, size_t, int64_t, int) = app_in_diff(a) ? fmt_delta : fmt_val;
	char b[64];
	for (long i = 0; i < h && top + i < n; i++) {
		size_t r = (size_t)(top + i);
		int yy = a->list_y + head + (int)i, sel = r == s->sel;
		line_set(a, yy, (long)r);
		long ln = (long)r + 1;
		r += sp->nchain;
		int hl = ln == sp->line;
		attr_t at = sel ? a->attr[ATTR_SEL] : hl ? A_BOLD : A_NORMAL;
		const sym_line_vals *lv = ln <= sp->nvals && sp->vals ? &sp->vals[ln] : NULL;
		int x = 0;
		int64_t fl = lv ? lv->flat[m] : 0, cu = lv ? lv->cum[m] : 0;
		put_right(a, yy, x, W_VAL, fl ? fmt(b, sizeof(b), fl, v->objects) : ".", at);
		put_text(a, yy, x + W_VAL, 1, " ", at, 1);
		x += W_VAL + 1;
		put_right(a, yy, x, W_VAL, cu ? fmt(b, sizeof(b), cu, v->objects) : ".", at);
		put_text(a, yy, x + W_VAL, 1, " ", at, 1);
		x += W_VAL + 1;
		snprintf(b, sizeof(b), "%ld", ln);
		put_right(a, yy, x, W_LINE, b, at);
		put_text(a, yy, x + W_LINE, 2, hl ? ">" : " ", at, 1);
		x += W_LINE + 2;
		if (wmark) {
			int mk = sp->marks && ln <= sp->nvals ? sp->marks[ln] : 0;
			put_text(a, yy, x, wmark, diff_mark_word(mk), at | A_BOLD, 1);
			x += wmark;
		}
		put_text(a, yy, x, a->wd - x, sp->rows[r], at, 1);
	}
}

static int source_key(app *a, int key)
{
	switch (key) {
	case 'l': case 'q': view_back(&a->v); return REACT_REDRAW;
	}
	return REACT_UNHANDLED;
}

static int source_page(const app *a)
{
	int h = a->list_h - source_head(a);
	return h > 0 ? h : 1;
}

static const keybar_item source_keys[] = {
	{ "F1", "Help " }, { "Esc", "Back " }, { "Up/Dn", "Scroll " }, { "s", "Alloc " }, { "o", "Objs " },
	{ "d", "Diff " }, { "Q", "Quit " }, { NULL, NULL },
};

const screen_ops source_ops = { "Source", source_keys, source_draw, source_key, source_page };
