/* write_ui.h - w and W (write_ui.c): the profile on screen written as
 * native or skynet v1 .pro, for the file modes' prompt and for the live
 * and faults modes, which save through write_ui_save. */
#ifndef MPROF_TUI_WRITE_UI_H
#define MPROF_TUI_WRITE_UI_H

#include <stddef.h>

#include "core/prof.h"
#include "tui/app_state.h"

/* w and W, the profile on screen written as native or skynet
 * v1: a default file name that does not exist yet (base.pro, base-2.pro,
 * ...), the save with its status line, and the prompt of the file modes. */
void write_ui_free_name(char *buf, size_t len, const char *base);
void write_ui_save(app *a, const prof *p, const char *file, int v1);
int write_ui_ask(app *a, int v1);

#endif
