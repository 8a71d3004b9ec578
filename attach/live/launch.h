/* launch.h - mprof-tui -- CMD ARGS: find the hook, start CMD with it
 * preloaded (its output to a file, not over the UI), wait for its segment. */
#ifndef MPROF_LAUNCH_H
#define MPROF_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

#include "core/load.h"

/* The libmprof.so to preload: $MPROF_LIB, else beside the running
 * mprof-tui, else ../lib beside it, else the install prefix's lib. Writes
 * the path into buf; 0, or -1 with err when none exists. */
int launch_find_lib(char *buf, size_t len, prof_error *err);

/* Starts argv[0] (looked up in PATH) with lib preloaded, in its own process
 * group, stdin from /dev/null, stdout and stderr to a new file whose name
 * goes into out (out_len bytes), MPROF_OUT set to dump (unless NULL: the
 * environment's stays); waits up to timeout_ms for its segment.
 * 0, or -1 with err (the child is killed and reaped); *pid is the child's
 * from the fork on; *early is
 * the wait status of a child that ended on its own before its segment was
 * seen (a short program: its dump may be there), else -1. */
int launch_start(char *const argv[], const char *lib, const char *dump, char *out, size_t out_len,
		 int timeout_ms, pid_t *pid, int *early, prof_error *err);

/* The profile a launch keeps, as heaptrack does: DIR/mprof.PROG.PID.pro,
 * PROG the base name of prog made safe for a file name, PID as given (a
 * number, or the hook's %p). */
void launch_dump_name(char *buf, size_t len, const char *dir, const char *prog, const char *pid);

/* Once the child has ended: its output file (out) removed when it stayed
 * empty, so a launch leaves no file behind that holds nothing. Writes
 * "its output is in OUT" or "it wrote no output" into buf. */
void launch_out_settle(const char *out, char *buf, size_t len);

/* Reaps child into *status if it ends within ms milliseconds: 1, else 0. */
int launch_reap(pid_t child, int ms, int *status);

/* Stops a started child: SIGTERM (its hook dumps and removes its segment),
 * SIGKILL after a second; reaps it into *status and removes a segment it
 * left (killed, its hook had no chance to). */
void launch_stop(pid_t child, int *status);

/* Runs argv[0] (looked up in PATH) with lib preloaded and MPROF_OUT=dump
 * to its end, with our standard input and output: --budget -- CMD. 0 with
 * *status its wait status, or -1 with err (it could not be started). */
int launch_run_dump(char *const argv[], const char *lib, const char *dump, int *status, prof_error *err);

#endif
