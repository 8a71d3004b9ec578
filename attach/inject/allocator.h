/* allocator.h - the allocator of a running process, found from outside
 * (mprof-tui --inject, before it touches the process). */
#ifndef MPROF_ALLOCATOR_H
#define MPROF_ALLOCATOR_H

#include <stddef.h>

#include "core/load.h"

/* The path of the module whose malloc and free pid's own symbol lookup
 * reaches (the executable itself when it defines them) into out; 0, or -1
 * with a one-line err when that cannot be told: no link map, no module
 * defining them, or malloc and free from different modules. */
int allocator_identify(int pid, char *out, size_t cap, prof_error *err);

#endif
