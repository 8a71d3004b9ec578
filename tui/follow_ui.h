/* follow_ui.h - following a live process on the screens, as the heap view
 * (live mode, live_ui.c) and the pages view (faults_ui.c) both do: the
 * hook's segment followed, its symbols, the refresh interval and its
 * ticks, the title's command line and the process's state. */
#ifndef MPROF_TUI_FOLLOW_UI_H
#define MPROF_TUI_FOLLOW_UI_H

#include <stddef.h>
#include <stdint.h>

#include "attach/live/follow.h"
#include "symbols/sym.h"
#include "tui/app_state.h"
#include "tui/tui.h"

typedef struct follow_ui {
	follow f;                /* the hook's segment */
	sym *sy;                 /* over f.p; reopened when frames arrive */
	sym_opts so;
	int interval_ms;         /* between refreshes */
	int64_t next_sync;       /* monotonic ms of the next refresh */
} follow_ui;

/* The interval (--interval, 500 ms by default) and the symbol options. */
void follow_ui_init(follow_ui *fu, const tui_live_opts *o);
/* The first refresh one interval from now. */
void follow_ui_start(follow_ui *fu);
/* 1 when a refresh is due at now (or forced), the next one set an
 * interval later; 0 when not yet. */
int follow_ui_due(follow_ui *fu, int64_t now, int force);
/* Milliseconds the loop may sleep until next (monotonic), 5 to max. */
int follow_ui_wait_ms(int64_t next, int max);
/* Symbols from the live process's maps while it runs, from the segment's
 * module table once it is gone; the screens use them when shown. */
void follow_ui_sym(follow_ui *fu, app *a, int shown);
/* Drains the ring (while the process runs) and syncs the profile, the
 * symbols reopened when frames arrived: FOLLOW_* flags, -1 out of memory. */
int follow_ui_pull(follow_ui *fu, app *a, int shown);
/* The title: the profile's command line, "?" when unknown. */
const char *follow_ui_cmdline(const prof *p);
/* How the process ended: EXITED, with the status or signal of our own
 * child (-- CMD); f may be NULL. */
void follow_ui_exit_text(const follow *f, char *buf, size_t len);
/* The process's state for the title: running, PAUSED, or EXITED (with
 * follow_ui_exit_text). */
void follow_ui_state(const follow *f, int gone, int paused, char *buf, size_t len);

#endif
