/* export_ui.h - e (export_ui.c): the view on screen written for other
 * tools, or drawn as a call graph. */
#ifndef MPROF_TUI_EXPORT_UI_H
#define MPROF_TUI_EXPORT_UI_H

#include <stddef.h>

#include "tui/app_state.h"

/* The formats of export_parse, and "callgraph" (the
 * picture, a diff's when the diff is on); -1 if unknown. A default file
 * name for format f (does not exist yet) and the write of the view on
 * screen (its profile, granularity and metric). */
#define EXPORT_UI_CALLGRAPH 4
int export_ui_parse(const char *name);
const char *export_ui_default(const app *a, int f, char *buf, size_t len);
void export_ui_write(app *a, int f, const char *file);

#endif
