/* app.h - the app itself: the terminal's life cycle and the one event
 * loop (app.c) that reads a key, lets the mode and then the screen on top
 * map it to reactions, applies them (redraw, the ask line, quit) and
 * draws. The state it runs over, the ops tables and the reactions are in
 * app_state.h.
 *
 * tui/ is presentation only, over core/'s views, and its calls go one way:
 * main.c (the command line) -> the modes' entries (file_ui.c, filediff.c,
 * live_ui.c, rec_ui.c + rec_main.c, faults_ui.c), which set up an app and
 * call app_run -> app.c (the event loop and reactions) -> through the ops
 * tables, the screens (table.c, tree.c, peek.c callers/callees, source.c,
 * help.c) and the modes' hooks, and the questions a user is asked
 * (write_ui.c, export_ui.c; inject_ui.c from live mode) -> what they share (chrome.c,
 * strip.c, newmarks.c, nodeinfo.c, ask.c, app_state.c, app_view.c,
 * missing_syms.c, clock.c), which never call back into app.c. It owns no
 * profile logic. */
#ifndef MPROF_TUI_APP_H
#define MPROF_TUI_APP_H

#include "tui/app_state.h"

/* Runs the UI over a (view and mode set up) on the terminal until
 * the user quits; restores the terminal. Returns the exit status. */
int app_run(app *a);
/* The one teardown of every mode: the view, the source pane, the
 * node info, the mode's state and the line map. */
void app_free(app *a);
/* SIGINT, SIGTERM and SIGHUP end app_run (the terminal is restored, the
 * mode's free runs); installed early by a mode that must clean up after
 * them before the loop starts (a launched child). */
void app_signals_install(void);

/* Sizes the list to the terminal, draws everything once (erase, draw,
 * wnoutrefresh + doupdate: no flicker), and applies one key's reactions.
 * Exposed for the headless bench (newterm on /dev/null). */
const screen_ops *app_ops(const app *a);
void app_layout(app *a);
void app_draw(app *a);
int app_key(app *a, int key);

#endif
