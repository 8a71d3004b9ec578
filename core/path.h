/* path.h - the last part of a path.  Header-only: libmprof.so uses it too,
 * and links nothing of core but its writers. */
#ifndef MPROF_PATH_H
#define MPROF_PATH_H

#include <string.h>

static inline const char *path_base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

#endif
