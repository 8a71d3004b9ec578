/* rec_ui.c - mprof-tui DIR: a recording on the screens of file mode. A
 * timeline strip of the whole run (100 ms buckets, local peaks, the global
 * peak marked) with a cursor; every screen shows the heap at the cursor's
 * moment (the local peak of its bucket). Keys (the tree keeps Left/Right
 * for itself; Shift-Left/Right work there):
 *   Left/Right  a bucket back/forward      { }  ten buckets
 *   [ ]         the previous/next local peak    P   the run's peak
 *   Home End    the start / the end of the run
 *   m           mark the cursor's moment
 *   d           growth from the mark to the cursor (again: back)
 *   L           allocations made between the mark and the cursor still
 *               alive at the end of the recording (again: back)
 *   T           temporary allocations (freed before the next allocation)
 *               per stack, with the lifetime histogram of the selected row */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/snapdiff.h"
#include "symbols/sym.h"
#include "tui/app.h"
#include "tui/app_view.h"
#include "tui/chrome.h"
#include "tui/missing_syms.h"
#include "tui/newmarks.h"
#include "tui/rec.h"
#include "tui/rec_text.h"
#include "tui/strip.h"

#define REC_STRIP 4

enum rec_mode { RM_STATE, RM_DIFF, RM_LEAKS, RM_TEMP };

typedef struct rec_ui {
	recording *r;
	sym *sy;                 /* over r->p: its frames never change */
	size_t cur, mark;        /* buckets (0 .. r->ntl - 1) */
	int at_end;              /* End: the cursor shows the run's last moment, not its bucket's peak */
	int marked;
	enum rec_mode mode;
	new_marks marks;         /* the diff, leaks or temporaries on screen (marks.d) */
	rec_life *life;          /* computed on the first T; owned */
	int state_alloc, state_objects; /* the metric of the heap view, kept while L/T/d show theirs */
	char state[300];         /* the title's start: pid and what is shown (AT, DIFF ...) */
	char title[800];
} rec_ui;

static rec_ui *RU(const app *a)
{
	return a->mode_data;
}

static double bucket_s(const recording *r, size_t i)
{
	return (double)(r->first_bucket + (int64_t)i) * REC_BUCKET_NS / 1e9;
}

static size_t peak_bucket(const recording *r)
{
	int64_t k = (int64_t)(r->peak_time / REC_BUCKET_NS) - r->first_bucket;
	return k < 0 ? 0 : (size_t)k >= r->ntl ? r->ntl - 1 : (size_t)k;
}

/* The moment the cursor shows: the end of the run after End; else its
 * bucket's peak, which is the bucket's start when nothing in the bucket
 * went higher (the heap then is as the last event before it left it). */
static double shown_s(const rec_ui *u)
{
	const recording *r = u->r;
	if (u->at_end)
		return (double)r->cur_time / 1e9;   /* rec_seek_end's: the run's end */
	double start = bucket_s(r, u->cur), t = (double)r->cur_time / 1e9;
	return t < start ? start : t;
}

static void title_update(app *a)
{
	rec_ui *u = RU(a);
	recording *r = u->r;
	char est[120] = "", m[120] = "";
	if (r->sample_rate)
		snprintf(est, sizeof(est), "  ESTIMATES (1 sample per %" PRIu64 " B)", r->sample_rate);
	const char *cl = prof_strat(r->p, r->p->meta.cmdline);
	switch (u->mode) {
	case RM_DIFF:
		snprintf(m, sizeof(m), "DIFF %.1f s -> %.1f s  ", bucket_s(r, u->mark), bucket_s(r, u->cur));
		break;
	case RM_LEAKS:
		snprintf(m, sizeof(m), "ALIVE AT END, made %.1f s .. %.1f s  ", bucket_s(r, u->mark < u->cur ? u->mark : u->cur),
			 bucket_s(r, (u->mark < u->cur ? u->cur : u->mark)) + 0.1);
		break;
	case RM_TEMP:
		snprintf(m, sizeof(m), "TEMPORARY allocations  ");
		break;
	default:
		snprintf(m, sizeof(m), "AT %.3f s%s  ", shown_s(u), u->at_end ? " (END)" : "");
		break;
	}
	snprintf(u->state, sizeof(u->state), "recording pid %d  %s", r->pid, m);
	for (size_t n = strlen(u->state); n && u->state[n - 1] == ' '; n--)
		u->state[n - 1] = 0;
	snprintf(u->title, sizeof(u->title), "%.300s%s", cl ? cl : r->dir, est);
	a->v.path = u->title;
}

/* Puts the moment of the cursor (or the mode's profile) under the view. */
static void rec_show(app *a, int frames_changed)
{
	rec_ui *u = RU(a);
	recording *r = u->r;
	prof_error err;
	prof *d = NULL;
	uint8_t *flags = NULL;
	uint64_t ev = u->at_end ? r->end_ev : r->tl[u->cur].peak_ev, mev = r->tl[u->mark].peak_ev;
	if (u->mode == RM_DIFF) {
		snap sa, sb;
		uint64_t lo = mev < ev ? mev : ev, hi = mev < ev ? ev : mev;
		rec_seek(r, lo);
		int bad = snap_take(&sa, r->p, 1, 0, (int64_t)r->cur_time);
		rec_seek(r, hi);
		if (!bad && !snap_take(&sb, r->p, 2, 0, (int64_t)r->cur_time)) {
			d = snap_delta(r->p, &sa, &sb, &flags, &err);
			snap_free(&sb);
		}
		if (!bad)
			snap_free(&sa);
	} else if (u->mode == RM_LEAKS) {
		/* The window holds both buckets whole: start of the earlier, end of the later. */
		size_t lo = u->mark < u->cur ? u->mark : u->cur, hi = u->mark < u->cur ? u->cur : u->mark;
		int64_t t0 = (r->first_bucket + (int64_t)lo) * REC_BUCKET_NS - 1;
		uint64_t from = t0 < 0 ? r->first_ev : rec_ev_at(r, (uint64_t)t0);
		uint64_t to = rec_ev_at(r, (uint64_t)((r->first_bucket + (int64_t)hi + 1) * REC_BUCKET_NS - 1));
		d = rec_leaks(r, from, to, &err);
		rec_seek(r, ev);
	} else if (u->mode == RM_TEMP) {
		d = rec_temp_prof(r, u->life, &err);
	} else if (u->at_end) {
		rec_seek_end(r);
	} else {
		rec_seek(r, ev);
	}
	if (u->mode != RM_STATE && !d) {
		snprintf(a->v.status, sizeof(a->v.status), "out of memory");
		u->mode = RM_STATE;
		rec_seek(r, ev);
	}
	view_reload(&a->v, d ? d : r->p, frames_changed);
	newmarks_set(&u->marks, d, flags);
	title_update(a);
}

static int is_local_peak(const recording *r, size_t i)
{
	int64_t v = r->tl[i].peak;
	return (i == 0 || v > r->tl[i - 1].peak) && (i + 1 == r->ntl || v >= r->tl[i + 1].peak);
}

/* The cursor to bucket i, or (end) to the run's last moment, in the last bucket. */
static void move_cursor(app *a, long i, int end)
{
	rec_ui *u = RU(a);
	recording *r = u->r;
	if (end || i >= (long)r->ntl)
		i = (long)r->ntl - 1;
	if (i < 0)
		i = 0;
	u->cur = (size_t)i;
	u->at_end = end;
	if (u->mode != RM_TEMP)
		rec_show(a, 0);
	if (u->mode != RM_STATE)
		return;
	char v[40];
	double t = shown_s(u), start = bucket_s(r, u->cur);
	bytes_fmt(v, sizeof(v), r->cur_inuse);
	if (end)
		snprintf(a->v.status, sizeof(a->v.status), "at %.3f s, %s in use: the end of the run (bucket %.1f s)", t, v,
			 start);
	else if ((double)r->cur_time / 1e9 < start)
		snprintf(a->v.status, sizeof(a->v.status), "at %.3f s, %s in use: nothing in bucket %.1f s went higher "
			 "(the heap as it was since %.3f s)", t, v, start, (double)r->cur_time / 1e9);
	else
		snprintf(a->v.status, sizeof(a->v.status), "at %.3f s, %s in use: the peak of bucket %.1f s%s", t, v, start,
			 u->cur == peak_bucket(r) ? "  -- the run's PEAK" : "");
}

static void move_to(app *a, long i)
{
	move_cursor(a, i, 0);
}

static int toggle(app *a, enum rec_mode m)
{
	rec_ui *u = RU(a);
	view *v = &a->v;
	if (u->mode == m) {
		u->mode = RM_STATE;
		v->alloc = u->state_alloc;
		v->objects = u->state_objects;
		rec_show(a, 1);
		snprintf(v->status, sizeof(v->status), "back to the heap at the cursor");
		return REACT_REDRAW;
	}
	if (m == RM_TEMP && !u->life) {
		u->life = rec_lifetimes(u->r, 1, 0);
		if (!u->life) {
			snprintf(v->status, sizeof(v->status), "out of memory");
			return REACT_REDRAW;
		}
	}
	if (u->mode == RM_STATE) {
		u->state_alloc = v->alloc;
		u->state_objects = v->objects;
	}
	u->mode = m;
	v->alloc = m == RM_TEMP || m == RM_LEAKS;
	v->objects = 0;
	v->sort = VIEW_SORT_FLAT;
	v->depth = 1;
	rec_show(a, 1);
	v->hist[0].sel = v->hist[0].top = 0;
	if (m == RM_DIFF)
		snprintf(v->status, sizeof(v->status), "growth from the mark (%.1f s) to the cursor; move the cursor, d closes",
			 bucket_s(u->r, u->mark));
	else if (m == RM_LEAKS)
		snprintf(v->status, sizeof(v->status), "made between the mark and the cursor, alive at the end; L closes");
	else
		snprintf(v->status, sizeof(v->status), "temporary: freed before any other allocation; histogram of the "
			 "selected row above; T closes");
	return REACT_REDRAW;
}

static int rec_key(app *a, int key)
{
	rec_ui *u = RU(a);
	recording *r = u->r;
	int tree = a->v.hist[a->v.depth - 1].kind == VIEW_TREE;
	switch (key) {
	case KEY_LEFT: if (tree) return REACT_UNHANDLED; /* fall through */
	case KEY_SLEFT: move_to(a, (long)u->cur - 1); break;
	case KEY_RIGHT: if (tree) return REACT_UNHANDLED; /* fall through */
	case KEY_SRIGHT: move_to(a, (long)u->cur + 1); break;
	case '{': move_to(a, (long)u->cur - 10); break;
	case '}': move_to(a, (long)u->cur + 10); break;
	case '[': case ']': {
		long i = (long)u->cur, step = key == '[' ? -1 : 1;
		for (i += step; i >= 0 && (size_t)i < r->ntl && !is_local_peak(r, (size_t)i); i += step)
			;
		if (i < 0 || (size_t)i >= r->ntl) {
			snprintf(a->v.status, sizeof(a->v.status), "no local peak %s", key == '[' ? "before" : "after");
			break;
		}
		move_to(a, i);
		break;
	}
	case 'P': move_to(a, (long)peak_bucket(r)); break;
	case KEY_HOME: move_to(a, 0); break;                   /* time, not rows: the start */
	case KEY_END: move_cursor(a, (long)r->ntl - 1, 1); break;   /* and the end: its last moment */
	case 'm':
		u->mark = u->cur;
		u->marked = 1;
		if (u->mode == RM_DIFF || u->mode == RM_LEAKS)
			rec_show(a, 0);
		snprintf(a->v.status, sizeof(a->v.status), "mark at %.1f s: d diffs it with the cursor, L lists what was "
			 "made between them and is alive at the end", bucket_s(r, u->mark));
		break;
	case 'd': return toggle(a, RM_DIFF);
	case 'L': return toggle(a, RM_LEAKS);
	case 'T': return toggle(a, RM_TEMP);
	default: return REACT_UNHANDLED;
	}
	return REACT_REDRAW;
}

static const char *rec_title_state(const app *a)
{
	return RU(a)->state;
}

static int rec_in_diff(const app *a)
{
	return RU(a)->mode == RM_DIFF;
}

static new_marks *rec_marks(app *a)
{
	return &RU(a)->marks;
}

static int rec_strip_height(const app *a)
{
	return a->h >= 14 && a->wd >= 40 ? REC_STRIP : 0;
}

/* The lifetime histogram of the stacks through the selected node. */
static void hist_line(app *a, char *buf, size_t len)
{
	rec_ui *u = RU(a);
	recording *r = u->r;
	uint64_t h[REC_HIST_BINS] = { 0 };
	uint32_t node = view_row_node(&a->v, a->v.hist[a->v.depth - 1].sel);
	const prof_nodemap *m = a->v.m;
	const prof *p = r->p;
	for (size_t k = 0; node != UINT32_MAX && k < p->samples.len; k++) {
		const prof_stack *st = &p->stacks.v[p->samples.v[k].stack];
		const uint32_t *fr = prof_stack_frames(p, p->samples.v[k].stack);
		int in = 0;
		for (uint32_t d = 0; d < st->depth && !in; d++)
			for (uint32_t j = m->off[fr[d]]; j < m->off[fr[d] + 1]; j++)
				in |= m->nodes[j] == node;
		if (!in)
			continue;
		const rec_life *l = &u->life[r->id_of[k]];
		for (int b = 0; b < REC_HIST_BINS; b++)
			h[b] += l->hist[b];
	}
	size_t n = (size_t)snprintf(buf, len, " lifetimes:");
	int last = REC_HIST_BINS - 1;
	while (last > 0 && !h[last])
		last--;
	for (int b = 0; b <= last && n < len; b++) {
		if (!b)
			n += (size_t)snprintf(buf + n, len - n, " <1ms:%" PRIu64, h[0]);
		else
			n += (size_t)snprintf(buf + n, len - n, " >=%" PRIu64 "ms:%" PRIu64, rec_hist_low_ms(b), h[b]);
	}
}

static void rec_strip_draw(app *a)
{
	int hgt = rec_strip_height(a);
	if (!hgt)
		return;
	rec_ui *u = RU(a);
	recording *r = u->r;
	/* The whole run at any width: a column holds per buckets (their highest). */
	size_t per = (size_t)strip_per((int64_t)r->ntl, a->wd > 1 ? a->wd - 1 : 1);
	size_t ncol = (r->ntl + per - 1) / per;
	int64_t max = 1;
	for (size_t i = 0; i < r->ntl; i++)
		if (r->tl[i].peak > max)
			max = r->tl[i].peak;
	char line[800], pk[32], cv[32];
	size_t pb = peak_bucket(r);
	snprintf(line, sizeof(line), " cursor %.1f s: %s   PEAK %s at %.3f s   mark %s%.1f s%s%s",
		 bucket_s(r, u->cur), view_fmt_value(cv, sizeof(cv), u->at_end && u->mode == RM_STATE ? r->cur_inuse : r->tl[u->cur].peak, 0),
		 view_fmt_value(pk, sizeof(pk), r->peak, 0), (double)r->peak_time / 1e9, u->marked ? "" : "(start) ",
		 bucket_s(r, u->mark), r->wait_count ? "   producer waited" : "", r->lost ? "   EVENTS LOST" : "");
	put_text(a, 2, 0, a->wd, line, A_BOLD, 1);
	wmove(a->w, 3, 1);
	for (size_t c = 0; c < ncol; c++) {
		int64_t v = 0;
		for (size_t i = c * per; i < (c + 1) * per && i < r->ntl; i++)
			if (r->tl[i].peak > v)
				v = r->tl[i].peak;
		strip_bar(a, v, max, c == u->cur / per ? a->attr[ATTR_SEL] : a->attr[ATTR_LABEL]);
	}
	wattrset(a->w, A_NORMAL);
	/* Markers: ^ cursor, P the peak, m the mark, w where the producer waited. */
	char mk[1024];
	size_t n = ncol < sizeof(mk) - 2 ? ncol : sizeof(mk) - 2;
	memset(mk, ' ', n + 1);
	mk[n + 1] = 0;
	for (size_t i = 0; i < r->nwaits; i++) {
		int64_t k = (int64_t)(r->waits[i].time_ns / REC_BUCKET_NS) - r->first_bucket;
		if (k >= 0 && (size_t)k / per < n)
			mk[(size_t)k / per + 1] = 'w';
	}
	if (u->marked && u->mark / per < n)
		mk[u->mark / per + 1] = 'm';
	if (pb / per < n)
		mk[pb / per + 1] = 'P';
	if (u->cur / per < n)
		mk[u->cur / per + 1] = '^';
	put_text(a, 4, 0, a->wd, mk, a->attr[ATTR_DIM], 1);
	if (u->mode == RM_TEMP && u->life) {
		hist_line(a, line, sizeof(line));
		put_text(a, 5, 0, a->wd, line, A_BOLD, 1);
	} else {
		char col[40] = "";
		if (per > 1)
			snprintf(col, sizeof(col), " (%.1f s a column)", (double)per * REC_BUCKET_NS / 1e9);
		snprintf(line, sizeof(line), " %.1f s .. %.1f s%s   Left/Right [ ] P Home/End  m mark  d diff  L alive at end  T temporary",
			 bucket_s(r, 0), bucket_s(r, r->ntl - 1) + 0.1, col);
		put_text(a, 5, 0, a->wd, line, a->attr[ATTR_DIM], 1);
	}
}

/* Frees what the mode holds; the recording is its caller's. */
static void rec_free(app *a)
{
	rec_ui *u = RU(a);
	newmarks_free(&u->marks);
	free(u->life);
	sym_close(u->sy);
	memset(u, 0, sizeof(*u));
	a->mode_data = NULL;
}

const mode_ops rec_mode = {
	.name = "recording",
	.key = rec_key,
	.strip_height = rec_strip_height,
	.strip_draw = rec_strip_draw,
	.in_diff = rec_in_diff,
	.title_state = rec_title_state,
	.marks = rec_marks,
	.free = rec_free,
};

int tui_rec(recording *r, const rec_opts *o)
{
	static app a;
	static rec_ui u;
	memset(&a, 0, sizeof(a));
	memset(&u, 0, sizeof(u));
	u.r = r;
	sym_opts so = o->so;
	u.sy = so.no_symbols && o->gran == SYM_GRAN_ADDRESS ? NULL : sym_open(r->p, &so);
	u.cur = peak_bucket(r);   /* open on the peak: the first question */
	rec_seek(r, r->tl[u.cur].peak_ev);
	a.mode = &rec_mode;
	a.mode_data = &u;
	a.sy = u.sy;
	title_update(&a);
	int rc = 1;
	if (app_view_open(&a, r->p, o->gran, u.title)) {
		fprintf(stderr, "mprof-tui: %s: out of memory\n", r->dir);
	} else {
		if (o->ro.alloc)
			view_toggle_alloc(&a.v);
		if (o->ro.objects)
			view_toggle_objects(&a.v);
		char mt[100];
		rec_moment_text(r, mt, sizeof(mt));
		snprintf(a.v.status, sizeof(a.v.status),
			 "at the run's PEAK, %s; Left/Right move in time, [ ] peaks, ? help", mt);
		if (rec_end_how(r) != REC_END_CLOSED) {   /* a recording cut short says so first */
			char end[400];
			rec_end_line(r, end, sizeof(end));
			snprintf(a.v.status, sizeof(a.v.status), "Recording %.170s; at the PEAK, %.60s", end, mt);
		}
		app_missing_status(&a, "show module+offset");   /* the reason names are missing comes first */
		rc = app_run(&a);
	}
	app_free(&a);
	return rc;
}
