/* inject_ui.h - the injection on the terminal (attach/inject/inject.h does it). */
#ifndef MPROF_INJECT_UI_H
#define MPROF_INJECT_UI_H

#include "core/load.h"

/* --attach on a process with no segment: asks on the terminal (one key,
 * y/n) and injects.  1 injected, 0 declined (or no such process: the
 * attach says so), -1 with err. */
int inject_offer(int pid, const char *lib, prof_error *err);
/* Quitting a session on an injected, still recording process: asks
 * d (detach) or k (keep recording) and does it.  1 detached, 0 not, -1
 * the detach failed (said on stderr). */
int inject_quit_offer(int pid);
/* --inject PID / --detach PID: messages on stdout/stderr; exit status. */
int inject_ui_run(const char *pid_arg, int detach);

#endif
