/* faults_ui.c - --faults --attach PID: the page faults of a running
 * process by call stack, live, on the screens of a file ("pages"), with a
 * strip of its figures (pages faulted, minor and major, in use, repeats,
 * lost samples, RSS); when the process runs under the hook too, v
 * switches to its heap (the segment's profile) and back, both kept up
 * to date whichever is shown. The following itself (interval, segment,
 * symbols, the process's state) is follow_ui.c's, shared with live mode. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attach/faults/faults.h"
#include "attach/live/follow.h"
#include "attach/live/launch.h"
#include "symbols/sym.h"
#include "tui/app.h"
#include "tui/app_view.h"
#include "tui/chrome.h"
#include "tui/clock.h"
#include "tui/follow_ui.h"
#include "tui/tui.h"
#include "tui/write_ui.h"

typedef struct faults_ui {
	faults *f;               /* sampling on its own thread */
	prof *mp;                /* owned: the screens' copy of its profile (faults_sync) */
	faults_stats st;         /* its figures at the last sync */
	sym *sy;                 /* over mp */
	unsigned gen;            /* of mp */
	follow_ui heap;          /* the hook's segment, when there is one; the interval */
	int has_heap, heap_shown;
	int gone_said;
	char state[200], title[600], note[700];
} faults_ui;

static faults_ui *FU(const app *a)
{
	return a->mode_data;
}

static void title_update(app *a)
{
	faults_ui *u = FU(a);
	char st[64];
	follow_ui_state(NULL, u->gone_said, 0, st, sizeof(st));
	snprintf(u->state, sizeof(u->state), "pid %d %s %s", (int)faults_pid(u->f), st, u->heap_shown ? "HEAP" : "PAGES");
	snprintf(u->title, sizeof(u->title), "%s", follow_ui_cmdline(u->heap_shown ? u->heap.f.p : u->mp));
	a->v.path = u->title;
}

/* Symbols over the pages' profile, from the live maps while the process
 * runs, from the profile's module table once it is gone. */
static void faults_sym(app *a)
{
	faults_ui *u = FU(a);
	sym_close(u->sy);
	sym_opts so = u->heap.so;
	so.pid = faults_gone(u->f) ? 0 : faults_pid(u->f);
	u->sy = sym_open(u->mp, &so);
	if (!u->heap_shown)
		a->sy = u->sy;
}

/* The sampled profile into mp (a new one when the process ran a new
 * program); FAULTS_SYNC_* flags, -1 when out of memory. */
static int faults_pull(app *a)
{
	faults_ui *u = FU(a);
	unsigned gen;
	int ch = faults_sync(u->f, u->mp, &u->st, &gen);
	if (ch >= 0 && gen != u->gen) {
		prof *n = prof_new();
		if (!n)
			return -1;
		u->gen = gen;
		if ((ch = faults_sync(u->f, n, &u->st, &gen)) < 0) {
			prof_free(n);
			return -1;
		}
		if (!u->heap_shown)   /* the old one goes only after the view let go of it */
			view_reload(&a->v, n, 1);
		prof_free(u->mp);
		u->mp = n;
		ch |= FAULTS_SYNC_FRAMES;
	}
	return ch;
}

static int faults_tick(app *a)
{
	faults_ui *u = FU(a);
	/* Read before the sync: nothing left in the rings then means the
	 * sync holds the process's last fault. */
	int last = faults_gone(u->f) && !faults_backlog(u->f) && !u->gone_said;
	int64_t now = app_mono_ms();
	if (!follow_ui_due(&u->heap, now, last))
		return 0;
	int redraw = 0;
	if (u->has_heap && !u->heap.f.exited) {
		int ch = follow_ui_pull(&u->heap, a, u->heap_shown);
		if (ch > 0 && u->heap_shown) {
			view_reload(&a->v, u->heap.f.p, ch & FOLLOW_FRAMES);
			redraw = 1;
		}
	}
	int ch = faults_pull(a);
	if (ch < 0) {
		snprintf(a->v.status, sizeof(a->v.status), "out of memory reading the samples");
		return 1;
	}
	if (ch & FAULTS_SYNC_FRAMES)
		faults_sym(a);
	if (!u->heap_shown && ch) {
		view_reload(&a->v, u->mp, ch & FAULTS_SYNC_FRAMES);
		redraw = 1;
	}
	faults_summary(u->f, &u->st, u->note, sizeof(u->note));
	if (last) {
		u->gone_said = 1;
		faults_sym(a);   /* from the profile's module table now */
		if (!u->heap_shown)
			view_reload(&a->v, u->mp, 1);
		snprintf(a->v.status, sizeof(a->v.status), "process %d ended: its last state kept; w write, q quit",
			 (int)faults_pid(u->f));
		redraw = 1;
	}
	title_update(a);
	return redraw;
}

static int faults_wait_ms(const app *a)
{
	const faults_ui *u = FU(a);
	if (faults_backlog(u->f))
		return 1;
	return follow_ui_wait_ms(u->heap.next_sync, 50);
}

static int faults_strip_height(const app *a)
{
	return a->h >= 12 && a->wd >= 40 ? 1 : 0;
}

static void faults_strip_draw(app *a)
{
	if (!faults_strip_height(a))
		return;
	faults_ui *u = FU(a);
	const faults_stats *s = &u->st;
	uint64_t ps = (uint64_t)faults_page_size(u->f);
	char mi[32], ma[32], held[32], rss[32], heap[32] = "", line[400];
	view_fmt_value(mi, sizeof(mi), (int64_t)(s->minor_pages * ps), 0);
	view_fmt_value(ma, sizeof(ma), (int64_t)(s->major_pages * ps), 0);
	view_fmt_value(held, sizeof(held), (int64_t)(s->held * ps), 0);
	int64_t r = u->gone_said ? -1 : follow_rss((int)faults_pid(u->f));
	if (r >= 0)
		view_fmt_value(rss, sizeof(rss), r, 0);
	else
		snprintf(rss, sizeof(rss), "-");
	if (u->has_heap)
		view_fmt_value(heap, sizeof(heap), u->heap.f.inuse_bytes, 0);
	snprintf(line, sizeof(line),
		 " faults: minor %s  major %s  in use %s  repeats %" PRIu64 "  lost %" PRIu64 "  rss %s%s%s", mi, ma, held,
		 s->repeats, s->lost, rss, u->has_heap ? "  heap " : "", heap);
	put_text(a, 2, 0, a->wd, line, s->lost ? A_BOLD | A_REVERSE : A_BOLD, 1);
}

static const char *faults_status_note(const app *a)
{
	return FU(a)->note;
}

static const char *faults_title_state(const app *a)
{
	return FU(a)->state;
}

static const char *faults_file_stem(const app *a)
{
	(void)a;
	return "mprof-faults";
}

/* The heap or the pages, whichever is on screen. */
static const prof *write_profile(const app *a)
{
	const faults_ui *u = FU(a);
	return u->heap_shown ? u->heap.f.p : u->mp;
}

static int ask_write(app *a, int v1)
{
	faults_ui *u = FU(a);
	char base[64];
	snprintf(base, sizeof(base), "mprof-%d-%s", (int)faults_pid(u->f), u->heap_shown ? "heap" : "faults");
	return write_ui_prompt(a, v1, &(write_ask){ .what = u->heap_shown ? "the heap" : "the pages", .base = base,
						     .profile = write_profile });
}

static int faults_key(app *a, int key)
{
	faults_ui *u = FU(a);
	switch (key) {
	case 'w': return ask_write(a, 0) | REACT_REDRAW;
	case 'W': return ask_write(a, 1) | REACT_REDRAW;
	case 'v':
		if (!u->has_heap) {
			snprintf(a->v.status, sizeof(a->v.status),
				 "pid %d does not run under the hook: pages only (mprof-tui --inject %d loads it)",
				 (int)faults_pid(u->f), (int)faults_pid(u->f));
			return REACT_REDRAW;
		}
		u->heap_shown = !u->heap_shown;
		a->sy = u->heap_shown ? u->heap.sy : u->sy;
		view_reload(&a->v, u->heap_shown ? u->heap.f.p : u->mp, 1);
		snprintf(a->v.status, sizeof(a->v.status), "%s; v switches back",
			 u->heap_shown ? "the heap (malloc accounting, from the hook)"
				       : "the pages (first touches by stack, from page faults)");
		title_update(a);
		return REACT_REDRAW;
	}
	return REACT_UNHANDLED;
}

static void faults_free(app *a)
{
	faults_ui *u = FU(a);
	sym_close(u->sy);
	sym_close(u->heap.sy);
	a->sy = NULL;
	if (u->has_heap)
		follow_close(&u->heap.f);
	faults_close(u->f);
	prof_free(u->mp);
	a->mode_data = NULL;
}

static const keybar_item faults_keys[] = {
	{ "v", "Heap/Pages " }, { "w", "Write " }, { NULL, NULL },
};

const mode_ops faults_mode = {
	.name = "faults",
	.tick = faults_tick,
	.wait_ms = faults_wait_ms,
	.key = faults_key,
	.strip_height = faults_strip_height,
	.strip_draw = faults_strip_draw,
	.status_note = faults_status_note,
	.title_state = faults_title_state,
	.keys = faults_keys,
	.file_stem = faults_file_stem,
	.free = faults_free,
};

int tui_faults(const tui_live_opts *o)
{
	static app a;   /* static: as in tui_run */
	static faults_ui u;
	memset(&a, 0, sizeof(a));
	memset(&u, 0, sizeof(u));
	prof_error err;
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "mprof-tui: the pages view needs a terminal (for a file: --faults %d -o FILE)\n", o->pid);
		return 2;
	}
	if (faults_attach(&u.f, o->pid, &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return 2;
	}
	char lib[4096];
	prof_error lerr;
	u.has_heap = follow_open(&u.heap.f, o->pid, launch_find_lib(lib, sizeof(lib), &lerr) ? NULL : lib, &lerr) == 0;
	follow_ui_init(&u.heap, o);
	a.mode = &faults_mode;
	a.mode_data = &u;   /* from here on app_free closes all */
	int bad = !(u.mp = prof_new()) || faults_pull(&a) < 0 || faults_thread_start(u.f);
	if (!bad && u.has_heap && follow_sync(&u.heap.f) >= 0)
		follow_ui_sym(&u.heap, &a, u.heap_shown);
	if (!bad) {
		faults_sym(&a);
		title_update(&a);
	}
	if (bad || app_view_open(&a, u.mp, o->gran, u.title)) {
		fprintf(stderr, "mprof-tui: pid %d: out of memory\n", o->pid);
		app_free(&a);
		return 1;
	}
	if (o->objects)
		view_toggle_objects(&a.v);
	snprintf(a.v.status, sizeof(a.v.status), "sampling the page faults of pid %d: pages resident by stack (s: every fault)%s",
		 o->pid, u.has_heap ? "; v shows its heap" : "");
	follow_ui_start(&u.heap);
	int rc = app_run(&a);
	app_free(&a);
	return rc;
}
