/* snapshot.h - mprof-tui --snapshot PID -o FILE: a live process's state to
 * a profile file. */
#ifndef MPROF_SNAPSHOT_H
#define MPROF_SNAPSHOT_H

#include "core/load.h"

/* Reads /dev/shm/mprof-<pid> and writes its current state to path in the
 * native format.  0, or -1 with err filled (one line). */
int snapshot_write(int pid, const char *path, prof_error *err);
/* The --snapshot option: parses pid_arg, reports errors on stderr;
 * returns the exit status (0, or 2 on bad input or no segment). */
int snapshot_to_file(const char *pid_arg, const char *out);

#endif
