/* window.h - mprof-tui --window SECONDS PID: the heap over a window of a
 * running process.  The hook (loaded with ptrace if the process has none)
 * marks every block allocated while the window is open and counts those
 * blocks, and the frees of those blocks only, in counters of their own
 * (attach/shared/segment.h, win_state): the result's alloc metric is what was
 * allocated in the window, its in-use metric what of that is still alive
 * at its end; blocks from before the window count nowhere, freed or not. */
#ifndef MPROF_WINDOW_H
#define MPROF_WINDOW_H

#include <stdio.h>

#include "core/load.h"

typedef struct window_opts {
	int pid;
	double seconds;          /* > 0 */
	int keep;                /* leave a hook we loaded recording at the end */
	const char *lib;         /* the libmprof.so to load when pid has none */
	FILE *msg;               /* "window open" goes here once it is (NULL: nowhere) */
} window_opts;

typedef struct window_result {
	prof *p;                 /* the window's profile; the caller frees it */
	double open_s;           /* how long the window was open */
	int exited;              /* the process ended during the window */
	int signal;              /* SIGINT or SIGTERM cut the window short; 0 none */
	int injected;            /* the hook was loaded (or switched on again) for it */
	int detached;            /* ... and switched off again at the end */
	int detach_slots;        /* call slots the detach restored */
	size_t odd;              /* stacks left out: more freed than allocated in the window */
	char note[512];          /* a detach that failed: why (the window was written) */
} window_result;

/* Opens a window on o->pid, waits o->seconds (less if the process exits or
 * a SIGINT/SIGTERM arrives), closes it and builds its profile into r->p.
 * Loads the hook first when pid has none (then detaches it unless keep).
 * 0, or -1 with a one-line err: no such process, another user's, a window
 * already open by another mprof-tui, the injection refused, a bad segment. */
int window_run(const window_opts *o, window_result *r, prof_error *err);

/* Parses SECONDS (decimal, > 0, at most a week); -1 when invalid. */
double window_seconds_arg(const char *s);

#endif
