/* recording.h - a recording directory (MPROF_RECORD=DIR, mprof-tui
 * --record) opened for time travel: the files are parsed in parallel (a
 * thread per file) into an index of event chunks and periodic checkpoints
 * of every stack's counters; the heap in use over the run in 100 ms
 * buckets with the moment of each bucket's local peak; and a profile whose
 * counters can be set to the state at any moment by replaying from the
 * nearest checkpoint. A moment is an event position: the state after the
 * first `ev` events of the run (counting from the start of the process's
 * recording, so a recording whose first files were rotated away starts
 * past 0). The time of a position is the largest event time up to it
 * (event times come from a coarse clock and several threads). No ncurses. */
#ifndef MPROF_RECORDING_H
#define MPROF_RECORDING_H

#include <stddef.h>
#include <stdint.h>

#include "core/load.h"
#include "core/recfmt.h"

#define REC_BUCKET_NS 100000000LL
#define REC_HIST_BINS 24   /* lifetime histogram: <1 ms, then [2^(k-1), 2^k) ms */

typedef struct rec_bucket {
	int64_t peak;          /* the largest heap in use in the bucket */
	uint64_t peak_ev;      /* the position where it was reached */
} rec_bucket;

typedef struct rec_waitpt {
	uint64_t time_ns, waits, wait_ns, max_ns;
} rec_waitpt;

struct rec_file;
struct rec_cursor;

typedef struct recording {
	char dir[4096];
	int pid;
	uint64_t sample_rate;      /* 0: every allocation; else counters are estimates */
	int dither;                /* sampled weights dithered by position (version 3 files), else rounded */
	int64_t start_time_ns;     /* CLOCK_REALTIME of the process start */
	struct rec_file *f;        /* files, oldest first; owned */
	size_t nf;
	size_t other_pids;         /* files of other processes in dir, left alone */
	uint64_t first_ev, end_ev; /* positions covered: [first_ev, end_ev] */
	uint64_t first_time, end_time;
	rec_bucket *tl;            /* buckets first_bucket .. first_bucket + ntl - 1; owned */
	int64_t first_bucket;
	size_t ntl;
	int64_t peak;              /* the largest heap in use of the run ... */
	uint64_t peak_ev;          /* ... and where */
	uint64_t peak_time;
	uint64_t lost;             /* events the recording lost (gaps) */
	uint64_t truncated;        /* files that ended in a cut chunk */
	rec_waitpt *waits;         /* where the producer waited for the writer; owned */
	size_t nwaits;
	uint64_t wait_count, wait_ns, wait_max_ns;
	/* The profile: every stack once (sample k <-> stack k), counters of
	 * the moment cur_ev. Owned. */
	prof *p;
	uint32_t *sample_of;       /* stack id -> sample, PROF_NONE; nids entries */
	uint32_t *id_of;           /* sample -> stack id */
	size_t nids;
	/* The replay state. */
	mp_counts *cur;              /* nids entries */
	uint64_t cur_ev, cur_time;
	int64_t cur_inuse;
	int cur_at_end;            /* cur_time is end_time (rec_seek_end), past its last event's */
	size_t cur_file;
	struct rec_cursor *cursor;  /* the chunks the replay decoded last; owned */
} recording;

/* Opens dir (the files of one process: the one with the most bytes when
 * several recorded there); threads 0: one per file, at most 16. NULL with
 * err ("DIR/FILE: offset N: what") when nothing usable is there. */
recording *rec_open(const char *dir, int threads, prof_error *err);
/* Whether path is a recording: a directory, or one of its .rec files. */
int rec_is_recording(const char *path);
void rec_close(recording *r);

/* How a recording ends (its last file): closed in order; cut short where
 * its writer gave up (rec_end_reason: why, as it noted it: "...: write:
 * No space left on device"); or open: the process ended without closing
 * it (killed: SIGKILL, the OOM killer), or it is still being written. */
enum { REC_END_CLOSED, REC_END_STOPPED, REC_END_OPEN, REC_END_KILLED /* seen by a recorder outside */ };
int rec_end_how(const recording *r);
const char *rec_end_reason(const recording *r);
/* One line: where it ends and why ("ends at 2.981 s, cut short: ...");
 * running: its process still runs (an open recording is then still
 * being written, not cut). */
void rec_end_text(const recording *r, int running, char *buf, size_t len);

/* Sets r->p's counters to the state at position ev (clamped to the run). */
int rec_seek(recording *r, uint64_t ev);
/* The same at the run's end: after its last event, at end_time (when the
 * recording was closed, which may be later: the heap stayed as it was). */
void rec_seek_end(recording *r);
/* The position at time t_ns (since the process started): after every event
 * whose running time is at most t_ns. */
uint64_t rec_ev_at(recording *r, uint64_t t_ns);
/* Parses "12.5s", "12.5" (seconds), "800ms", "peak", "start", "end" into
 * a position; -1 with err on a bad time. */
int rec_parse_moment(recording *r, const char *s, uint64_t *ev, prof_error *err);

/* A new profile (caller frees with prof_free) over r's stacks: the
 * allocations made between positions from and to that are still alive at
 * the end of the recording (alloc counters; free counters 0). */
prof *rec_leaks(recording *r, uint64_t from, uint64_t to, prof_error *err);

/* Per stack id: allocations freed soon (temporary), and the histogram of
 * lifetimes of the allocations freed during the recording. */
typedef struct rec_life {
	uint64_t temp_objs, temp_bytes;   /* freed within max_allocs allocations or max_ns */
	uint64_t freed;                   /* allocations paired with their free */
	uint64_t hist[REC_HIST_BINS];     /* by lifetime */
} rec_life;
/* Replays the whole recording pairing each free with its allocation.
 * max_allocs: temporary if at most that many other allocations happened in
 * between (0: not used); max_ns: or if it lived at most that long (0: not
 * used). Returns r->nids entries (caller frees with free()), NULL on
 * ENOMEM. The counts are of recorded (sampled) allocations. */
rec_life *rec_lifetimes(recording *r, uint64_t max_allocs, uint64_t max_ns);
/* The bin of a lifetime, and the lower bound of a bin in ms. */
int rec_hist_bin(uint64_t ns);
uint64_t rec_hist_low_ms(int bin);

/* A profile (caller frees) whose alloc counters are the temporary
 * allocations of each stack (free counters 0), from lifetimes l. */
prof *rec_temp_prof(recording *r, const rec_life *l, prof_error *err);

#endif
