/* listing.h - mprof-tui --attach with no pid: the processes whose segment
 * can be attached (pid, start time, in use, command line); segments of
 * processes that are gone are removed. */
#ifndef MPROF_LISTING_H
#define MPROF_LISTING_H

#include <stdio.h>

/* Lists to out, notes (removed, unreadable) to note; dir is /dev/shm
 * unless testing. lib is the hook's path for the hint. Returns the number
 * of attachable processes, or -1 when dir cannot be read. */
int listing_run(FILE *out, FILE *note, const char *dir, const char *lib);

#endif
