/* rec.h - mprof-tui over a recording directory: the batch reports
 * (rec_main.c) and the time-travel UI (rec_ui.c). */
#ifndef MPROF_TUI_REC_H
#define MPROF_TUI_REC_H

#include "core/recording.h"
#include "core/report.h"
#include "symbols/sym.h"

typedef struct rec_opts {
	const char *dir;
	const char *at;                  /* --at TIME */
	const char *diff_from, *diff_to; /* --diff-at T1 T2 */
	const char *leak_from, *leak_to; /* --leaks T1 T2 */
	int temporary;                   /* --temporary */
	int info;                        /* --info: the recording's summary */
	int batch;                       /* a batch option, or no terminal */
	report_opts ro;
	int gran;                        /* a sym_gran */
	sym_opts so;
} rec_opts;

/* mprof-tui DIR: batch report or UI; returns the exit status. */
int rec_run(const rec_opts *o);
/* The UI over an open recording (rec_ui.c). */
int tui_rec(recording *r, const rec_opts *o);

#endif
