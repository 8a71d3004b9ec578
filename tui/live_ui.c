/* live_ui.c - live mode: a hooked process followed on the screens of file
 * mode. The profile is refreshed every interval (the view keeps its place
 * through view_reload), the event ring is drained into a timeline strip
 * above the table (the whole run fitted, or zoomed with z Z; = fits), every
 * figure on screen is of the same refresh, and the keys m (snapshot), d
 * (diff two snapshots, the leak hunter's screen), p (pause) and w/W (write
 * now or a snapshot) work on it. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attach/live/follow.h"
#include "attach/inject/inject.h"
#include "attach/live/launch.h"
#include "attach/live/sample_ctl.h"
#include "core/path.h"
#include "core/snapdiff.h"
#include "symbols/sym.h"
#include "tui/allocs_ui.h"
#include "tui/app.h"
#include "tui/app_view.h"
#include "tui/chrome.h"
#include "tui/clock.h"
#include "tui/inject_ui.h"
#include "tui/newmarks.h"
#include "tui/strip.h"
#include "tui/tui.h"
#include "tui/write_ui.h"

#define LIVE_SNAPS 64
#define LIVE_DRAIN_MS 100
#define LIVE_STRIP 3
#define LIVE_FIT -1   /* zoom: the whole run since the attach fits the strip */

/* The strip's zoom steps, in milliseconds a column. */
static const int64_t zoom_ms[] = { 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000, 120000, 300000, 600000,
				   1800000, 3600000 };
#define LIVE_NZOOM ((int)(sizeof(zoom_ms) / sizeof(zoom_ms[0])))

/* The moment on screen: the title's total, the strip's figures and the
 * diff's growth all come from the one tick that read it. */
typedef struct live_moment {
	int64_t ns;              /* on the segment's clock */
	int64_t k;               /* its timeline bucket: the strip ends there */
	int64_t heap, peak;      /* heap in use from the counters, as the table's */
	int64_t rss, peak_rss;
} live_moment;

typedef struct live_ui {
	follow f;
	sym *sy;                 /* over f.p; reopened when frames arrive */
	sym_opts so;
	int interval_ms;
	int paused;
	int zoom;                /* index into zoom_ms, or LIVE_FIT */
	live_moment at;          /* what the screen shows */
	int64_t next_sync, next_drain;   /* monotonic ms */
	int final_done;          /* the exit was seen and the last state read */
	snap snaps[LIVE_SNAPS];
	int nsnaps;
	/* The diff on screen: from/to are snapshot indices, to -1 is now. */
	int diff, from, to;
	new_marks marks;         /* the diff (marks.d) and its NEW/GONE marks */
	char state[300];         /* the title's start: pid, running/PAUSED/EXITED, DIFF */
	char title[700];
	char note[600];          /* the status line's right end */
	char growth[VIEW_STATUS_LEN];   /* the diff's status line, rewritten as "now" moves while it shows */
	char out[512];           /* -- CMD: where its output goes */
	const char *cmd;         /* -- CMD: argv[0], reported when it is stopped */
	int ran;                 /* the UI ran: say how the child ended */
	int leave;               /* quit with "detach": the child runs on */
	int late;                /* the hook was injected: history before it is unknown */
	int allocs_tries;        /* reads of the allocator table left (the hook writes it at start) */
} live_ui;

static live_ui *LV(const app *a)
{
	return a->mode_data;
}

/* ---- symbols and the granularity builder --------------------------------- */

/* Symbols from the live process's maps while it runs, from the segment's
 * module table once it is gone. */
static void sym_reopen(app *a)
{
	live_ui *lv = LV(a);
	sym_close(lv->sy);
	lv->so.pid = lv->f.exited ? 0 : lv->f.pid;
	a->sy = lv->sy = sym_open(lv->f.p, &lv->so);
}

/* ---- titles ---------------------------------------------------------------- */

static const char *cmdline(const live_ui *lv)
{
	const char *c = prof_strat(lv->f.p, lv->f.p->meta.cmdline);
	return c ? c : "?";
}

static void fmt_when(char *buf, size_t len, int64_t wall)
{
	time_t t = (time_t)wall;
	struct tm tm;
	if (localtime_r(&t, &tm))
		strftime(buf, len, "%H:%M:%S", &tm);
	else
		snprintf(buf, len, "?");
}

static const char *moment_name(const live_ui *lv, int i, char *buf, size_t len)
{
	if (i < 0)
		snprintf(buf, len, "now");
	else
		snprintf(buf, len, "#%d", lv->snaps[i].number);
	return buf;
}

static int64_t moment_ns(const live_ui *lv, int i)
{
	return i < 0 ? lv->at.ns : lv->snaps[i].mono_ns;
}

static void exit_text(const live_ui *lv, char *buf, size_t len)
{
	int st = lv->f.child_status;
	if (lv->f.child > 0 && st >= 0 && WIFEXITED(st))
		snprintf(buf, len, "EXITED (status %d)", WEXITSTATUS(st));
	else if (lv->f.child > 0 && st >= 0 && WIFSIGNALED(st))
		snprintf(buf, len, "EXITED (signal %d)", WTERMSIG(st));
	else
		snprintf(buf, len, "EXITED");
}

/* The status line once the process is gone: its exit as far as known. */
static void final_status(app *a)
{
	live_ui *lv = LV(a);
	char st[64];
	exit_text(lv, st, sizeof(st));
	snprintf(a->v.status, sizeof(a->v.status),
		 "process %d %s: final state kept; browse, m snapshot, d diff, w write, q quit", lv->f.pid, st);
}

static void title_update(app *a)
{
	live_ui *lv = LV(a);
	char state[64], d[200] = "";
	if (lv->f.exited)
		exit_text(lv, state, sizeof(state));
	else
		snprintf(state, sizeof(state), "%s", lv->paused ? "PAUSED" : "running");
	if (lv->diff) {
		char f[16], t[16];
		double dt = (double)(moment_ns(lv, lv->to) - moment_ns(lv, lv->from)) / 1e9;
		snprintf(d, sizeof(d), "DIFF %s -> %s (%.2f s)", moment_name(lv, lv->from, f, sizeof(f)),
			 moment_name(lv, lv->to, t, sizeof(t)), dt);
	}
	/* Sampling off, or rates changed (the title's ESTIMATES gives the rate). */
	char smp[200] = "";
	const seg_header *h = lv->f.m.h;
	if (h && (__atomic_load_n(&h->sample_rate, __ATOMIC_RELAXED) == SEG_SAMPLE_OFF ||
		  __atomic_load_n(&h->sample.changes, __ATOMIC_RELAXED))) {
		smp[0] = smp[1] = ' ';
		sample_ctl_text(h, smp + 2, sizeof(smp) - 2);
	}
	snprintf(lv->state, sizeof(lv->state), "pid %d %s%s%s%s%s", lv->f.pid, state,
		 lv->paused && lv->f.exited ? " PAUSED" : "", smp, *d ? "  " : "", d);
	snprintf(lv->title, sizeof(lv->title), "%s", cmdline(lv));
	a->v.path = lv->title;
}

/* ---- refresh ---------------------------------------------------------------- */

static int rebuild_diff(app *a, int frames_changed);
static void growth_status(app *a);

/* The moment just read: the counters' total (the table's), the timeline
 * up to now. */
static void moment_take(live_ui *lv)
{
	const timeline *t = &lv->f.tl;
	live_moment *m = &lv->at;
	m->ns = follow_now_ns(&lv->f);
	m->k = t->last;
	m->heap = lv->f.inuse_bytes;
	m->peak = t->peak > m->heap ? t->peak : m->heap;
	m->rss = t->cur_rss;
	m->peak_rss = t->peak_rss;
}

/* Reads the ring and the segment at one moment and, unless a diff of
 * snapshots is on screen, puts the new state under the view. Returns 1
 * when something changed, or the strip's time moved on. */
static int live_refresh(app *a)
{
	live_ui *lv = LV(a);
	int64_t k0 = lv->at.k;
	if (!lv->f.exited)
		follow_drain(&lv->f);   /* the strip up to the moment of the counters */
	int ch = follow_sync(&lv->f);
	if (ch >= 0)
		moment_take(lv);
	if (ch < 0) {
		snprintf(a->v.status, sizeof(a->v.status), "out of memory reading the segment");
		return 1;
	}
	if (ch & FOLLOW_FRAMES)
		sym_reopen(a);
	if (lv->late)
		follow_since_note(&lv->f, lv->note, sizeof(lv->note));
	if (!ch)
		return lv->at.k != k0;   /* nothing moved but time: the strip goes on */
	if (lv->diff) {
		if (lv->to < 0) {   /* "now" is one end: the diff moves too, and its growth */
			int shown = !strcmp(a->v.status, lv->growth);
			rebuild_diff(a, ch & FOLLOW_FRAMES);
			if (shown)
				growth_status(a);
		}
		return 1;
	}
	char keep[VIEW_STATUS_LEN];
	snprintf(keep, sizeof(keep), "%s", a->v.status);
	view_reload(&a->v, lv->f.p, ch & FOLLOW_FRAMES);
	if (!a->v.status[0])
		snprintf(a->v.status, sizeof(a->v.status), "%s", keep);
	lv->marks.gen++;
	return 1;
}

/* Adds the allocators the hook found beyond the program's malloc to the
 * status line's note, once the hook has written its table. */
static void allocs_note(live_ui *lv)
{
	seg_alloc t[1];
	if (lv->allocs_tries <= 0 || !seg_allocs_copy(lv->f.m.h, lv->f.m.len, t, 1)) {
		lv->allocs_tries--;
		return;
	}
	lv->allocs_tries = 0;
	char sum[400];
	allocs_summary(lv->f.m.h, lv->f.m.len, sum, sizeof(sum));
	char rest[sizeof(lv->note)];
	snprintf(rest, sizeof(rest), "%s", lv->note);   /* first: the note is cut at half the width */
	if (sum[0])
		snprintf(lv->note, sizeof(lv->note), "allocators: %.400s%s%.180s", sum, rest[0] ? " | " : "", rest);
}

static int live_tick(app *a)
{
	live_ui *lv = LV(a);
	int64_t now = app_mono_ms();
	int redraw = 0;
	if (!lv->f.exited && now >= lv->next_drain) {
		follow_drain(&lv->f);   /* keeps up with the ring; the screen moves at the refresh */
		lv->next_drain = now + LIVE_DRAIN_MS;
	}
	if (now >= lv->next_sync && !lv->final_done) {
		lv->next_sync = now + lv->interval_ms;
		if (lv->allocs_tries > 0)
			allocs_note(lv);
		int gone = follow_check_exit(&lv->f);
		if (!lv->paused)
			redraw |= live_refresh(a);
		if (gone && !lv->paused) {
			/* The mapping outlives the process: this is its last state. */
			lv->final_done = 1;
			sym_reopen(a);
			if (!lv->diff)
				view_reload(&a->v, lv->f.p, 1);
			else
				rebuild_diff(a, 1);
			lv->marks.gen++;
			final_status(a);
			redraw = 1;
		}
	} else if (lv->final_done && lv->f.child > 0 && lv->f.child_status < 0) {
		/* The hook marks the exit before the kernel reaps: the status comes later. */
		follow_check_exit(&lv->f);
		if (lv->f.child_status >= 0) {
			char lead[32];
			int n = snprintf(lead, sizeof(lead), "process %d EXITED", lv->f.pid);
			if (!strncmp(a->v.status, lead, (size_t)n))   /* still the final line, not a newer one */
				final_status(a);
			redraw = 1;
		}
	}
	title_update(a);
	return redraw;
}

static int live_wait_ms(const app *a)
{
	const live_ui *lv = LV(a);
	if (lv->final_done)
		return 250;
	int64_t now = app_mono_ms(), next = lv->next_sync;
	if (!lv->f.exited && lv->next_drain < next)
		next = lv->next_drain;
	int64_t w = next - now;
	return w < 5 ? 5 : w > 250 ? 250 : (int)w;
}

/* ---- the diff ---------------------------------------------------------------- */

static int rebuild_diff(app *a, int frames_changed)
{
	live_ui *lv = LV(a);
	prof_error err;
	uint8_t *flags = NULL;
	prof *d = snap_delta(lv->f.p, &lv->snaps[lv->from], lv->to < 0 ? NULL : &lv->snaps[lv->to], &flags, &err);
	if (!d) {
		snprintf(a->v.status, sizeof(a->v.status), "%.250s", err.msg);
		return -1;
	}
	/* The old diff goes only after the view let go of it. */
	int rc = view_reload(&a->v, d, frames_changed || !lv->marks.d);
	newmarks_set(&lv->marks, d, flags);
	return rc;
}

static int diff_open(app *a, int from, int to)
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
	if (rebuild_diff(a, 1)) {
		lv->diff = 0;
		view_reload(v, lv->f.p, 1);
		return -1;
	}
	v->hist[0].sel = v->hist[0].top = 0;
	growth_status(a);
	title_update(a);
	return 0;
}

/* The status line of the diff, its growth of the diff's own totals. */
static void growth_status(app *a)
{
	live_ui *lv = LV(a);
	view *v = &a->v;
	char f[16], t[16], g[48];
	fmt_delta(g, sizeof(g), v->a->total[AGG_INUSE_BYTES], 0);
	snprintf(v->status, sizeof(v->status),
		 "growth %s -> %s: %s in use; largest first, NEW = not there at %s, GONE = none left at %s; d closes",
		 moment_name(lv, lv->from, f, sizeof(f)), moment_name(lv, lv->to, t, sizeof(t)), g, f, t);
	snprintf(lv->growth, sizeof(lv->growth), "%s", v->status);
}

static void diff_close(app *a)
{
	live_ui *lv = LV(a);
	lv->diff = 0;
	view_reload(&a->v, lv->f.p, 1);
	newmarks_set(&lv->marks, NULL, NULL);
	snprintf(a->v.status, sizeof(a->v.status), "diff closed: the live profile again");
	title_update(a);
}

static const char *live_title_state(const app *a)
{
	return LV(a)->state;
}

static int live_in_diff(const app *a)
{
	return LV(a)->diff && LV(a)->marks.d;
}

static new_marks *live_marks(app *a)
{
	return &LV(a)->marks;
}

/* ---- keys ---------------------------------------------------------------------- */

static void snapshot_take(app *a)
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
	if (snap_take(s, lv->f.p, lv->nsnaps + 1, (int64_t)time(NULL), lv->at.ns)) {   /* the moment of the profile */
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

static void answer_write(app *a, const char *ans);
static void answer_diff(app *a, const char *ans);
static void zoom_key(app *a, int key);

static int ask_write(app *a, int v1)
{
	live_ui *lv = LV(a);
	char base[300], dflt[512], lead[sizeof(a->ask.lead)];
	const char *fmt = v1 ? "skynet v1" : "native";
	if (lv->diff) {
		char f[16], t[16];
		snprintf(base, sizeof(base), "mprof-%d-diff-%s-%s", lv->f.pid, moment_name(lv, lv->from, f, sizeof(f)),
			 moment_name(lv, lv->to, t, sizeof(t)));
		for (char *c = base; *c; c++)
			if (*c == '#')
				*c = 's';
	} else {
		snprintf(base, sizeof(base), "mprof-%d-now", lv->f.pid);
	}
	write_ui_free_name(dflt, sizeof(dflt), base);
	snprintf(lead, sizeof(lead), "write %s (%s) to [%s] (#N FILE: snapshot N): ",
		 lv->diff ? "the diff" : "now", fmt, dflt);
	return app_prompt(a, answer_write, v1, dflt, lead);
}

static int ask_diff(app *a)
{
	live_ui *lv = LV(a);
	if (!lv->nsnaps) {
		snprintf(a->v.status, sizeof(a->v.status),
			 "no snapshot yet: m takes one (d compares two; now counts as one)");
		return 0;
	}
	char lead[sizeof(a->ask.lead)];
	if (lv->nsnaps >= 2)
		snprintf(lead, sizeof(lead), "diff FROM TO, snapshot numbers or now [%d %d]: ",
			 lv->snaps[0].number, lv->snaps[lv->nsnaps - 1].number);
	else
		snprintf(lead, sizeof(lead), "diff FROM TO, snapshot numbers or now [%d now]: ", lv->snaps[0].number);
	return app_prompt(a, answer_diff, 0, NULL, lead);
}

/* The answer to "stop it?": y (or Enter) stops the child, d leaves it
 * running, anything else stays. */
static void quit_answer(app *a, const char *text)
{
	live_ui *lv = LV(a);
	char c = *text ? text[0] : 'y';
	if (c == 'y' || c == 'Y') {
		a->quit = 1;
	} else if (c == 'd' || c == 'D') {
		lv->leave = 1;
		a->quit = 1;
	} else {
		snprintf(a->v.status, sizeof(a->v.status), "still following %s (pid %d)", lv->cmd, (int)lv->f.child);
	}
}

/* q and Q: a program this session started is never stopped without asking;
 * q in a diff closes it first (it is "back" there). */
static int quit_key(app *a, int key)
{
	live_ui *lv = LV(a);
	if (key == 'q' && a->v.depth > 1)
		return REACT_UNHANDLED;
	if (key == 'q' && lv->diff) {
		diff_close(a);
		return REACT_REDRAW;
	}
	if (!lv->cmd || lv->f.child <= 0 || lv->f.child_status >= 0 || lv->f.exited)
		return REACT_QUIT;
	char lead[sizeof(a->ask.lead)];
	snprintf(lead, sizeof(lead), "quit: stop %.40s (pid %d)? y stop, d detach (it runs on), n stay [y]: ",
		 path_base(lv->cmd), (int)lv->f.child);
	return app_prompt(a, quit_answer, 0, "y", lead) | REACT_REDRAW;
}

static int live_key(app *a, int key)
{
	live_ui *lv = LV(a);
	view *v = &a->v;
	switch (key) {
	case 'w': return ask_write(a, 0) | REACT_REDRAW;
	case 'W': return ask_write(a, 1) | REACT_REDRAW;
	case 'p':
		lv->paused = !lv->paused;
		snprintf(v->status, sizeof(v->status), "%s", lv->paused
			 ? "paused: the screen holds still (events are still read); p resumes"
			 : "resumed");
		if (!lv->paused)
			lv->next_sync = 0;
		title_update(a);
		return REACT_REDRAW;
	case 'm':
		snapshot_take(a);
		return REACT_REDRAW;
	case 'z': case 'Z': case '=':
		zoom_key(a, key);
		return REACT_REDRAW;
	case 'q': case 'Q':
		return quit_key(a, key);
	case 'd':
		if (lv->diff) {
			diff_close(a);
			return REACT_REDRAW;
		}
		return ask_diff(a) | REACT_REDRAW;
	}
	return REACT_UNHANDLED;
}

/* "3", "#3" or "now" -> snapshot index, -1 for now; -2 when bad. */
static int parse_moment(const live_ui *lv, const char *s)
{
	if (!strcmp(s, "now"))
		return -1;
	if (*s == '#')
		s++;
	char *end;
	long n = strtol(s, &end, 10);
	if (*end || end == s)
		return -2;
	for (int i = 0; i < lv->nsnaps; i++)
		if (lv->snaps[i].number == n)
			return i;
	return -2;
}

static void answer_diff(app *a, const char *ans)
{
	live_ui *lv = LV(a);
	char t1[64] = "", t2[64] = "";
	int n = sscanf(ans, "%63s %63s", t1, t2);
	int from = 0, to = lv->nsnaps >= 2 ? lv->nsnaps - 1 : -1;
	if (n >= 1)
		from = parse_moment(lv, t1);
	if (n >= 2)
		to = parse_moment(lv, t2);
	else if (n == 1)
		to = -1;
	if (from == -2 || to == -2) {
		snprintf(a->v.status, sizeof(a->v.status), "diff: '%s': give two snapshot numbers (1 to %d) or now", ans,
			 lv->snaps[lv->nsnaps - 1].number);
		return;
	}
	/* Earlier first; now is the latest moment. */
	if (from < 0 || (to >= 0 && to < from)) {
		int t = from;
		from = to;
		to = t;
	}
	if (from < 0 || from == to) {
		snprintf(a->v.status, sizeof(a->v.status), "diff: pick two different moments (now counts as one)");
		return;
	}
	diff_open(a, from, to);
}

static void answer_write(app *a, const char *ans)
{
	live_ui *lv = LV(a);
	view *v = &a->v;
	char file[512];
	int which = -1;   /* now (or the diff on screen) */
	while (*ans == ' ')
		ans++;
	if (*ans == '#') {
		char *end;
		long n = strtol(ans + 1, &end, 10);
		which = -2;
		for (int i = 0; i < lv->nsnaps; i++)
			if (lv->snaps[i].number == n)
				which = i;
		if (which == -2) {
			snprintf(v->status, sizeof(v->status), "write: no snapshot #%ld", n);
			return;
		}
		ans = end;
		while (*ans == ' ')
			ans++;
		if (!*ans) {
			char base[64];
			snprintf(base, sizeof(base), "mprof-%d-s%ld", lv->f.pid, n);
			write_ui_free_name(file, sizeof(file), base);
			ans = file;
		}
	}
	const char *path = *ans ? ans : a->ask.dflt;
	if (path != file)
		snprintf(file, sizeof(file), "%s", path);
	prof_error err;
	prof *owned = NULL;
	const prof *p = v->p;
	if (which >= 0)
		p = owned = snap_delta(lv->f.p, NULL, &lv->snaps[which], NULL, &err);
	else if (!lv->diff)
		p = lv->f.p;
	if (!p) {
		snprintf(v->status, sizeof(v->status), "write: %.240s", err.msg);
		return;
	}
	write_ui_save(a, p, file, a->ask.arg);
	prof_free(owned);
}

static const char *live_status_note(const app *a)
{
	return LV(a)->note;
}

static const char *live_file_stem(const app *a)
{
	(void)a;
	return "mprof-live";
}

/* ---- the timeline strip ---------------------------------------------------------- */

static int live_strip_height(const app *a)
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
	const timeline *t = &lv->f.tl;
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
	int64_t k = ns / lv->f.tl.bucket_ns - lv->f.tl.origin;
	return k < 0 ? -1 : k / c->per;
}

/* Draws the heap (or RSS) of the shown columns as bars, each the peak of
 * its buckets; the columns in which snapshots were taken are drawn in
 * reverse video, so a diff's two ends can be seen on the curve. */
static void spark(app *a, int y, int x, const strip_cols *c, int rss)
{
	const live_ui *lv = LV(a);
	const timeline *t = &lv->f.tl;
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

static void live_strip_draw(app *a)
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
	fmt_span(col, sizeof(col), c.per * lv->f.tl.bucket_ns / 1000000);
	size_t n = (size_t)snprintf(line, sizeof(line), " heap %s (peak %s)  rss %s (peak %s)  %s%s/col", hv, hp,
				    rv, rp, lv->zoom == LIVE_FIT ? "fit " : "", col);
	if (lv->f.lost_events && n < sizeof(line))
		n += (size_t)snprintf(line + n, sizeof(line) - n, "  events lost (%" PRIu64 " ring slots)", lv->f.lost_events);
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
	spark(a, 4, 6, &c, 1);
}

/* z and Z: a column holds the next finer or coarser step (from the fit,
 * the steps around its width); = fits the whole run again. */
static void zoom_key(app *a, int key)
{
	live_ui *lv = LV(a);
	view *v = &a->v;
	if (key == '=') {
		lv->zoom = LIVE_FIT;
		snprintf(v->status, sizeof(v->status), "strip: the whole run since the attach, the columns widen as it grows");
		return;
	}
	int64_t ms = strip_cols_of(lv, a->wd - 6).per * lv->f.tl.bucket_ns / 1000000;
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

/* ---- the entry ----------------------------------------------------------------------- */

/* Stops our child (-- CMD) when the user quits before it ends. */
static void child_stop(live_ui *lv)
{
	if (lv->f.child > 0 && lv->f.child_status < 0)
		launch_stop(lv->f.child, &lv->f.child_status);
}

/* Stops a -- CMD child still running (saying so once the UI ran), then
 * frees the snapshots, the diff, the symbols and the segment. */
static void live_free(app *a)
{
	live_ui *lv = LV(a);
	/* Seen exiting (the hook's mark) but not yet reaped: it is ending, give it a second. */
	for (int i = 0; i < 100 && lv->f.exited && lv->f.child > 0 && lv->f.child_status < 0; i++) {
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
		follow_check_exit(&lv->f);
	}
	if (lv->cmd && lv->ran && lv->f.child_status < 0 && lv->leave) {
		fprintf(stderr, "mprof-tui: left %s (pid %d) running under the hook; its output is in %s; "
			"mprof-tui --attach %d follows it again\n", lv->cmd, (int)lv->f.child, lv->out, (int)lv->f.child);
	} else if (lv->cmd && lv->ran && lv->f.child_status < 0) {
		child_stop(lv);
		fprintf(stderr, "mprof-tui: stopped %s (pid %d); its output is in %s\n", lv->cmd, (int)lv->f.child,
			lv->out);
	} else if (lv->cmd && lv->ran) {
		fprintf(stderr, "mprof-tui: %s (pid %d) ended; its output is in %s\n", lv->cmd, (int)lv->f.child, lv->out);
	} else if (lv->cmd) {
		child_stop(lv);
	}
	for (int i = 0; i < lv->nsnaps; i++)
		snap_free(&lv->snaps[i]);
	newmarks_free(&lv->marks);
	sym_close(lv->sy);
	follow_close(&lv->f);
	a->sy = NULL;
	a->mode_data = NULL;
}

static const keybar_item live_keys[] = {
	{ "m", "Snap " }, { "d", "Diff " }, { "p", "Pause " }, { "w", "Write " }, { "z", "Zoom " }, { NULL, NULL },
};

const mode_ops live_mode = {
	.name = "live",
	.tick = live_tick,
	.wait_ms = live_wait_ms,
	.key = live_key,
	.strip_height = live_strip_height,
	.strip_draw = live_strip_draw,
	.status_note = live_status_note,
	.title_state = live_title_state,
	.keys = live_keys,
	.in_diff = live_in_diff,
	.marks = live_marks,
	.file_stem = live_file_stem,
	.free = live_free,
};

int tui_live(const tui_live_opts *o)
{
	static app a;        /* static: as in tui_run */
	static live_ui lv;
	memset(&a, 0, sizeof(a));
	memset(&lv, 0, sizeof(lv));
	char lib[4096];
	prof_error err;
	int have_lib = launch_find_lib(lib, sizeof(lib), &err) == 0;
	pid_t pid = o->pid;
	int tty = isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	if (o->argv && !tty) {
		fprintf(stderr, "mprof-tui: live mode needs a terminal\n");
		return 2;
	}
	if (o->argv) {
		if (!have_lib) {
			fprintf(stderr, "mprof-tui: %s\n", err.msg);
			return 2;
		}
		app_signals_install();   /* Ctrl-C from here on stops the child too */
		if (launch_start(o->argv, lib, lv.out, sizeof(lv.out), 5000, &pid, &err)) {
			fprintf(stderr, "mprof-tui: %s\n", err.msg);
			return 2;
		}
	}
	/* No segment: offer to load the hook with ptrace (one key). */
	if (!o->argv && tty && have_lib && inject_seg_flags((int)pid) < 0 && inject_offer((int)pid, lib, &err) < 0) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return 2;
	}
	if (follow_open(&lv.f, (int)pid, have_lib ? lib : NULL, &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		if (o->argv) {
			lv.f.child = pid;
			lv.f.child_status = -1;
			child_stop(&lv);
		}
		return 2;
	}
	if (!tty) {   /* the checks above hold without one, the screens do not */
		fprintf(stderr, "mprof-tui: live mode needs a terminal (for a file: --snapshot %d -o FILE)\n", (int)pid);
		follow_close(&lv.f);
		return 2;
	}
	if (o->argv) {
		lv.f.child = pid;
		lv.cmd = o->argv[0];
		snprintf(lv.note, sizeof(lv.note), "output: %s", lv.out);
	} else if ((lv.late = inject_seg_flags((int)pid) > 0 && (inject_seg_flags((int)pid) & SEG_FLAG_LATE))) {
		snprintf(lv.note, sizeof(lv.note), "history before the attach is unknown");
	}
	lv.allocs_tries = 20;
	allocs_note(&lv);
	lv.interval_ms = o->interval_ms > 0 ? o->interval_ms : 500;
	lv.so = o->so;
	a.mode = &live_mode;
	a.mode_data = &lv;   /* from here on app_free stops the child and closes all */
	lv.zoom = LIVE_FIT;
	int bad = follow_sync(&lv.f) < 0;
	if (!bad) {
		moment_take(&lv);
		sym_reopen(&a);
		title_update(&a);
		bad = app_view_open(&a, lv.f.p, o->gran, lv.title);
	}
	if (bad) {
		fprintf(stderr, "mprof-tui: pid %d: out of memory\n", (int)pid);
		app_free(&a);
		return 1;
	}
	if (o->alloc)
		view_toggle_alloc(&a.v);
	if (o->objects)
		view_toggle_objects(&a.v);
	if (o->argv)
		snprintf(a.v.status, sizeof(a.v.status), "started %.60s (pid %d); its output goes to %.150s", o->argv[0],
			 (int)pid, lv.out);
	else
		snprintf(a.v.status, sizeof(a.v.status), "attached to pid %d%s; m snapshot, d diff, p pause, w write",
			 (int)pid, lv.late ? " (injected: history before the attach is unknown)" : "");
	lv.next_sync = app_mono_ms() + lv.interval_ms;
	int rc = app_run(&a);
	lv.ran = 1;
	if (!o->argv && rc == 0)
		inject_quit_offer((int)pid);   /* an injected hook: d detach, k keep recording */
	app_free(&a);
	return rc;
}
