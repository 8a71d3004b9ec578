/* follow.h - the live consumer: a hooked process's segment, checked and
 * mapped read-only, mirrored into a profile that only grows (frames, stacks
 * and one sample per stack are appended; counters are refreshed in place),
 * and its event ring drained into a timeline of the heap in use. */
#ifndef MPROF_FOLLOW_H
#define MPROF_FOLLOW_H

/* How long a followed process's maps must lack the hook before it counts as
 * gone (it ran a new program without it): an exec'd program with the hook
 * preloaded lacks it until ld.so maps it, and a refresh can fall there. */
#define FOLLOW_NOHOOK_NS 2000000000LL

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "attach/live/segment_read.h"
#include "core/load.h"
#include "core/timeline.h"

/* What a follow_sync changed. */
enum {
	FOLLOW_COUNTS = 1,      /* counters moved */
	FOLLOW_STACKS = 2,      /* stacks (samples) were added */
	FOLLOW_FRAMES = 4,      /* frames, modules or strings were added: symbol
				 * lookups over p and node maps must be redone */
};

typedef struct follow {
	seg_map m;
	int pid;
	seg_header hc;          /* the header as validated: bounds come from here */
	prof *p;                /* owned; borrowed by the UI */
	uint32_t *sample_of;    /* segment stack id -> sample, PROF_NONE if none yet */
	uint32_t *seg_of;       /* sample -> segment stack id */
	size_t seg_cap;         /* entries in sample_of */
	uint64_t scanned;       /* ids below this were looked at once */
	uint64_t *pending;      /* ids seen not ready or with no allocation yet */
	size_t npending, pending_cap;
	size_t nmods;           /* modules copied */
	struct elfsym **es;     /* per module, opened on first use */
	uint8_t *es_tried;
	/* The ring and the timeline. */
	seg_header *hw;         /* the header mapped writable, for ring_beat_ns; NULL: not allowed */
	size_t hw_len;
	int64_t beat_ns;        /* our last ring_beat_ns */
	uint64_t ring_pos;      /* the next event to read */
	uint64_t lost_events;   /* ring slots overwritten before we read them */
	int resync;             /* set the timeline's value from the counters */
	uint64_t attaches;      /* the segment's re-injections seen (each empties the counters) */
	uint64_t rate;          /* the events' sampling rate (0: each is itself) */
	timeline tl;
	int64_t inuse_bytes, inuse_objs;   /* from the counters, last sync */
	int exited;             /* the process is gone (state or /proc) */
	int64_t exit_mono_ns;
	int64_t nohook_ns;      /* when its maps were first seen without the hook (0: they have it) */
	pid_t child;            /* > 0: our own child (-- CMD), reaped here */
	int child_status;       /* wait status once reaped, -1 before */
} follow;

/* Checks the process and its segment and maps it: no such process, another
 * user's process, no segment (with how to start one), a segment not owned
 * by us or not mode 0600, another version, a corrupt one: -1 with a one-line
 * err. lib is the libmprof.so path to suggest (may be NULL). */
int follow_open(follow *f, int pid, const char *lib, prof_error *err);
/* The process exists and is the caller's (or the caller is root): 0 with
 * its comm in comm; else -1 with "no process PID" or whose it is. */
int follow_proc_check(int pid, char *comm, size_t comm_len, prof_error *err);
/* The same on a segment file of any name (tests, a copy of a segment). */
int follow_open_path(follow *f, const char *path, int pid, prof_error *err);
void follow_close(follow *f);

/* Brings p up to date with the segment; returns FOLLOW_* flags, or -1 on
 * ENOMEM. Marks the process exited when it is gone. */
int follow_sync(follow *f);
/* Reads the events the producer wrote since the last call into the
 * timeline, and samples the RSS; returns the events read. */
uint64_t follow_drain(follow *f);
/* Nanoseconds on the segment's clock (CLOCK_MONOTONIC - start). */
int64_t follow_now_ns(const follow *f);
/* Whether the process is gone (and, for our child, reaps it). */
int follow_check_exit(follow *f);
/* 1 when the process ran a new program under the hook (exec, same pid):
 * its segment file is now another, complete one, to be followed anew. */
int follow_execd(const follow *f);
/* An injected hook's note on what the counts cover: history before the
 * injection is unknown, or since a re-injection (its local time) blocks
 * from before it are forgotten; with the unknown frees of the last sync. */
void follow_since_note(const follow *f, char *buf, size_t cap);

/* The drain loop itself, over any ring (the bench drives it): events
 * in slots [*pos, head) of ring[cap] go into tl as running heap values
 * starting at *value, each weighed as sampled at rate (0: as it is). Slots
 * overwritten before being read are skipped and counted in *lost. Stops at
 * a slot not yet complete. Returns the events read. */
uint64_t follow_drain_ring(const seg_slot *ring, uint64_t cap, uint64_t head, uint64_t *pos,
			   int64_t *value, timeline *tl, uint64_t *lost, uint64_t rate);


/* RSS of pid from /proc/PID/statm in bytes, or -1. */
int64_t follow_rss(int pid);

#endif
