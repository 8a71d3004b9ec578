/* live_ui.h - live mode's own state, shared by its files and by nothing
 * else: live_ui.c (the mode: ticks, refreshes, keys, the entry),
 * live_snap.c (snapshots and their diffs), live_ask.c (its prompts),
 * live_strip.c (the timeline strip above the table) and live_child.c (the
 * life of a program it started, -- CMD). */
#ifndef MPROF_TUI_LIVE_UI_H
#define MPROF_TUI_LIVE_UI_H

#include <stdint.h>
#include <sys/types.h>

#include "attach/live/follow.h"
#include "core/snapdiff.h"
#include "tui/app_state.h"
#include "tui/newmarks.h"
#include "tui/follow_ui.h"

#define LIVE_SNAPS 64
#define LIVE_FIT -1   /* zoom: the whole run since the attach fits the strip */

/* The moment on screen: the title's total, the strip's figures and the
 * diff's growth all come from the one tick that read it. */
typedef struct live_moment {
	int64_t ns;              /* on the segment's clock */
	int64_t k;               /* its timeline bucket: the strip ends there */
	int64_t heap, peak;      /* heap in use from the counters, as the table's */
	int64_t rss, peak_rss;
} live_moment;

typedef struct live_ui {
	follow_ui fu;            /* the segment, its symbols, the refresh interval */
	int paused;
	int zoom;                /* index into zoom_ms, or LIVE_FIT */
	live_moment at;          /* what the screen shows */
	int64_t next_drain;      /* monotonic ms */
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
	char dump[4096];         /* -- CMD: the profile it leaves ("" when MPROF_OUT names it) */
	const char *cmd;         /* -- CMD: argv[0], reported when it is stopped */
	int ran;                 /* the UI ran: say how the child ended */
	int leave;               /* quit with "detach": the child runs on */
	int unhook;              /* quit with "detach" from a hook we injected: take it out */
	int late;                /* the hook was injected: history before it is unknown */
	int allocs_tries;        /* reads of the allocator table left (the hook writes it at start) */
	int no_rss;              /* the source knows no process RSS (a URL): the strip says so */
	/* Another source than a segment (http_ui.c): its refresh and title. */
	int (*pull)(app *a);
	void (*retitle)(app *a);
} live_ui;

static inline live_ui *LV(const app *a)
{
	return a->mode_data;
}

/* live_ui.c */
void live_title_update(app *a);
int live_refresh(app *a);
int live_show(app *a, int ch);
int live_key(app *a, int key);
const char *live_title_state(const app *a);
const char *live_status_note(const app *a);
void live_view_opts(app *a, const tui_live_opts *o);

/* live_snap.c: snapshots (m) and the diff of two moments (d) */
const char *live_moment_name(const live_ui *lv, int i, char *buf, size_t len);
int64_t live_moment_ns(const live_ui *lv, int i);
int live_diff_rebuild(app *a, int frames_changed);
int live_diff_open(app *a, int from, int to);
void live_growth_status(app *a);
void live_diff_close(app *a);
int live_in_diff(const app *a);
new_marks *live_marks(app *a);
void live_snapshot_take(app *a);

/* live_ask.c: the questions of w W and d */
int live_ask_write(app *a, int v1);
int live_ask_diff(app *a);

/* live_strip.c: the timeline strip and its zoom (z Z =) */
int live_strip_height(const app *a);
void live_strip_draw(app *a);
void live_zoom_key(app *a, int key);

/* live_child.c: the program started with -- CMD */
void live_child_stop(live_ui *lv);
int live_quit_key(app *a, int key);
void live_child_end(live_ui *lv);
int live_child_start(live_ui *lv, const tui_live_opts *o, const char *lib, int have_lib, prof_error *err, pid_t *pid);
int live_child_gone(live_ui *lv, const tui_live_opts *o, pid_t pid);

#endif
