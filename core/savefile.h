/* savefile.h - replacing a file atomically: the writer fills a new
 * temporary beside PATH (core/atomicfile.h), which is renamed over PATH
 * only when every byte was written. */
#ifndef MPROF_SAVEFILE_H
#define MPROF_SAVEFILE_H

#include <stdio.h>

#include "core/load.h"

/* Writes through fd; returns 0, or -1 with werr filled (or errno set). */
typedef int (*savefile_fd_fn)(int fd, void *ctx, prof_error *werr);
/* Writes through a stdio stream; same contract. */
typedef int (*savefile_file_fn)(FILE *out, void *ctx, prof_error *werr);

/* Each returns 0, or -1 with err = "PATH: reason"; PATH is untouched then. */
int savefile_fd(const char *path, savefile_fd_fn fn, void *ctx, prof_error *err);
int savefile_stream(const char *path, savefile_file_fn fn, void *ctx, prof_error *err);

#endif
