/* record_attach.h - mprof-tui --record DIR --attach PID: the recording
 * writer run from outside the process, over its segment. */
#ifndef MPROF_RECORD_ATTACH_H
#define MPROF_RECORD_ATTACH_H

#include <stdio.h>

/* Records pid into dir until the process exits or SIGINT/SIGTERM arrives;
 * MPROF_RECORD_SIZE and MPROF_RECORD_FILES as in the hook. Progress and
 * the summary go to msg. Returns the exit status (2: bad pid or segment). */
int record_attach(int pid, const char *dir, const char *lib, FILE *msg);

#endif
