/* live_strip.c - live mode's timeline strip above the table: the heap and
 * RSS of the run as bars (the whole run since the attach fitted, or zoomed
 * with z Z to a fixed time a column; = fits again), the moment's figures,
 * lost events, and the snapshots marked on the curve or said off-strip. */
#include <inttypes.h>
#include <stdio.h>

#include "tui/chrome.h"
#include "tui/live_ui.h"
#include "tui/strip.h"

#define LIVE_STRIP 3

/* The strip's zoom steps, in milliseconds a column. */
static const int64_t zoom_ms[] = { 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000, 120000, 300000, 600000,
				   1800000, 3600000 };
#define LIVE_NZOOM ((int)(sizeof(zoom_ms) / sizeof(zoom_ms[0])))

/* ---- the timeline strip ---------------------------------------------------------- */

int live_strip_height(const app *a)
{
	return a->h >= 14 && a->wd >= 40 ? LIVE_STRIP : 0;
}

/* The strip's columns: each holds per buckets, column c those from
 * origin + c * per; shown, the columns first..last (last: the moment's). */
typedef struct strip_cols {
	int64_t per, first, last;
} strip_cols;

static strip_cols strip_cols_of(const live_ui *lv, int width)
{
	const timeline *t = &lv->fu.f.tl;
	int64_t n = lv->at.k - t->origin + 1;
	strip_cols c;
	c.per = lv->zoom == LIVE_FIT ? strip_per(n, width) : zoom_ms[lv->zoom] * 1000000 / t->bucket_ns;
	c.last = (n - 1) / c.per;
	c.first = c.last - width + 1 > 0 ? c.last - width + 1 : 0;
	return c;
}

/* The column of a moment on the segment's clock (before the run: -1). */
static int64_t strip_col_of(const live_ui *lv, const strip_cols *c, int64_t ns)
{
	int64_t k = ns / lv->fu.f.tl.bucket_ns - lv->fu.f.tl.origin;
	return k < 0 ? -1 : k / c->per;
}

/* Draws the heap (or RSS) of the shown columns as bars, each the peak of
 * its buckets; the columns in which snapshots were taken are drawn in
 * reverse video, so a diff's two ends can be seen on the curve. */
static void spark(app *a, int y, int x, const strip_cols *c, int rss)
{
	const live_ui *lv = LV(a);
	const timeline *t = &lv->fu.f.tl;
	if (lv->at.k < t->origin)
		return;
	int64_t max = 0;
	for (int64_t col = c->first; col <= c->last; col++) {
		int64_t k = t->origin + col * c->per;
		tl_bucket b = tl_span(t, k, k + c->per - 1 < lv->at.k ? k + c->per - 1 : lv->at.k);
		int64_t v = rss ? b.rss : b.heap;
		if (v > max)
			max = v;
	}
	wmove(a->w, y, x);
	for (int64_t col = c->first; col <= c->last; col++) {
		int64_t k = t->origin + col * c->per;
		tl_bucket b = tl_span(t, k, k + c->per - 1 < lv->at.k ? k + c->per - 1 : lv->at.k);
		int marked = 0;
		for (int i = 0; i < lv->nsnaps && !marked; i++)
			marked = strip_col_of(lv, c, lv->snaps[i].mono_ns) == col;
		strip_bar(a, rss ? b.rss : b.heap, max,
			  (rss ? a->attr[ATTR_DIM] : a->attr[ATTR_LABEL]) | (marked ? A_REVERSE : 0));
	}
	wattrset(a->w, A_NORMAL);
}

/* "100 ms", "1.5 s", "2 min", "1 h": the time a column holds. */
static const char *fmt_span(char *buf, size_t len, int64_t ms)
{
	if (ms < 1000)
		snprintf(buf, len, "%" PRId64 " ms", ms);
	else if (ms < 60000)
		snprintf(buf, len, "%.3g s", (double)ms / 1000);
	else if (ms < 3600000)
		snprintf(buf, len, "%.3g min", (double)ms / 60000);
	else
		snprintf(buf, len, "%.3g h", (double)ms / 3600000);
	return buf;
}

/* Snapshots whose columns lie left of the strip: said at its left end, in
 * reverse video like a mark, never lost silently. */
static void off_strip_note(app *a, int y, int x, int width, const strip_cols *c)
{
	const live_ui *lv = LV(a);
	char note[200];
	size_t n = (size_t)snprintf(note, sizeof(note), "%s", a->utf8 ? "\xe2\x80\xb9" : "<");
	int off = 0;
	for (int i = 0; i < lv->nsnaps && n < sizeof(note); i++) {
		int64_t col = strip_col_of(lv, c, lv->snaps[i].mono_ns);
		if (col >= c->first || col < 0)
			continue;
		n += (size_t)snprintf(note + n, sizeof(note) - n, " #%d", lv->snaps[i].number);
		off++;
	}
	if (!off)
		return;
	if (n < sizeof(note))
		snprintf(note + n, sizeof(note) - n, " off-strip ");
	put_text(a, y, x, width / 2, note, a->attr[ATTR_LABEL] | A_REVERSE, 0);
}

void live_strip_draw(app *a)
{
	int hgt = live_strip_height(a);
	if (!hgt || a->h < 6 || a->wd < 30)
		return;
	live_ui *lv = LV(a);
	const live_moment *m = &lv->at;
	int w = a->wd - 6;
	strip_cols c = strip_cols_of(lv, w);
	char hv[32], hp[32], rv[32], rp[32], col[32], line[600];
	view_fmt_value(hv, sizeof(hv), m->heap, 0);
	view_fmt_value(hp, sizeof(hp), m->peak, 0);
	view_fmt_value(rv, sizeof(rv), m->rss, 0);
	view_fmt_value(rp, sizeof(rp), m->peak_rss, 0);
	fmt_span(col, sizeof(col), c.per * lv->fu.f.tl.bucket_ns / 1000000);
	if (lv->no_rss)
		snprintf(rv, sizeof(rv), "-");
	size_t n = (size_t)snprintf(line, sizeof(line), " heap %s (peak %s)  rss %s%s%s%s  %s%s/col", hv, hp, rv,
				    lv->no_rss ? "" : " (peak ", lv->no_rss ? "" : rp, lv->no_rss ? "" : ")",
				    lv->zoom == LIVE_FIT ? "fit " : "", col);
	if (lv->fu.f.lost_events && n < sizeof(line))
		n += (size_t)snprintf(line + n, sizeof(line) - n, "  events lost (%" PRIu64 " ring slots)", lv->fu.f.lost_events);
	for (int i = 0; i < lv->nsnaps && n < sizeof(line); i++) {
		char b[32];
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s#%d +%.1fs %s", i ? " " : "  snaps ",
				      lv->snaps[i].number, (double)lv->snaps[i].mono_ns / 1e9,
				      view_fmt_value(b, sizeof(b), lv->snaps[i].total[AGG_INUSE_BYTES], 0));
	}
	put_text(a, 2, 0, a->wd, line, A_BOLD, 1);
	put_text(a, 3, 0, 6, " heap ", A_BOLD, 1);
	spark(a, 3, 6, &c, 0);
	off_strip_note(a, 3, 6, w, &c);
	put_text(a, 4, 0, 6, " rss  ", A_BOLD, 1);
	if (lv->no_rss)
		put_text(a, 4, 6, w, "not known: a profile over HTTP carries no process RSS", a->attr[ATTR_DIM], 1);
	else
		spark(a, 4, 6, &c, 1);
}

/* z and Z: a column holds the next finer or coarser step (from the fit,
 * the steps around its width); = fits the whole run again. */
void live_zoom_key(app *a, int key)
{
	live_ui *lv = LV(a);
	view *v = &a->v;
	if (key == '=') {
		lv->zoom = LIVE_FIT;
		snprintf(v->status, sizeof(v->status), "strip: the whole run since the attach, the columns widen as it grows");
		return;
	}
	int64_t ms = strip_cols_of(lv, a->wd - 6).per * lv->fu.f.tl.bucket_ns / 1000000;
	int z = lv->zoom;
	if (z == LIVE_FIT) {   /* the step just finer (z) or coarser (Z) than the fit */
		for (z = key == 'z' ? LIVE_NZOOM - 1 : 0; z >= 0 && z < LIVE_NZOOM; z += key == 'z' ? -1 : 1)
			if (key == 'z' ? zoom_ms[z] < ms : zoom_ms[z] > ms)
				break;
	} else {
		z += key == 'z' ? -1 : 1;
	}
	if (z < 0 || z >= LIVE_NZOOM) {
		char b[32];
		snprintf(v->status, sizeof(v->status), "strip: %s a column is the %s; = fits the whole run",
			 fmt_span(b, sizeof(b), ms), key == 'z' ? "finest" : "coarsest");
		return;
	}
	lv->zoom = z;
	char b[32], span[32];
	fmt_span(b, sizeof(b), zoom_ms[z]);
	fmt_span(span, sizeof(span), zoom_ms[z] * (a->wd - 6));
	snprintf(v->status, sizeof(v->status), "strip: %s a column, the last %s; z Z zoom, = fits the whole run", b,
		 span);
}

