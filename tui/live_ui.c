/* live_ui.c - live mode: a hooked process followed on the screens of file
 * mode. It owns the mode itself (its mode_ops): the tick that drains the
 * event ring and refreshes the profile every interval (the view keeps its
 * place through view_reload, every figure on screen is of the same
 * refresh), pausing (p), the title's state (running, PAUSED, EXITED), the
 * process's last state kept once it is gone, the keys, and the entry
 * tui_live. Snapshots and diffs are in live_snap.c, the questions in
 * live_ask.c, the strip in live_strip.c, the started child in
 * live_child.c. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "attach/live/follow.h"
#include "attach/inject/inject.h"
#include "attach/live/launch.h"
#include "attach/live/sample_ctl.h"
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
#include "tui/live_ui.h"
#include "tui/tui.h"
#include "tui/write_ui.h"

#define LIVE_DRAIN_MS 100

/* ---- titles ---------------------------------------------------------------- */

/* The status line once the process is gone: its exit as far as known. */
static void final_status(app *a)
{
	live_ui *lv = LV(a);
	char st[64];
	follow_ui_exit_text(&lv->fu.f, st, sizeof(st));
	snprintf(a->v.status, sizeof(a->v.status),
		 "process %d %s: final state kept; browse, m snapshot, d diff, w write, q quit", lv->fu.f.pid, st);
}

void live_title_update(app *a)
{
	live_ui *lv = LV(a);
	if (lv->retitle) {
		lv->retitle(a);
		return;
	}
	char state[64], d[200] = "";
	follow_ui_state(&lv->fu.f, lv->fu.f.exited, lv->paused, state, sizeof(state));
	if (lv->diff) {
		char f[16], t[16];
		double dt = (double)(live_moment_ns(lv, lv->to) - live_moment_ns(lv, lv->from)) / 1e9;
		snprintf(d, sizeof(d), "DIFF %s -> %s (%.2f s)", live_moment_name(lv, lv->from, f, sizeof(f)),
			 live_moment_name(lv, lv->to, t, sizeof(t)), dt);
	}
	/* Sampling off, or rates changed (the title's ESTIMATES gives the rate). */
	char smp[200] = "";
	const seg_header *h = lv->fu.f.m.h;
	if (h && (__atomic_load_n(&h->sample_rate, __ATOMIC_RELAXED) == SEG_SAMPLE_OFF ||
		  __atomic_load_n(&h->sample.changes, __ATOMIC_RELAXED))) {
		smp[0] = smp[1] = ' ';
		sample_ctl_text(h, smp + 2, sizeof(smp) - 2);
	}
	snprintf(lv->state, sizeof(lv->state), "pid %d %s%s%s%s%s", lv->fu.f.pid, state,
		 lv->paused && lv->fu.f.exited ? " PAUSED" : "", smp, *d ? "  " : "", d);
	snprintf(lv->title, sizeof(lv->title), "%s", follow_ui_cmdline(lv->fu.f.p));
	a->v.path = lv->title;
}

/* ---- refresh ---------------------------------------------------------------- */

/* The moment just read: the counters' total (the table's), the timeline
 * up to now. */
static void moment_take(live_ui *lv)
{
	const timeline *t = &lv->fu.f.tl;
	live_moment *m = &lv->at;
	m->ns = follow_now_ns(&lv->fu.f);
	m->k = t->last;
	m->heap = lv->fu.f.inuse_bytes;
	m->peak = t->peak > m->heap ? t->peak : m->heap;
	m->rss = t->cur_rss;
	m->peak_rss = t->peak_rss;
}

/* Reads the ring and the segment at one moment and, unless a diff of
 * snapshots is on screen, puts the new state under the view. Returns 1
 * when something changed, or the strip's time moved on. */
int live_refresh(app *a)
{
	live_ui *lv = LV(a);
	if (lv->pull)
		return lv->pull(a);
	int64_t k0 = lv->at.k;
	int ch = follow_ui_pull(&lv->fu, a, 1);   /* the strip up to the moment of the counters */
	if (ch >= 0)
		moment_take(lv);
	if (ch < 0) {
		snprintf(a->v.status, sizeof(a->v.status), "out of memory reading the segment");
		return 1;
	}
	if (lv->late)
		follow_since_note(&lv->fu.f, lv->note, sizeof(lv->note));
	if (!ch)
		return lv->at.k != k0;   /* nothing moved but time: the strip goes on */
	return live_show(a, ch);
}

/* Puts a change (FOLLOW_* flags, not 0) under the view, or moves a diff
 * whose end is "now"; 1. The HTTP source (http_ui.c) shows through it too. */
int live_show(app *a, int ch)
{
	live_ui *lv = LV(a);
	if (lv->diff) {
		if (lv->to < 0) {   /* "now" is one end: the diff moves too, and its growth */
			int shown = !strcmp(a->v.status, lv->growth);
			live_diff_rebuild(a, ch & FOLLOW_FRAMES);
			if (shown)
				live_growth_status(a);
		}
		return 1;
	}
	char keep[VIEW_STATUS_LEN];
	snprintf(keep, sizeof(keep), "%s", a->v.status);
	view_reload(&a->v, lv->fu.f.p, ch & FOLLOW_FRAMES);
	if (!a->v.status[0])
		snprintf(a->v.status, sizeof(a->v.status), "%s", keep);
	lv->marks.gen++;
	return 1;
}

/* The hook in pid was injected (history before it is unknown): one read of its flags. */
static int live_injected(int pid)
{
	int flags = inject_seg_flags(pid);
	return flags > 0 && (flags & SEG_FLAG_LATE);
}

/* The process ran a new program under the hook (exec: a wrapper script's
 * last step): follow that program from its new segment. The old one's
 * snapshots and diff go (their stacks are not the new program's); the
 * child we started stays ours. 1 when switched; else tried next refresh. */
static int live_exec_follow(app *a)
{
	live_ui *lv = LV(a);
	follow nf;
	prof_error err;
	if (follow_open(&nf, lv->fu.f.pid, NULL, &err))
		return 0;
	if (lv->diff)
		live_diff_close(a);
	for (int i = 0; i < lv->nsnaps; i++)
		snap_free(&lv->snaps[i]);
	lv->nsnaps = 0;
	nf.child = lv->fu.f.child;
	nf.child_status = lv->fu.f.child_status;
	follow old = lv->fu.f;
	lv->fu.f = nf;
	lv->late = live_injected(nf.pid);
	lv->allocs_tries = 20;
	int bad = follow_sync(&lv->fu.f) < 0;
	follow_ui_sym(&lv->fu, a, 1);   /* closes the old program's symbols, which old's p backs */
	view_reload(&a->v, lv->fu.f.p, 1);
	follow_close(&old);
	lv->marks.gen++;
	moment_take(lv);
	live_title_update(a);
	if (bad)
		snprintf(a->v.status, sizeof(a->v.status), "out of memory reading the segment");
	else
		snprintf(a->v.status, sizeof(a->v.status), "pid %d ran a new program (exec): following %.200s",
			 lv->fu.f.pid, follow_ui_cmdline(lv->fu.f.p));
	return 1;
}

/* Adds the allocators the hook found beyond the program's malloc to the
 * status line's note, once the hook has written its table. */
static void allocs_note(live_ui *lv)
{
	seg_alloc t[1];
	if (lv->allocs_tries <= 0 || !seg_allocs_copy(lv->fu.f.m.h, lv->fu.f.m.len, t, 1)) {
		lv->allocs_tries--;
		return;
	}
	lv->allocs_tries = 0;
	char sum[400];
	allocs_summary(lv->fu.f.m.h, lv->fu.f.m.len, sum, sizeof(sum));
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
	if (!lv->fu.f.exited && now >= lv->next_drain) {
		follow_drain(&lv->fu.f);   /* keeps up with the ring; the screen moves at the refresh */
		lv->next_drain = now + LIVE_DRAIN_MS;
	}
	if (!lv->final_done && follow_ui_due(&lv->fu, now, 0)) {
		if (follow_execd(&lv->fu.f))
			redraw |= live_exec_follow(a);
		if (lv->allocs_tries > 0)
			allocs_note(lv);
		int gone = follow_check_exit(&lv->fu.f);
		if (!lv->paused)
			redraw |= live_refresh(a);
		if (gone && !lv->paused) {
			/* The mapping outlives the process: this is its last state. */
			lv->final_done = 1;
			follow_ui_sym(&lv->fu, a, 1);
			if (!lv->diff)
				view_reload(&a->v, lv->fu.f.p, 1);
			else
				live_diff_rebuild(a, 1);
			lv->marks.gen++;
			final_status(a);
			redraw = 1;
		}
	} else if (lv->final_done && lv->fu.f.child > 0 && lv->fu.f.child_status < 0) {
		/* The hook marks the exit before the kernel reaps: the status comes later. */
		follow_check_exit(&lv->fu.f);
		if (lv->fu.f.child_status >= 0) {
			char lead[32];
			int n = snprintf(lead, sizeof(lead), "process %d EXITED", lv->fu.f.pid);
			if (!strncmp(a->v.status, lead, (size_t)n))   /* still the final line, not a newer one */
				final_status(a);
			redraw = 1;
		}
	}
	live_title_update(a);
	return redraw;
}

static int live_wait_ms(const app *a)
{
	const live_ui *lv = LV(a);
	if (lv->final_done)
		return 250;
	int64_t next = lv->fu.next_sync;
	if (!lv->fu.f.exited && lv->next_drain < next)
		next = lv->next_drain;
	return follow_ui_wait_ms(next, 250);
}

int live_key(app *a, int key)
{
	live_ui *lv = LV(a);
	view *v = &a->v;
	switch (key) {
	case 'w': return live_ask_write(a, 0) | REACT_REDRAW;
	case 'W': return live_ask_write(a, 1) | REACT_REDRAW;
	case 'p':
		lv->paused = !lv->paused;
		snprintf(v->status, sizeof(v->status), "%s", lv->paused
			 ? "paused: the screen holds still (events are still read); p resumes"
			 : "resumed");
		if (!lv->paused)
			lv->fu.next_sync = 0;
		live_title_update(a);
		return REACT_REDRAW;
	case 'm':
		live_snapshot_take(a);
		return REACT_REDRAW;
	case 'z': case 'Z': case '=':
		live_zoom_key(a, key);
		return REACT_REDRAW;
	case 'q': case 'Q':
		return live_quit_key(a, key);
	case 'd':
		if (lv->diff) {
			live_diff_close(a);
			return REACT_REDRAW;
		}
		return live_ask_diff(a) | REACT_REDRAW;
	}
	return REACT_UNHANDLED;
}

const char *live_title_state(const app *a)
{
	return LV(a)->state;
}

const char *live_status_note(const app *a)
{
	return LV(a)->note;
}

static const char *live_file_stem(const app *a)
{
	(void)a;
	return "mprof-live";
}

/* --alloc and --objects on a live view just opened (http_ui.c's too). */
void live_view_opts(app *a, const tui_live_opts *o)
{
	if (o->alloc)
		view_toggle_alloc(&a->v);
	if (o->objects)
		view_toggle_objects(&a->v);
}

/* Stops a -- CMD child still running (saying so once the UI ran), then
 * frees the snapshots, the diff, the symbols and the segment. */
static void live_free(app *a)
{
	live_ui *lv = LV(a);
	live_child_end(lv);
	for (int i = 0; i < lv->nsnaps; i++)
		snap_free(&lv->snaps[i]);
	newmarks_free(&lv->marks);
	sym_close(lv->fu.sy);
	follow_close(&lv->fu.f);
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
		int st = live_child_start(&lv, o, lib, have_lib, &err, &pid);
		if (st)
			return st;
	}
	/* No segment: offer to load the hook with ptrace (one key). */
	if (!o->argv && tty && have_lib && inject_seg_flags((int)pid) < 0 && inject_offer((int)pid, lib, &err) < 0) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return 2;
	}
	if (follow_open(&lv.fu.f, (int)pid, have_lib ? lib : NULL, &err)) {
		if (o->argv && live_child_gone(&lv, o, pid))
			return TUI_LIVE_ENDED;   /* it ended between the launch and here */
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		if (o->argv) {
			lv.fu.f.child = pid;
			lv.fu.f.child_status = -1;
			live_child_stop(&lv);
		}
		return 2;
	}
	if (!tty) {   /* the checks above hold without one, the screens do not */
		fprintf(stderr, "mprof-tui: live mode needs a terminal (for a file: --snapshot %d -o FILE)\n", (int)pid);
		follow_close(&lv.fu.f);
		return 2;
	}
	if (o->argv) {
		lv.fu.f.child = pid;
		lv.cmd = o->argv[0];
		snprintf(lv.note, sizeof(lv.note), "output: %s", lv.out);
	} else if ((lv.late = live_injected((int)pid))) {
		snprintf(lv.note, sizeof(lv.note), "history before the attach is unknown");
	}
	lv.allocs_tries = 20;
	allocs_note(&lv);
	follow_ui_init(&lv.fu, o);
	a.mode = &live_mode;
	a.mode_data = &lv;   /* from here on app_free stops the child and closes all */
	lv.zoom = LIVE_FIT;
	int bad = follow_sync(&lv.fu.f) < 0;
	if (!bad) {
		moment_take(&lv);
		follow_ui_sym(&lv.fu, &a, 1);
		live_title_update(&a);
		bad = app_view_open(&a, lv.fu.f.p, o->gran, lv.title);
	}
	if (bad) {
		fprintf(stderr, "mprof-tui: pid %d: out of memory\n", (int)pid);
		app_free(&a);
		return 1;
	}
	live_view_opts(&a, o);
	if (o->argv)
		snprintf(a.v.status, sizeof(a.v.status), "started %.60s (pid %d); its output goes to %.150s", o->argv[0],
			 (int)pid, lv.out);
	else
		snprintf(a.v.status, sizeof(a.v.status), "attached to pid %d%s; m snapshot, d diff, p pause, w write",
			 (int)pid, lv.late ? " (injected: history before the attach is unknown)" : "");
	follow_ui_start(&lv.fu);
	int rc = app_run(&a);
	lv.ran = 1;
	if (!o->argv && rc == 0 && lv.late)
		inject_quit_said((int)pid, lv.unhook);   /* the screen's answer: d detach, k keep recording */
	app_free(&a);
	return rc;
}
