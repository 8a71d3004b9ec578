/* filediff.h - the mode of two files given, BASE and NEW (filediff.c):
 * what file_ui.c sets up when a second file is given. */
#ifndef MPROF_TUI_FILEDIFF_H
#define MPROF_TUI_FILEDIFF_H

#include "core/prof.h"
#include "symbols/sym.h"
#include "tui/app_state.h"

/* Two files, BASE and NEW, as a's mode (filediff_mode): d
 * toggles NEW - BASE on every screen; with open the diff is on from the
 * first tick (one that cannot be built says why on the status line). base
 * and the strings are borrowed. 0, or -1 when out of memory. */
int filediff_init(app *a, const prof *base, const char *base_path, const sym_opts *so, int open);

#endif
