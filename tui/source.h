/* source.h - the source pane (source.c): opened with l over the selected
 * row, its text dropped with the app; its screen_ops is source_ops
 * (app_state.h). */
#ifndef MPROF_TUI_SOURCE_H
#define MPROF_TUI_SOURCE_H

#include "tui/app_state.h"

/* l opens the source pane of the selected row (returns REACT_*);
 * source_free drops its text. */
int source_open(app *a);
void source_free(app *a);

#endif
