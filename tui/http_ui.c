/* http_ui.c - live mode over HTTP: mprof-tui --attach URL follows a
 * profile a service serves (a Go service's /debug/pprof/heap, mprof's own
 * --serve): a thread refetches it every interval (remote/), the tick reads
 * what it got into a profile that only grows (core/profmirror.c) and shows
 * it through live mode's own code (live_show, the strip, snapshots, d, w).
 * A failed refetch goes on the status line; the last good profile stays. */
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/profmirror.h"
#include "remote/remote.h"
#include "symbols/sym.h"
#include "tui/app.h"
#include "tui/app_view.h"
#include "tui/clock.h"
#include "tui/live_ui.h"
#include "tui/tui.h"

/* What the fetch thread hands the tick: the newest answer, bytes or error. */
typedef struct http_src {
	const char *url;
	int interval_ms;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	int ready;              /* a new answer waits */
	uint8_t *data;
	size_t len;
	int failed;
	prof_error err;
	int64_t at_ns;          /* when it was fetched, since the attach */
	int64_t start_ms;       /* monotonic ms of the attach */
	/* The tick's side. */
	prof_mirror mir;
	uint64_t fetches, fails;
	char last_err[sizeof(prof_error)];
	live_ui lv;
} http_src;

static http_src *HS(const app *a)
{
	return (http_src *)((char *)a->mode_data - offsetof(http_src, lv));
}

/* Waits an interval (or the stop), then fetches; the answer replaces any
 * the tick has not taken yet. */
static void *http_fetch_loop(void *arg)
{
	http_src *h = arg;
	pthread_mutex_lock(&h->mu);
	while (!h->stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += h->interval_ms / 1000;
		ts.tv_nsec += (long)(h->interval_ms % 1000) * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		while (!h->stop && pthread_cond_timedwait(&h->cv, &h->mu, &ts) == 0)
			;
		if (h->stop)
			break;
		pthread_mutex_unlock(&h->mu);
		uint8_t *d = NULL;
		size_t n = 0;
		prof_error err;
		int bad = remote_fetch(h->url, &d, &n, &err);
		int64_t ns = (app_mono_ms() - h->start_ms) * 1000000;
		pthread_mutex_lock(&h->mu);
		free(h->data);
		h->data = d;
		h->len = n;
		h->failed = bad;
		h->err = err;
		h->at_ns = ns;
		h->ready = 1;
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

static void http_title(app *a)
{
	http_src *h = HS(a);
	live_ui *lv = &h->lv;
	char d[200] = "";
	if (lv->diff) {
		char f[16], t[16];
		double dt = (double)(live_moment_ns(lv, lv->to) - live_moment_ns(lv, lv->from)) / 1e9;
		snprintf(d, sizeof(d), "DIFF %s -> %s (%.2f s)", live_moment_name(lv, lv->from, f, sizeof(f)),
			 live_moment_name(lv, lv->to, t, sizeof(t)), dt);
	}
	snprintf(lv->state, sizeof(lv->state), "http %s%s%s%s", lv->paused ? "PAUSED" : "following",
		 h->last_err[0] ? " FETCH FAILED" : "", *d ? "  " : "", d);
	snprintf(lv->title, sizeof(lv->title), "%s", h->url);
	a->v.path = lv->title;
}

/* Reads a fetched answer into the mirror: FOLLOW_* flags, 0 when it
 * failed (said on the status line, the last good profile kept), -1 on the
 * first answer's error (err). */
static int http_take(http_src *h, app *a, prof_error *err)
{
	pthread_mutex_lock(&h->mu);
	uint8_t *d = h->data;
	size_t n = h->len;
	int failed = h->failed;
	prof_error e = h->err;
	int64_t ns = h->at_ns;
	h->data = NULL;
	h->ready = 0;
	pthread_mutex_unlock(&h->mu);
	prof *q = failed ? NULL : prof_load_mem(d ? d : (const uint8_t *)"", n, h->url, &e);
	free(d);
	h->fetches++;
	if (!q) {
		h->fails++;
		/* Said when fetching starts to fail (the title keeps FETCH FAILED):
		 * libcurl's words change with each try ("after 1 ms"), and a w or m
		 * message must stay readable. */
		int said = h->last_err[0] != 0;
		snprintf(h->last_err, sizeof(h->last_err), "%s", e.msg);
		if (err)
			*err = e;
		if (a && !err && !said)
			snprintf(a->v.status, sizeof(a->v.status), "refetch failed (%" PRIu64 " of %" PRIu64 "), last good profile kept: %.160s",
				 h->fails, h->fetches, e.msg);
		return err ? -1 : 0;
	}
	if (h->last_err[0] && a)
		snprintf(a->v.status, sizeof(a->v.status), "fetched again after a failure");
	h->last_err[0] = 0;
	int ch = mirror_update(&h->mir, q);
	prof_free(q);
	if (ch < 0) {
		if (err)
			prof_errorf(err, "%s: out of memory", h->url);
		return -1;
	}
	/* The moment: the profile's in-use total; the strip's heap row. */
	int64_t inuse = 0;
	const prof *p = h->mir.p;
	for (size_t i = 0; i < p->samples.len; i++)
		inuse += (int64_t)(p->samples.v[i].c.alloc_bytes - p->samples.v[i].c.free_bytes);
	timeline *t = &h->lv.fu.f.tl;
	tl_heap(t, ns, inuse);
	live_moment *m = &h->lv.at;
	m->ns = ns;
	m->k = t->last;
	m->heap = inuse;
	m->peak = t->peak > inuse ? t->peak : inuse;
	return ch;
}

/* live_refresh's part here: takes a waiting answer, if any; 1 when the
 * screen changed (m takes the newest profile, not the last shown). */
static int http_pull(app *a)
{
	http_src *h = HS(a);
	live_ui *lv = &h->lv;
	int redraw = 0;
	pthread_mutex_lock(&h->mu);
	int ready = h->ready;
	pthread_mutex_unlock(&h->mu);
	if (ready) {
		int ch = http_take(h, a, NULL);
		if (ch > 0 && (ch & FOLLOW_FRAMES)) {
			sym_close(lv->fu.sy);
			lv->fu.sy = sym_open(lv->fu.f.p, &lv->fu.so);
			a->sy = lv->fu.sy;
		}
		if (ch < 0)
			snprintf(a->v.status, sizeof(a->v.status), "out of memory reading %.200s", h->url);
		redraw = ch > 0 ? live_show(a, ch) : 1;
	}
	http_title(a);
	return redraw;
}

static int http_tick(app *a)
{
	if (LV(a)->paused) {
		http_title(a);
		return 0;
	}
	return http_pull(a);
}

static int http_wait_ms(const app *a)
{
	(void)a;
	return 100;
}

static int http_key(app *a, int key)
{
	live_ui *lv = LV(a);
	if (key == 'p') {
		lv->paused = !lv->paused;
		snprintf(a->v.status, sizeof(a->v.status), "%s", lv->paused
			 ? "paused: the screen holds still; p resumes" : "resumed");
		http_title(a);
		return REACT_REDRAW;
	}
	return live_key(a, key);
}

static const char *http_file_stem(const app *a)
{
	(void)a;
	return "mprof-http";
}

static void http_stop(http_src *h)
{
	pthread_mutex_lock(&h->mu);
	h->stop = 1;
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->mu);
	pthread_join(h->th, NULL);
	free(h->data);
	h->data = NULL;
}

static void http_free(app *a)
{
	http_src *h = HS(a);
	live_ui *lv = &h->lv;
	http_stop(h);
	for (int i = 0; i < lv->nsnaps; i++)
		snap_free(&lv->snaps[i]);
	newmarks_free(&lv->marks);
	sym_close(lv->fu.sy);
	mirror_free(&h->mir);
	lv->fu.f.p = NULL;
	a->sy = NULL;
	a->mode_data = NULL;
}

static const keybar_item http_keys[] = {
	{ "m", "Snap " }, { "d", "Diff " }, { "p", "Pause " }, { "w", "Write " }, { "z", "Zoom " }, { NULL, NULL },
};

static const mode_ops http_mode = {
	.name = "live",
	.tick = http_tick,
	.wait_ms = http_wait_ms,
	.key = http_key,
	.strip_height = live_strip_height,
	.strip_draw = live_strip_draw,
	.status_note = live_status_note,
	.title_state = live_title_state,
	.keys = http_keys,
	.in_diff = live_in_diff,
	.marks = live_marks,
	.file_stem = http_file_stem,
	.free = http_free,
};

int tui_live_http(const char *url, const tui_live_opts *o)
{
	static app a;        /* static: as in tui_run */
	static http_src h;
	memset(&a, 0, sizeof(a));
	memset(&h, 0, sizeof(h));
	h.url = url;
	h.interval_ms = o->interval_ms > 0 ? o->interval_ms : 2000;
	h.start_ms = app_mono_ms();
	pthread_mutex_init(&h.mu, NULL);
	pthread_cond_init(&h.cv, NULL);
	prof_error err;
	if (mirror_init(&h.mir)) {
		fprintf(stderr, "mprof-tui: %s: out of memory\n", url);
		return 1;
	}
	/* The first fetch before the screen: a dead URL is said on the command line. */
	uint8_t *d = NULL;
	size_t n = 0;
	h.failed = remote_fetch(url, &d, &n, &h.err);
	h.data = d;
	h.len = n;
	live_ui *lv = &h.lv;
	lv->fu.so = o->so;
	lv->fu.interval_ms = h.interval_ms;
	tl_init(&lv->fu.f.tl, 100 * 1000000LL);
	tl_advance(&lv->fu.f.tl, 0);
	lv->fu.f.p = h.mir.p;
	if (http_take(&h, NULL, &err) < 0) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		mirror_free(&h.mir);
		return 2;
	}
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {   /* after the fetch: a dead URL is said first */
		fprintf(stderr, "mprof-tui: live mode needs a terminal (for a report: mprof-tui --top=flat %s)\n", url);
		mirror_free(&h.mir);
		return 2;
	}
	lv->zoom = LIVE_FIT;
	lv->pull = http_pull;
	lv->no_rss = 1;
	lv->retitle = http_title;
	lv->fu.sy = sym_open(lv->fu.f.p, &lv->fu.so);
	a.sy = lv->fu.sy;
	a.mode = &http_mode;
	a.mode_data = lv;   /* from here on app_free stops the thread and frees all */
	http_title(&a);
	if (pthread_create(&h.th, NULL, http_fetch_loop, &h)) {
		fprintf(stderr, "mprof-tui: %s: cannot start the fetch thread\n", url);
		sym_close(lv->fu.sy);
		mirror_free(&h.mir);
		return 1;
	}
	/* The thread's first fetch waits an interval: the one above is shown now. */
	if (app_view_open(&a, lv->fu.f.p, o->gran, lv->title)) {
		fprintf(stderr, "mprof-tui: %s: out of memory\n", url);
		app_free(&a);
		return 1;
	}
	live_view_opts(&a, o);
	snprintf(a.v.status, sizeof(a.v.status), "following %.150s every %d ms; m snapshot, d diff, p pause, w write",
		 url, h.interval_ms);
	int rc = app_run(&a);
	app_free(&a);
	return rc;
}
