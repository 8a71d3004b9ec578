/* live_snap.c - live mode's snapshots and diffs: m takes a snapshot of
 * the profile at the moment of the last refresh (64 at most), d shows the
 * diff of two moments (two snapshots, or one and now, which moves with the
 * refreshes), the leak hunter's screen: growth by bytes in use, largest
 * first, with NEW and GONE marks and its own status line. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tui/chrome.h"
#include "tui/live_ui.h"

static void fmt_when(char *buf, size_t len, int64_t wall)
{
	time_t t = (time_t)wall;
	struct tm tm;
	if (localtime_r(&t, &tm))
		strftime(buf, len, "%H:%M:%S", &tm);
	else
		snprintf(buf, len, "?");
}

const char *live_moment_name(const live_ui *lv, int i, char *buf, size_t len)
{
	if (i < 0)
		snprintf(buf, len, "now");
	else
		snprintf(buf, len, "#%d", lv->snaps[i].number);
	return buf;
}

int64_t live_moment_ns(const live_ui *lv, int i)
{
	return i < 0 ? lv->at.ns : lv->snaps[i].mono_ns;
}

/* ---- the diff ---------------------------------------------------------------- */

int live_diff_rebuild(app *a, int frames_changed)
{
	live_ui *lv = LV(a);
	prof_error err;
	uint8_t *flags = NULL;
	prof *d = snap_delta(lv->fu.f.p, &lv->snaps[lv->from], lv->to < 0 ? NULL : &lv->snaps[lv->to], &flags, &err);
	if (!d) {
		snprintf(a->v.status, sizeof(a->v.status), "%.250s", err.msg);
		return -1;
	}
	/* The old diff goes only after the view let go of it. */
	int rc = view_reload(&a->v, d, frames_changed || !lv->marks.d);
	newmarks_set(&lv->marks, d, flags);
	return rc;
}

int live_diff_open(app *a, int from, int to)
{
	live_ui *lv = LV(a);
	view *v = &a->v;
	lv->from = from;
	lv->to = to;
	lv->diff = 1;
	/* The leak hunter's question: what grew, by bytes in use, largest first. */
	v->alloc = 0;
	v->objects = 0;
	v->sort = VIEW_SORT_FLAT;
	v->reverse = 0;
	v->depth = 1;   /* the table, on the largest growth */
	if (live_diff_rebuild(a, 1)) {
		lv->diff = 0;
		view_reload(v, lv->fu.f.p, 1);
		return -1;
	}
	v->hist[0].sel = v->hist[0].top = 0;
	live_growth_status(a);
	live_title_update(a);
	return 0;
}

/* The status line of the diff, its growth of the diff's own totals. */
void live_growth_status(app *a)
{
	live_ui *lv = LV(a);
	view *v = &a->v;
	char f[16], t[16], g[48];
	fmt_delta(g, sizeof(g), v->a->total[AGG_INUSE_BYTES], 0);
	snprintf(v->status, sizeof(v->status),
		 "growth %s -> %s: %s in use; largest first, NEW = not there at %s, GONE = none left at %s; d closes",
		 live_moment_name(lv, lv->from, f, sizeof(f)), live_moment_name(lv, lv->to, t, sizeof(t)), g, f, t);
	snprintf(lv->growth, sizeof(lv->growth), "%s", v->status);
}

void live_diff_close(app *a)
{
	live_ui *lv = LV(a);
	lv->diff = 0;
	view_reload(&a->v, lv->fu.f.p, 1);
	newmarks_set(&lv->marks, NULL, NULL);
	snprintf(a->v.status, sizeof(a->v.status), "diff closed: the live profile again");
	live_title_update(a);
}

int live_in_diff(const app *a)
{
	return LV(a)->diff && LV(a)->marks.d;
}

new_marks *live_marks(app *a)
{
	return &LV(a)->marks;
}

/* ---- keys ---------------------------------------------------------------------- */

void live_snapshot_take(app *a)
{
	live_ui *lv = LV(a);
	view *v = &a->v;
	if (lv->nsnaps == LIVE_SNAPS) {
		snprintf(v->status, sizeof(v->status), "%d snapshots already: no room for more", LIVE_SNAPS);
		return;
	}
	if (!lv->paused && !lv->final_done)
		live_refresh(a);   /* the state of this moment, not of the last refresh */
	snap *s = &lv->snaps[lv->nsnaps];
	if (snap_take(s, lv->fu.f.p, lv->nsnaps + 1, (int64_t)time(NULL), lv->at.ns)) {   /* the moment of the profile */
		snprintf(v->status, sizeof(v->status), "snapshot: out of memory");
		return;
	}
	lv->nsnaps++;
	char when[16], b[48];
	fmt_when(when, sizeof(when), s->wall);
	snprintf(v->status, sizeof(v->status), "snapshot #%d at %s (+%.2f s): in use %s, %" PRId64 " objects%s",
		 s->number, when, (double)s->mono_ns / 1e9, view_fmt_value(b, sizeof(b), s->total[AGG_INUSE_BYTES], 0),
		 s->total[AGG_INUSE_OBJS], lv->nsnaps > 1 ? "; d diffs" : "; take another, then d diffs");
}

