/* tui.h - the interactive terminal UI over one profile. */
#ifndef MPROF_TUI_H
#define MPROF_TUI_H

#include "core/agg.h"
#include "core/prof.h"

struct sym;

/* Runs the UI on the terminal until the user quits; m and a (borrowed) are
 * p's map and aggregate at granularity gran (a sym_gran). With sy (borrowed,
 * may be NULL) the 'g' key builds the other granularities from symbols.
 * Restores the terminal on every exit path. Returns the exit status. */
int tui_run(const prof *p, const prof_nodemap *m, const agg *a, const char *path,
	    struct sym *sy, int gran);

#endif
