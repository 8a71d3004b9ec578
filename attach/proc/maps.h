/* maps.h - /proc/PID/maps read one mapping at a time, each line parsed into
 * its fields: the one reader of another process's mappings on the
 * mprof-tui side (the hook reads its own /proc/self/maps without malloc,
 * in attach/hook/procmaps.c and stackcache.c). */
#ifndef MPROF_PROC_MAPS_H
#define MPROF_PROC_MAPS_H

#include <stdint.h>
#include <stdio.h>

/* One line: "lo-hi perms offset dev inode   path". */
typedef struct proc_map {
	uint64_t lo, hi;         /* [lo, hi) */
	uint64_t offset;         /* the file offset mapped at lo */
	char perms[8];           /* "r-xp" */
	char dev[16];            /* "fd:01", cut at 15 characters */
	uint64_t inode;
	/* The rest of the line without its newline or the blanks before it:
	 * a file ("/usr/lib/libc.so.6", "/tmp/x (deleted)"), a kernel name
	 * ("[vdso]", "[heap]"), or "" (anonymous).  Points into the line read:
	 * valid until the next proc_maps_next. */
	const char *path;
} proc_map;

/* A line longer than this (the kernel writes none: a path is at most
 * PATH_MAX) is read in its first PROC_MAPS_LINE - 1 bytes, its rest
 * skipped. */
#define PROC_MAPS_LINE 4352

typedef struct proc_maps {
	FILE *fp;
	char line[PROC_MAPS_LINE];
} proc_maps;

/* Opens pid's maps: 0, or -1 with errno (ENOENT: no such process, EACCES:
 * another user's). */
int proc_maps_open(proc_maps *r, int pid);
/* Reads from fp (owned from now on, closed by proc_maps_close). */
void proc_maps_from(proc_maps *r, FILE *fp);
/* The next mapping into *m: 1, or 0 at the end.  A line that does not parse
 * (fewer fields than the inode) is skipped. */
int proc_maps_next(proc_maps *r, proc_map *m);
void proc_maps_close(proc_maps *r);
/* One line parsed into *m (its newline cut off in place): 1, or 0 when it
 * is not a maps line. */
int proc_maps_parse(char *line, proc_map *m);

#endif
