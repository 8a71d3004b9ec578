/* write_ui.h - the one write prompt (w and W) that every mode feeds: what
 * is written, the default file's base name, the profile, and a mode's own
 * answers (live mode's "#N FILE") through a hook. */
#ifndef MPROF_TUI_WRITE_UI_H
#define MPROF_TUI_WRITE_UI_H

#include "tui/app.h"

typedef struct write_ask {
	const char *what;        /* said in the question: "the profile", "the heap", "now" ... */
	const char *base;        /* the default file: base.pro, or base-2.pro ... when taken */
	const char *more;        /* a further answer offered, "(...)" after the default; NULL: none */
	/* Sees the answer first (spaces skipped): 1 when it handled it. NULL: none. */
	int (*answer)(app *a, const char *ans);
	/* The profile written, read at the answer; NULL: the one on screen. */
	const prof *(*profile)(const app *a);
} write_ask;

/* Asks "write WHAT (FORMAT) to [DEFAULT]: " and writes the answer's file
 * (native for w, skynet v1 for W); returns REACT_PROMPT. */
int write_ui_prompt(app *a, int v1, const write_ask *w);

#endif
