/* missing_syms.h - modules without symbols, said to the user
 * (missing_syms.c). */
#ifndef MPROF_TUI_MISSING_SYMS_H
#define MPROF_TUI_MISSING_SYMS_H

#include "tui/app_state.h"

struct sym;

/* Modules whose symbols could not be read, each once, and what their frames
 * show instead (then): one line each on stderr (batch reports), or the
 * first status line (the screens). */
void app_say_missing(struct sym *sy, const char *then);
void app_missing_status(app *a, const char *then);

#endif
