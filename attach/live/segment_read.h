/* segment_read.h - the consumer side of the live segment: map a hooked
 * process's /dev/shm/mprof-<pid> read-only, validate it, and turn its
 * current state into a profile. */
#ifndef MPROF_SEGMENT_READ_H
#define MPROF_SEGMENT_READ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "attach/shared/segment.h"
#include "core/load.h"

typedef struct seg_map {
	const seg_header *h;   /* NULL when closed */
	size_t len;            /* bytes mapped */
	char name[64];         /* the segment's path, for messages */
} seg_map;

/* Where pid's segment is seen from here, into path: /dev/shm/mprof-PID,
 * or, for a process in another mount namespace (a container, seen from
 * the host by its host pid), /proc/PID/root/dev/shm/mprof-NSPID, NSPID
 * its pid in its own pid namespace: the name its hook gave the file.
 * Returns the pid the segment's header holds (NSPID, or pid). */
int seg_path_of(int pid, char *path, size_t len);

/* Maps /dev/shm/mprof-<pid> read-only and validates its header.
 * 0, or -1 with err filled ("/dev/shm/mprof-PID: ..."). Close with seg_close. */
int seg_open(seg_map *m, int pid, prof_error *err);
/* Why pid has no segment, in err: no such process, or a process without
 * the hook and the two ways to give it one (lib: the hook's path, or NULL
 * for the one beside mprof-tui). */
void seg_missing(int pid, const char *lib, prof_error *err);
/* 1 when a segment at path owned by uid owner may be trusted: we own it,
 * or we are root and the process it names (mprof-PID) runs as owner
 * (what root injects, root reads); another user's file under someone
 * else's process was planted. */
int seg_owner_ok(const char *path, unsigned owner);
/* Opens a segment's path (open(2) flags, O_NOFOLLOW added): a container's,
 * /proc/PID/root/..., is resolved inside that root (openat2 RESOLVE_IN_ROOT
 * | RESOLVE_NO_MAGICLINKS; without openat2 no component may be a symbolic
 * link), so a link planted in the container cannot lead to a host file.
 * ELOOP: a symbolic link was met. */
int seg_file_open(const char *path, int flags);
/* The same as seg_open for any path. Only a regular file (not a symlink) of
 * yours with mode 0600 is trusted: others could change what it says. When hc
 * is not NULL it receives the validated copy of the header, whose bounds are
 * the ones to use (the mapping may change under the reader). */
int seg_open_path(seg_map *m, const char *path, seg_header *hc, prof_error *err);
void seg_close(seg_map *m);
/* An option's process id argument (opt names the option in messages) and
 * its segment, mapped (writable: for the fields a consumer may write,
 * seg_sample's requests) and checked into hc: the pid, or -1 after one
 * line on err. */
int seg_open_arg(seg_map *m, const char *opt, const char *pid_arg, seg_header *hc, int writable, FILE *err);

/* The segment's header pages mapped writable, for what a consumer writes
 * (ring_read and the recorder's beat, the heap window's state); *len gets
 * the mapping's length (munmap it).  NULL with err. */
seg_header *seg_map_header_rw(const seg_map *m, size_t *len, prof_error *err);

/* The heap window's counters (mp_counts[hc->stack_cap] at hc->win_off)
 * when they lie inside the mapping, else NULL. */
const mp_counts *seg_window_counters(const seg_map *m, const seg_header *hc);

/* The peak copy (seg_peak_stack[hc->stack_cap] at hc->peak.off) when it
 * lies inside the len bytes at data, else NULL. */
const seg_peak_stack *seg_peak_stacks(const void *data, size_t len, const seg_header *hc);
/* Once every sample's peak was read from the copy after seq =
 * seg_peak_begin(&live->peak): p->meta.peak from live's totals when the
 * copy stayed whole (ps not NULL), then the in-use counters when they are
 * higher (prof_peak_now). */
void seg_peak_meta(prof *p, const seg_header *live, const seg_peak_stack *ps, uint64_t seq);

/* Checks that every offset, size and capacity in the header lies inside
 * len bytes and that the regions are large enough for their capacities.
 * 0, or -1 with err filled. */
int seg_validate(const void *data, size_t len, const char *name, prof_error *err);

/* The allocator table (which allocators the hook found and how it reaches
 * each) copied into out: at most cap entries, strings NUL-terminated; 0
 * when the segment has none (an older hook) or its offset is bad. */
int seg_allocs_copy(const void *data, size_t len, seg_alloc *out, int cap);

/* What the counts of a segment (header h, loaded now) cover, for a line
 * "counts: ...": since the start (preloaded), since the injection, or
 * since the latest re-injection, with the local time it began. */
void seg_since_text(const seg_header *h, char *buf, size_t cap);

/* The segment's current state as a new profile (caller frees with
 * prof_free): stacks with their exact counters, the module table, frame
 * names "path(sym+0xoff) [0xaddr]".  Entries that are out of bounds are
 * skipped and counted in meta.dropped.  NULL with err on failure. */
prof *seg_to_prof(const void *data, size_t len, const char *name, prof_error *err);

#endif
