/* chrome.c - what surrounds every screen: the two title lines, the status
 * line, htop's one-line key bar, colours (off with NO_COLOR) and the text
 * helpers that cut long names with an ellipsis. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/diff_marks.h"
#include "core/names.h"
#include "core/report.h"
#include "tui/app_state.h"
#include "tui/chrome.h"
#include "tui/nodeinfo.h"

void chrome_init_attrs(app *a)
{
	const char *nc = getenv("NO_COLOR");
	int color = has_colors() && !(nc && *nc);
	a->attr[ATTR_TITLE] = A_REVERSE | A_BOLD;
	a->attr[ATTR_HEAD] = A_REVERSE;
	a->attr[ATTR_SEL] = A_REVERSE;
	a->attr[ATTR_KEY] = A_BOLD;
	a->attr[ATTR_KEYLABEL] = A_REVERSE;
	a->attr[ATTR_STATUS] = A_BOLD;
	a->attr[ATTR_LABEL] = A_BOLD | A_UNDERLINE;
	a->attr[ATTR_MATCH] = A_BOLD;
	a->attr[ATTR_DIM] = A_DIM;
	if (!color)
		return;
	start_color();
	use_default_colors();
	init_pair(1, COLOR_BLACK, COLOR_CYAN);
	init_pair(2, COLOR_BLACK, COLOR_GREEN);
	init_pair(3, COLOR_YELLOW, -1);
	init_pair(4, COLOR_CYAN, -1);
	a->attr[ATTR_TITLE] = COLOR_PAIR(1) | A_BOLD;
	a->attr[ATTR_HEAD] = COLOR_PAIR(2);
	a->attr[ATTR_SEL] = COLOR_PAIR(1);
	a->attr[ATTR_KEY] = A_BOLD;
	a->attr[ATTR_KEYLABEL] = COLOR_PAIR(1);
	a->attr[ATTR_STATUS] = COLOR_PAIR(3) | A_BOLD;
	a->attr[ATTR_LABEL] = COLOR_PAIR(4) | A_BOLD;
	a->attr[ATTR_MATCH] = COLOR_PAIR(3) | A_BOLD;
}

/* Appends the text one character stands for: the character itself when it
 * prints, else \xNN per byte (escape sequences, control and invalid bytes
 * from a profile never reach the terminal raw). Returns its columns. */
static int char_text(const char *s, size_t n, wchar_t wc, int valid, char *out, size_t *olen)
{
	int cw = valid ? wcwidth(wc) : -1;
	if (valid && cw >= 0 && wc >= 0x20 && !(wc >= 0x7f && wc < 0xa0)) {
		memcpy(out, s, n);
		*olen = n;
		return cw;
	}
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		out[4 * i] = '\\';
		out[4 * i + 1] = 'x';
		out[4 * i + 2] = hex[c >> 4];
		out[4 * i + 3] = hex[c & 15];
	}
	*olen = 4 * n;
	return (int)(4 * n);
}

int put_text(app *a, int y, int x, int width, const char *s, attr_t at, int pad)
{
	if (width <= 0 || y < 0 || y >= a->h)
		return 0;
	/* Walk the characters to find how many fit in width columns, building
	 * the escaped text as we go. */
	char shown[2048];
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	size_t len = strlen(s), off = 0, olen = 0, fit = 0;
	int cols = 0, fitcols = 0, over = 0;
	while (off < len) {
		wchar_t wc = 0;
		size_t n = mbrtowc(&wc, s + off, len - off, &st);
		int valid = 1;
		if (n == (size_t)-1 || n == (size_t)-2) {
			memset(&st, 0, sizeof(st));
			n = 1;
			valid = 0;
		} else if (n == 0) {
			break;
		}
		char piece[4 * MB_LEN_MAX + 8];
		size_t plen;
		int cw = char_text(s + off, n, wc, valid, piece, &plen);
		if (cols + cw > width || olen + plen >= sizeof(shown)) {
			over = 1;
			break;
		}
		memcpy(shown + olen, piece, plen);
		olen += plen;
		cols += cw;
		off += n;
		if (cols <= width - 1) {
			fit = olen;
			fitcols = cols;
		}
	}
	wattrset(a->w, at);
	if (over) {
		/* Cut one column early to leave room for the ellipsis. */
		mvwaddnstr(a->w, y, x, shown, (int)fit);
		waddstr(a->w, a->utf8 ? "\xe2\x80\xa6" : "~");
		cols = fitcols + 1;
	} else {
		mvwaddnstr(a->w, y, x, shown, (int)olen);
	}
	if (pad)
		for (; cols < width; cols++)
			waddch(a->w, ' ');
	wattrset(a->w, A_NORMAL);
	return cols;
}

void put_right(app *a, int y, int x, int width, const char *s, attr_t at)
{
	int n = (int)strlen(s);   /* numbers and headers: ASCII or one glyph */
	if (n > width)
		n = width;
	wattrset(a->w, at);
	for (int i = 0; i < width - n; i++)
		mvwaddch(a->w, y, x + i, ' ');
	mvwaddnstr(a->w, y, x + width - n, s, n);
	wattrset(a->w, A_NORMAL);
}

const char *fmt_val(char *buf, size_t len, int64_t v, int objects)
{
	return view_fmt_value(buf, len, v, objects);
}

const char *fmt_delta(char *buf, size_t len, int64_t v, int objects)
{
	char t[40];
	view_fmt_value(t, sizeof(t), v, objects);
	snprintf(buf, len, "%s%.39s", v > 0 ? "+" : "", t);
	return buf;
}

const char *fmt_pct(char *buf, size_t len, int64_t v, int64_t total)
{
	if (!total)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", (double)v * 100.0 / (double)total);
	return buf;
}

/* name with, at function granularity, the row's place in the source. */
static const char *label_of(app *a, size_t row, const char *name, char *buf, size_t len)
{
	view *v = &a->v;
	if (strcmp(v->gran[v->cur_gran].name, "function"))
		return name;
	const char *loc = nodeinfo_row_loc(a, row, NULL, NULL);
	if (!loc[0])
		return name;
	snprintf(buf, len, "%s  %s", name, loc);
	return buf;
}

const char *row_label(app *a, size_t row, char *buf, size_t len)
{
	return label_of(a, row, view_node_name(&a->v, view_row_node(&a->v, row)), buf, len);
}

const char *diff_mark_word(int mark)
{
	return mark == DIFF_MARK_NEW ? "NEW " : mark == DIFF_MARK_GONE ? "GONE " : "";
}

int put_diff_mark(app *a, int y, int x, uint32_t node, attr_t at)
{
	const char *w = diff_mark_word(app_node_mark(a, node));
	if (!*w)
		return 0;
	return put_text(a, y, x, (int)strlen(w), w, at | A_BOLD, 1);
}

const char *row_label_fit(app *a, size_t row, int width, char *buf, size_t len)
{
	char sb[512], lb[1024];
	const char *name = name_short(a->v.p, view_node_name(&a->v, view_row_node(&a->v, row)), sb, sizeof(sb));
	const char *r = name_fit(label_of(a, row, name, lb, sizeof(lb)), width, a->utf8 ? "\xe2\x80\xa6" : "~", buf, len);
	if (r != buf)   /* sb and lb end with this call */
		snprintf(buf, len, "%s", r);
	return buf;
}

void line_set(app *a, int y, long row)
{
	if (y >= 0 && y < a->line_row_n)
		a->line_row[y] = (int)row;
}

void head_line(app *a, const head_col *cols, int n, const char *title, attr_t title_attr)
{
	int y = a->list_y - 1, x = 0;
	attr_t at = a->attr[ATTR_HEAD];
	wattrset(a->w, at);
	mvwhline(a->w, y, 0, ' ', a->wd);
	for (int i = 0; i < n; i++) {
		const head_col *c = &cols[i];
		if (c->sorted) {
			put_right(a, y, x, c->width - 1, c->label, at | A_BOLD);
			const char *arrow = a->v.reverse ? (a->utf8 ? "\xe2\x96\xb2" : "^") : (a->utf8 ? "\xe2\x96\xbc" : "v");
			put_text(a, y, x + c->width - 1, 1, arrow, at | A_BOLD, 0);
		} else {
			put_right(a, y, x, c->width, c->label, at);
		}
		x += c->width + 1;
	}
	put_text(a, y, x, a->wd - x, title, at | title_attr, 1);
}

long scroll_lines(app *a, long sel_line, long nlines, long h)
{
	view_screen *s = view_cur(&a->v);
	long top = (long)s->top;
	if (sel_line < top)
		top = sel_line;
	if (sel_line >= top + h)
		top = sel_line - h + 1;
	if (top + h > nlines)
		top = nlines > h ? nlines - h : 0;
	if (top < 0)
		top = 0;
	s->top = (size_t)top;
	return top;
}

/* Stacks cut at the hook's depth limit; counted again only when the profile changes. */
static size_t title_truncated(const prof *p)
{
	static const prof *cp;
	static size_t clen = SIZE_MAX, cframes, cnt;
	if (!p)
		return 0;
	if (p != cp || p->stacks.len != clen || p->stack_frames.len != cframes) {
		cp = p;
		clen = p->stacks.len;
		cframes = p->stack_frames.len;
		cnt = prof_truncated_stacks(p);
	}
	return cnt;
}

static void draw_title(app *a, const screen_ops *ops)
{
	view *v = &a->v;
	char total[32], other[32], line[512];
	int64_t t = view_total(v), to = v->a->total[view_metric_other(v)];
	const char *(*fmt)(char *, size_t, int64_t, int) = app_in_diff(a) ? fmt_delta : fmt_val;
	fmt(total, sizeof(total), t, v->objects);
	fmt(other, sizeof(other), to, !v->objects);
	/* The mode's state first, the path last: a long one is what gets cut at 80 columns. */
	const char *state = a->mode && a->mode->title_state ? a->mode->title_state(a) : "";
	/* Sampled counts are estimates: the title says so, with the rate. */
	char est[64] = "", rate[32];
	if (v->p && v->p->meta.scale > 1 && v->p->meta.scale < 1.8e19) {
		report_rate(rate, sizeof(rate), (uint64_t)v->p->meta.scale);
		snprintf(est, sizeof(est), "  ESTIMATES (1 sample per %s)", rate);
	}
	/* Cum percentages of cut stacks stop at their [truncated] root: the title says how many. */
	char cut[48] = "";
	size_t nt = title_truncated(v->p);
	if (nt)
		snprintf(cut, sizeof(cut), "  %zu stack%s [truncated]", nt, nt == 1 ? "" : "s");
	snprintf(line, sizeof(line), " mprof  %.200s%s%s %s  total %s (%s %s)%s%s  granularity %s  %s", state,
		 *state ? "  " : "", v->peak ? "at peak" : v->alloc ? "alloc" : "in use", v->objects ? "objects" : "bytes",
		 total, other, v->objects ? "bytes" : "objects", est, cut, v->gran[v->cur_gran].name, v->path);
	put_text(a, 0, 0, a->wd, line, a->attr[ATTR_TITLE], 1);

	char sub[512];
	size_t n = 0;
	const char *arrow = v->reverse ? (a->utf8 ? "\xe2\x96\xb2" : "^") : (a->utf8 ? "\xe2\x96\xbc" : "v");
	if (view_cur(v)->kind == VIEW_TABLE)
		n += (size_t)snprintf(sub + n, sizeof(sub) - n, " %s  sort %s%s", ops->name,
				      view_sort_name(v->sort), arrow);
	else if (view_cur(v)->kind == VIEW_PEEK || view_cur(v)->kind == VIEW_SOURCE)
		n += (size_t)snprintf(sub + n, sizeof(sub) - n, " %s of %s", ops->name,
				      view_node_name(v, view_cur(v)->node));
	else
		n += (size_t)snprintf(sub + n, sizeof(sub) - n, " %s", ops->name);
	if (filter_active(&v->focus) && n < sizeof(sub))
		n += (size_t)snprintf(sub + n, sizeof(sub) - n, "  focus /%s/", v->focus.pattern);
	if (filter_active(&v->hide) && n < sizeof(sub))
		n += (size_t)snprintf(sub + n, sizeof(sub) - n, "  hide \\%s\\", v->hide.pattern);
	if (v->depth > 1 && n < sizeof(sub))
		n += (size_t)snprintf(sub + n, sizeof(sub) - n, "  [depth %d]", v->depth);
	if (v->p && n + 2 < sizeof(sub) && prof_peak_text(v->p, sub + n + 2, sizeof(sub) - n - 2))
		sub[n] = sub[n + 1] = ' ';   /* when the heap was highest, in every mode */
	if (v->p && v->p->go.have && (n = strlen(sub)) + 2 < sizeof(sub)) {   /* a Go profile's runtime.MemStats */
		n += (size_t)snprintf(sub + n, sizeof(sub) - n, "  ");
		gomem_title(&v->p->go, sub + n, sizeof(sub) - n);
	}
	put_text(a, 1, 0, a->wd, sub, A_BOLD, 1);
}

static void draw_status(app *a)
{
	view *v = &a->v;
	int y = a->h - 2;
	if (y < 2)
		return;
	if (v->status[0]) {
		put_text(a, y, 0, a->wd, v->status, a->attr[ATTR_STATUS], 1);
		return;
	}
	/* Otherwise the selected row's whole name: the table cuts long ones;
	 * a mode may keep a note (a program's output file) at the right. */
	size_t sel = view_cur(v)->sel;
	char lb[700];
	const char *name = view_row_node(v, sel) != UINT32_MAX ? row_label(a, sel, lb, sizeof(lb)) : "";
	const char *note = a->mode && a->mode->status_note ? a->mode->status_note(a) : "";
	/* A strip the terminal is too small for is said to be hidden, not just gone. */
	if (a->mode && a->mode->strip_draw && a->mode->strip_height && !a->mode->strip_height(a))
		note = "timeline hidden (< 14x40)";
	int nw = note[0] ? (int)strlen(note) + 2 : 0;
	if (nw > a->wd / 2)
		nw = a->wd / 2;
	put_text(a, y, 0, a->wd - nw, name, a->attr[ATTR_DIM], 1);
	if (nw)
		put_text(a, y, a->wd - nw, nw, note, a->attr[ATTR_STATUS], 1);
}

static void draw_keybar(app *a, const screen_ops *ops)
{
	int y = a->h - 1, x = 0;
	wmove(a->w, y, 0);
	wclrtoeol(a->w);
	/* The screen's first key (help), the mode's keys, then the screen's others. */
	const keybar_item *mk = a->mode ? a->mode->keys : NULL;
	const keybar_item *parts[3][2] = { { ops->keys, ops->keys && ops->keys->key ? ops->keys + 1 : ops->keys },
					   { mk, NULL }, { ops->keys && ops->keys->key ? ops->keys + 1 : NULL, NULL } };
	for (int p = 0; p < 3; p++)
		for (const keybar_item *k = parts[p][0]; k && k->key && k != parts[p][1] && x < a->wd; k++) {
			int kw = (int)strlen(k->key), lw = (int)strlen(k->label);
			if (x + kw + lw > a->wd)
				break;
			x += put_text(a, y, x, kw, k->key, a->attr[ATTR_KEY], 0);
			x += put_text(a, y, x, lw, k->label, a->attr[ATTR_KEYLABEL], 0);
		}
	if (x < a->wd)
		put_text(a, y, x, a->wd - x, "", a->attr[ATTR_KEYLABEL], 1);
}

void chrome_draw(app *a, const screen_ops *ops)
{
	draw_title(a, ops);
	draw_status(a);
	draw_keybar(a, ops);
}
