/* app_view.h - the view a mode opens over a profile, with its
 * granularities built from the symbols over it (app_view.c). */
#ifndef MPROF_TUI_APP_VIEW_H
#define MPROF_TUI_APP_VIEW_H

#include "core/prof.h"
#include "tui/app_state.h"

/* The view's granularities: first (the one its maps were built at), then,
 * with symbols, the other three; maps are built from app_sym(a). */
void app_set_grans(app *a, int first);
/* Opens the view over p (live or a recording's moment) at granularity
 * first, its map and aggregate built from app_sym(a) and owned by the
 * view, then app_set_grans. 0, or -1 when out of memory. */
int app_view_open(app *a, const prof *p, int first, const char *title);

#endif
