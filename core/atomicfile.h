/* atomicfile.h - creating a file the way a root process must: the bytes go
 * to a new temporary beside the target (O_CREAT|O_EXCL|O_NOFOLLOW, a name
 * of its own), renamed over the target once complete.  Nothing is ever
 * opened through a symlink or truncated, whoever planted it: rename(2)
 * replaces a symlink or file at the target name, never what it points to.
 * Allocation-free and async-signal-safe: the hook's dumps use it too. */
#ifndef MPROF_ATOMICFILE_H
#define MPROF_ATOMICFILE_H

#include <stddef.h>

/* Room for a temporary's name: the path and ".XXXXXXXX.tmp". */
#define ATOMICFILE_SUFFIX 14

/* Creates the temporary for path (its name into tmp, cap bytes) with mode
 * (less the umask); the fd, or -1 with errno set (ENAMETOOLONG when cap
 * cannot hold the name). */
int atomicfile_open(const char *path, char *tmp, size_t cap, int mode);
/* Renames tmp over path; on failure removes tmp.  0, or -1 with errno. */
int atomicfile_commit(const char *tmp, const char *path);

#endif
