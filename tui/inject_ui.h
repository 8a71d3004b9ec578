/* inject_ui.h - the injection on the terminal (attach/inject/inject.h does it). */
#ifndef MPROF_INJECT_UI_H
#define MPROF_INJECT_UI_H

#include "core/load.h"

/* --attach on a process with no segment: asks on the terminal (one key,
 * y/n) and injects.  1 injected, 0 declined (or no such process: the
 * attach says so), -1 with err. */
int inject_offer(int pid, const char *lib, prof_error *err);
/* After a session on an injected, still recording process quit with the
 * screen's answer (detach 1: d, 0: k): does it and says so on stderr.
 * 1 detached, 0 not, -1 the detach failed (said). */
int inject_quit_said(int pid, int detach);
/* --inject PID / --detach PID: messages on stdout/stderr; exit status. */
int inject_ui_run(const char *pid_arg, int detach);

#endif
