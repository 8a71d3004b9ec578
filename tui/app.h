/* app.h - what the screens share: the application state, the reactions a
 * key handler returns (applied in one place, app.c), the two ops tables (a
 * screen's: what is drawn; a mode's: where profiles come from) and the
 * drawing helpers of chrome.c.
 *
 * tui/ is presentation only, over core/'s views: main.c (the command line,
 * one function per mode), app.c (the event loop and reactions), screens
 * (table.c, tree.c, peek.c callers/callees, source.c, help.c), modes
 * (file_ui.c, filediff.c, live_ui.c, rec_ui.c + rec_main.c, faults_ui.c), what they
 * share (chrome.c, newmarks.c, nodeinfo.c), and the questions a user is
 * asked (write_ui.c, export_ui.c, inject_ui.c).  It owns no profile logic. */
#ifndef MPROF_TUI_APP_H
#define MPROF_TUI_APP_H

#include "tui/app_state.h"
#include "tui/newmarks.h"

/* app.c: runs the UI over a (view and mode set up) on the terminal until
 * the user quits; restores the terminal. Returns the exit status. */
int app_run(app *a);
/* app.c: the one teardown of every mode: the view, the source pane, the
 * node info, the mode's state and the line map. */
void app_free(app *a);
/* SIGINT, SIGTERM and SIGHUP end app_run (the terminal is restored, the
 * mode's free runs); installed early by a mode that must clean up after
 * them before the loop starts (a launched child). */
void app_signals_install(void);

/* app.c: sizes the list to the terminal, draws everything once (erase, draw,
 * wnoutrefresh + doupdate: no flicker), and applies one key's reactions.
 * Exposed for the headless bench (newterm on /dev/null). */
const screen_ops *app_ops(const app *a);
void app_layout(app *a);
void app_draw(app *a);
int app_key(app *a, int key);

#endif
