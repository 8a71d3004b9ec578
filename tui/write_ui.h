/* write_ui.h - w and W (write_ui.c): the one write prompt that every mode
 * feeds (what is written, the default file's base name, the profile, and a
 * mode's own answers, live mode's "#N FILE", through a hook), the default
 * name that does not exist yet, and the save with its status line. */
#ifndef MPROF_TUI_WRITE_UI_H
#define MPROF_TUI_WRITE_UI_H

#include <stddef.h>

#include "core/prof.h"
#include "tui/app_state.h"

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
/* The file modes' w and W: the profile on screen, named after its file. */
int write_ui_ask(app *a, int v1);
/* base.pro, or base-2.pro, ... : the first that does not exist yet. */
void write_ui_free_name(char *buf, size_t len, const char *base);
/* Writes p to file (skynet v1 or native) and says so on the status line. */
void write_ui_save(app *a, const prof *p, const char *file, int v1);

#endif
