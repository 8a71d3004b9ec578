/* tui.h - the interactive terminal UI over one profile. */
#ifndef MPROF_TUI_H
#define MPROF_TUI_H

#include "core/agg.h"
#include "core/prof.h"
#include "symbols/sym.h"

struct sym;

/* Runs the UI on the terminal until the user quits; m and a (borrowed) are
 * p's map and aggregate at granularity gran (a sym_gran). With sy (borrowed,
 * may be NULL) the 'g' key builds the other granularities from symbols.
 * Restores the terminal on every exit path. Returns the exit status. */
int tui_run(const prof *p, const prof_nodemap *m, const agg *a, const char *path,
	    struct sym *sy, int gran);

/* Live mode: follow a process running under libmprof.so (pid), or start
 * argv (NULL-terminated) under it first. */
typedef struct tui_live_opts {
	int pid;                 /* --attach PID; 0 with argv */
	char *const *argv;       /* -- CMD ARGS, or NULL */
	int interval_ms;         /* refresh period; 0 for 500 */
	int gran;                /* the first granularity (a sym_gran) */
	sym_opts so;             /* --root, --search-path, --source-dir */
} tui_live_opts;

/* Runs the live UI until the user quits. Errors (no such process, another
 * user's, no segment, a bad one) print one line and return 2. */
int tui_live(const tui_live_opts *o);

#endif
