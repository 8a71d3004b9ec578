/* tui.h - the entries main.c calls for the interactive modes: one profile
 * file, or two to diff (tui_run, file_ui.c), a hooked process followed live
 * (tui_live, live_ui.c) and a process's page faults (tui_faults,
 * faults_ui.c); each sets up an app and runs it (app.h). A recording's
 * entries are in rec.h. */
#ifndef MPROF_TUI_H
#define MPROF_TUI_H

#include "core/agg.h"
#include "core/prof.h"
#include "symbols/sym.h"

struct sym;

/* What the file UI starts from. p, m, a (p's map and aggregate at
 * granularity gran, a sym_gran) and sy (symbols over p, may be NULL) are
 * borrowed; with sy the 'g' key builds the other granularities. */
typedef struct tui_file_opts {
	const prof *p;
	const prof_nodemap *m;
	const agg *a;
	const char *path;
	struct sym *sy;
	int gran;
	int alloc, objects;      /* --alloc, --objects: the starting metric */
	const prof *base;        /* two files (BASE NEW): d toggles NEW - BASE */
	const char *base_path;
	int diff_open;           /* --diff BASE NEW: the diff on from the start */
	const sym_opts *so;      /* to open symbols over the diff */
	const char *status;      /* the first status line, or NULL */
} tui_file_opts;

/* Runs the UI on the terminal until the user quits. Restores the terminal
 * on every exit path. Returns the exit status. */
int tui_run(const tui_file_opts *o);

/* Live mode: follow a process running under libmprof.so (pid), or start
 * argv (NULL-terminated) under it first. */
typedef struct tui_live_opts {
	int pid;                 /* --attach PID; 0 with argv */
	char *const *argv;       /* -- CMD ARGS, or NULL */
	int interval_ms;         /* refresh period; 0 for 500 */
	int gran;                /* the first granularity (a sym_gran) */
	int alloc, objects;      /* --alloc, --objects: the starting metric */
	sym_opts so;             /* --root, --search-path, --source-dir */
	const char *out;         /* -- CMD: -o FILE, the profile it leaves; NULL: MPROF_OUT's, else
				  * mprof.PROG.PID.pro in the current directory */
	char *ended;             /* -- CMD that ended before the screen was up: its profile's path
				  * goes here (ended_len bytes) and tui_live returns TUI_LIVE_ENDED */
	size_t ended_len;
} tui_live_opts;

/* tui_live's status for a program that ended before its screen was up,
 * leaving its profile in o->ended (the caller opens it). */
#define TUI_LIVE_ENDED 3

/* Runs the live UI until the user quits. Errors (no such process, another
 * user's, no segment, a bad one) print one line and return 2. */
int tui_live(const tui_live_opts *o);
/* --attach URL: the live UI over a profile served over HTTP, refetched
 * every o->interval_ms (http_ui.c); a first fetch that fails prints one
 * line and returns 2. */
int tui_live_http(const char *url, const tui_live_opts *o);

/* --faults --attach PID: its page faults by stack, live (faults_ui.c);
 * pid, interval, gran, objects and so of o are used. Errors print one
 * line and return 2. */
int tui_faults(const tui_live_opts *o);

#endif
