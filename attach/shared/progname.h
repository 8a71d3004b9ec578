/* progname.h - a program's name as a dump's file name holds it, the same
 * for the hook's names (MPROF_OUT's %e, a child's .PROGRAM.PID) and for
 * mprof-tui's mprof.PROGRAM.PID.pro of a launch; progname.c. */
#ifndef MPROF_PROGNAME_H
#define MPROF_PROGNAME_H

#include <stddef.h>

/* The last part of prog's path with every character but letters, digits,
 * '.', '-', '+' and '_' made '_', cut to cap - 1; "prog" when empty.
 * Allocation-free (the hook calls it). */
void progname_clean(char *dst, size_t cap, const char *prog);

#endif
