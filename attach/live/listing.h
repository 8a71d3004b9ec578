/* listing.h - the processes under the hook, from their segments in
 * /dev/shm: mprof-tui --attach with no pid lists them (and removes the
 * segments of processes that are gone); --serve lists and reads them
 * without writing anything. */
#ifndef MPROF_LISTING_H
#define MPROF_LISTING_H

#include <stdint.h>
#include <stdio.h>

#include "attach/live/segment_read.h"

/* One segment and what it says about its process. */
typedef struct listing_entry {
	int pid;
	int inner;              /* its pid in its own namespace (a container's process), else pid */
	char path[512];         /* the segment */
	int mine;               /* the caller's user's, or (root) its process's own */
	int alive;              /* the process runs and still has the hook */
	const char *why;        /* when not alive: "is gone", "ran a new program ..." */
	int ok;                 /* mine and mapped: m and hc are valid */
	seg_map m;              /* with ok; listing_entry_close unmaps it */
	seg_header hc;          /* with ok: the checked copy of the header */
	prof_error err;         /* mine and not ok: why it cannot be read */
} listing_entry;

/* Fills e for the segment of pid in dir; maps it when it is the caller's
 * user's and valid. 0, or -1 when dir holds no segment of pid. In
 * /dev/shm, a container's process (pid: its host pid) is found where
 * seg_path_of says. Close with listing_entry_close. Reads only: nothing is
 * removed or signalled. */
int listing_entry_open(listing_entry *e, const char *dir, int pid);
void listing_entry_close(listing_entry *e);
/* An ok entry as a listing shows it. */
typedef struct listing_text {
	char started[32];       /* local "YYYY-MM-DD HH:MM:SS", or "?" */
	char inuse[32];         /* bytes in use, the sum over its stacks, scaled */
	char cmd[sizeof(((seg_header *)0)->cmdline)];   /* control characters as spaces */
} listing_text;
void listing_describe(const listing_entry *e, listing_text *t);

/* Calls fn for every segment in dir in pid order (its entry open for the
 * call). Returns the number of segments, or -1 when dir cannot be read
 * (errno set). fn returning nonzero stops the walk. */
/* The pid a /dev/shm entry named mprof-PID is for, or -1 for any other name. */
int listing_seg_pid(const char *name);
int listing_scan(const char *dir, int (*fn)(listing_entry *e, void *ctx), void *ctx);

/* Lists to out, notes (removed, unreadable) to note; dir is /dev/shm
 * unless testing. lib is the hook's path for the hint. Returns the number
 * of attachable processes, or -1 when dir cannot be read. */
int listing_run(FILE *out, FILE *note, const char *dir, const char *lib);

/* listing_print: mprof-tui --attach with no pid, the list of /dev/shm and
 * the hint to start one; exit status. */
int listing_print(void);

/* segment_sweep.c: removes the segments in dir that are the hook's for a
 * pid no process has (root: any user's); how many, or -1 when dir cannot
 * be read.  listing_sweep_shm: /dev/shm, for atexit. */
int listing_sweep(const char *dir);
void listing_sweep_shm(void);

#endif
