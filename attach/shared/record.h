/* record.h - the recording writer: drains a segment's event ring into
 * rotating files (core/recfmt.h) with the stacks and modules they need,
 * events encoded compactly (record.c) and compressed with zstd on the
 * writer's thread into the files, each poll's events reaching the file
 * before the next poll (record_file.c: what a SIGKILL leaves).
 * Allocation-free (mmap'd buffers, zstd given mmap'd memory, plain
 * syscalls): the hook runs it on a thread of its own (record_hook.c),
 * mprof-tui --record from outside (record_attach.c). One writer per
 * segment. */
#ifndef MPROF_RECORD_H
#define MPROF_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "attach/shared/segment.h"
#include "attach/shared/settings.h"
#include "core/recfmt.h"

/* A writer with little to do polls this often; its heartbeat, renewed
 * each poll, is the time of most events (ring.c): fewer wake-ups cost the
 * program less (a writer shares the cores with it). */
#define RECW_POLL_NS 10000000L
/* The hook's writer takes each poll the staged events of any thread whose
 * stage began this long ago (ring_sweep): at the coarse clock's tick, any
 * begun before the current tick. */
#define RECW_SWEEP_NS 1000000L
#define RECW_ZPIECE (128u << 10)   /* the compressed frame goes to the file in pieces of this */
#define RECW_DEFAULT_SIZE (100ull << 20)
#define RECW_DEFAULT_FILES 10

/* Live allocations seen by the writer (record_pairs.c). */
#define RECPAIRS_WAYS 4            /* entries to a bucket: one cache line */
typedef struct rec_pair {
	uint64_t key;              /* (stack << 32 | ptr key) + 1; 0: free entry */
	uint64_t pos;
} rec_pair;
typedef struct rec_pairs {
	rec_pair *e;               /* mmap'd, nb buckets of RECPAIRS_WAYS */
	uint8_t *ovf;              /* mmap'd, nb: entries that went past the bucket (255 sticks) */
	size_t nb, n;
	unsigned shift;            /* 64 - log2(nb) */
} rec_pairs;
static inline uint64_t recpairs_hash(uint64_t key)
{
	return key * 0x9e3779b97f4a7c15ull;   /* Fibonacci hashing: a bucket is the top bits */
}
/* The bucket of key. */
static inline size_t recpairs_slot(const rec_pairs *m, uint64_t key)
{
	return (size_t)(recpairs_hash(key) >> m->shift);
}
/* Asks for key's bucket ahead of a put or take (the table is not empty). */
static inline void recpairs_prefetch(const rec_pairs *m, uint64_t key)
{
	__builtin_prefetch(&m->e[recpairs_slot(m, key) * RECPAIRS_WAYS], 1);
}
/* The entry of k1 (a stored key) in bucket e, or -1. */
static inline int recpairs_find_in(const rec_pair *e, uint64_t k1)
{
	unsigned m = (unsigned)(e[0].key == k1) | (unsigned)(e[1].key == k1) << 1 | (unsigned)(e[2].key == k1) << 2 |
		     (unsigned)(e[3].key == k1) << 3;
	return m ? __builtin_ctz(m) : -1;
}
/* record_pairs.c's side of the inline functions below: growing, and the
 * walks past a key's own bucket (the table not empty, room reserved). */
int recpairs_grow(rec_pairs *m, size_t n);
int recpairs_put_slow(rec_pairs *m, uint64_t key, uint64_t pos, uint64_t *old);
int recpairs_take_slow(rec_pairs *m, uint64_t key, uint64_t *pos);
/* Room for n more entries without growing; -1 when out of memory. */
static inline int recpairs_reserve(rec_pairs *m, size_t n)
{
	return (m->n + n) * 2 > m->nb * RECPAIRS_WAYS ? recpairs_grow(m, n) : 0;
}
/* Remembers the allocation at pos under key: 0 when added, 1 when it
 * replaced one there (its position in *old), -1 when out of memory.
 * Inline when its bucket settles it: every event of a recording comes
 * here or to recpairs_take. */
static inline int recpairs_put(rec_pairs *m, uint64_t key, uint64_t pos, uint64_t *old)
{
	if (recpairs_reserve(m, 1))
		return -1;
	size_t b = recpairs_slot(m, key);
	rec_pair *e = m->e + b * RECPAIRS_WAYS;
	int j = recpairs_find_in(e, key + 1);
	if (j >= 0) {
		*old = e[j].pos;
		e[j].pos = pos;
		return 1;
	}
	/* Not in the table if nothing went past its bucket: then its first free entry. */
	if (m->ovf[b] || (j = recpairs_find_in(e, 0)) < 0)
		return recpairs_put_slow(m, key, pos, old);
	m->n++;
	e[j] = (rec_pair){ key + 1, pos };
	return 0;
}
/* Removes key's allocation: 1 with its position, 0 if none. */
static inline int recpairs_take(rec_pairs *m, uint64_t key, uint64_t *pos)
{
	if (!m->nb)
		return 0;
	size_t b = recpairs_slot(m, key);
	rec_pair *e = m->e + b * RECPAIRS_WAYS;
	int j = recpairs_find_in(e, key + 1);
	if (j < 0)
		return m->ovf[b] ? recpairs_take_slow(m, key, pos) : 0;
	*pos = e[j].pos;
	e[j].key = 0;
	m->n--;
	return 1;
}
void recpairs_free(rec_pairs *m);

/* Events waiting for their other half (record_held.c): frees that came
 * before their allocation, and allocations another at their key pushed
 * out of the pairs table before their free came. */
#define RECHELD_CAP 65536
typedef struct rec_held_ent {
	seg_event ev;
	int64_t seen;              /* a free: the event clock when the writer read it */
	uint64_t aux;              /* a free: the writer's poll that read it; an allocation: its position */
	uint32_t next;             /* the next (older) of its chain, index + 1; 0: none */
	uint32_t live;             /* 0: taken (a hole the oldest end skips) */
} rec_held_ent;
typedef struct rec_held {
	rec_held_ent *e;           /* mmap'd on first use, RECHELD_CAP: a FIFO of [lo, hi) mod the cap */
	uint32_t *heads;           /* mmap'd: chains by key hash, newest first */
	uint64_t lo, hi;
	uint32_t n;                /* held (live) */
	int any;                   /* an allocation takes any free of its key, whatever its thread and time */
} rec_held;
/* Holds event e; -1 when full or out of memory. */
int recheld_put(rec_held *h, const seg_event *e, int64_t seen, uint64_t aux);
/* Takes out the oldest event held for e (same stack, address and size):
 * for an allocation, a free by another thread read after it was made (any
 * free with h->any); for a free, any.  1 with it in *out, or 0 if none. */
int recheld_take(rec_held *h, const seg_event *e, rec_held_ent *out);
/* The oldest event held, or NULL; and its removal. */
const rec_held_ent *recheld_oldest(rec_held *h);
void recheld_drop_oldest(rec_held *h);
void recheld_free(rec_held *h);

typedef struct rec_writer {
	const char *base;          /* the segment, read */
	seg_header hc;             /* its header as validated: bounds come from here */
	seg_header *hw;            /* the live header: ring_read and rec_beat_ns are written */
	char dir[4000];
	int dirfd;                 /* dir, opened without following a symlink; -1: none */
	int pid;
	uint64_t max_size;         /* a file is closed past this many bytes */
	unsigned max_files;        /* files kept; older ones are deleted */
	unsigned seq;              /* the open file's number */
	int fd;                    /* -1: none (stopped) */
	uint64_t file_bytes;
	uint64_t file_events;       /* events in the open file: an empty one is never rotated */
	uint8_t *buf;              /* mmap'd, RECW_BUF bytes: inner chunks waiting to be compressed */
	size_t len;
	uint8_t *zbuf;             /* mmap'd, RECW_ZPIECE bytes: a piece of a compressed ZSTD chunk */
	void *zc;                  /* ZSTD_CCtx, on mmap'd memory */
	uint64_t frame_at;         /* file offset of the open ZSTD chunk, UINT64_MAX: none (record_file.c) */
	uint64_t frame_raw, frame_z;   /* what it holds so far, raw and compressed */
	int64_t frame_ns;          /* when it began */
	int64_t frame_took_ns;     /* the time compressing it took */
	int64_t busy_ns;           /* when a poll last found events */
	int zlevel;                /* zstd level of the next frame */
	int zcap;                  /* the highest level it may have now (record.c's z_ladder index) */
	uint64_t raw_total, z_total;   /* bytes compressed, and what they took */
	size_t ev_chunk;           /* offset of the open EVENTS chunk in buf, or SIZE_MAX */
	uint32_t ev_count;
	int ev_run;                /* a run of EVENTS chunks is open in the frame: the next continues it */
	uint64_t ev_first;         /* position of the run's first event */
	uint64_t ev_time_us;       /* the encoder's running state in the run */
	uint32_t ev_stack, ev_tid;
	uint64_t ev_age;           /* the age of the chunk's last free that referred back */
	rec_pairs pairs;
	rec_held held;             /* unpaired frees waiting for their allocation */
	rec_held dups;             /* allocations pushed out of pairs by a later one at their key */
	rec_held owed;             /* held frees whose allocation an earlier free took: the next of their key pays */
	uint64_t polls;            /* polls begun */
	int64_t read_ns;           /* the event clock as this poll began to read the ring */
	int64_t stage_low;         /* set before a poll by a caller that swept (ring_sweep's result); else -1 */
	int late;                  /* blocks were alive when the stream began: their frees have no allocation in it */
	uint64_t pos;              /* next ring index to read */
	uint64_t stuck_pos;        /* a slot seen unwritten on the last poll ... */
	int64_t stuck_since;       /* ... since then (a writer killed mid-write: skipped after 1 s) */
	uint64_t stack_low;        /* every id below is written (or a duplicate) */
	uint8_t *written;          /* mmap'd bitmap: stack id written to the current file */
	uint64_t nmods;            /* modules written to the current file */
	rec_counts *cnt;           /* mmap'd, hc.stack_cap entries: counters from the stream */
	uint64_t cnt_n;            /* ids below this may have counts */
	uint64_t events, lost, lost_said, tmax;
	uint64_t waits_seen, wait_ns_seen, lost_seen;
	rec_file_header fh;
	uint32_t end_how;          /* what the last END says (enum rec_end_how): set before recw_close */
	char err[256];             /* why it stopped */
} rec_writer;

/* The writer's clock (CLOCK_MONOTONIC since the segment began). */
static inline int64_t recw_now(const rec_writer *w)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - w->hc.start_mono_ns;
}

/* The heartbeat: the event clock (coarse, as producers read it), which
 * producers also take as their events' time (ring.c), so it is renewed
 * through long polls and frames too; 0 (off): producers no longer wait. */
static inline void recw_beat(rec_writer *w, int on)
{
	int64_t t = on ? seg_event_clock(&w->hc) : 0;
	__atomic_store_n(&w->hw->rec_beat_ns, (uint64_t)(t > 0 ? t : 1) * (uint64_t)on, __ATOMIC_RELAXED);
}

/* record_file.c: the directory and the files, and the zstd stream into
 * them.  Each returns 0, or -1 with w->err set and the writer stopped. */
/* Opens dir (created if missing; never through a symlink) and removes
 * this pid's files an earlier run left there. */
int recf_dir(rec_writer *w, const char *dir);
/* Makes the compressor (on the writer's own memory). */
int recf_zinit(rec_writer *w);
/* Creates file w->seq (new: an existing file is never truncated) and
 * writes its header. */
int recf_create(rec_writer *w);
/* Compresses buf (whole chunks) into the open frame and writes it out as
 * whole zstd blocks (ZSTD_e_flush); end: the frame ends (its header then
 * says its lengths). */
int recf_push(rec_writer *w, int end);
/* Deletes file seq (rotated away). */
void recf_remove(rec_writer *w, unsigned seq);
/* Stops writing: w->err says why (what failed, and strerror(e)), also
 * noted in the open file's header for the reader. Returns -1. */
int recf_fail(rec_writer *w, const char *what, int e);
/* Stops writing, w->err set by the caller: the file is left as it is. */
int recf_stop(rec_writer *w);
/* Closes what is open and frees the compressor. */
void recf_release(rec_writer *w);

/* Starts a recording of the segment at base (header copy hc, validated;
 * hw the writable header) into dir (created if missing; this pid's old
 * files in it are removed). from_counters: the recording starts from the
 * segment's counters (a late attach); else from zero. max_size and
 * max_files 0: MPROF_RECORD_SIZE and MPROF_RECORD_FILES (settings.h: a
 * bad value is said through warn, and the default used). 0, or -1 with
 * w->err set. */
int recw_open(rec_writer *w, const void *base, const seg_header *hc, seg_header *hw, const char *dir,
	      uint64_t max_size, unsigned max_files, int from_counters, settings_warn_fn *warn);
/* Drains the ring and writes; returns the events read, or -1 once writing
 * failed (w->err says why; producers no longer wait). */
long recw_poll(rec_writer *w);
/* Events waiting in the ring. */
uint64_t recw_backlog(const rec_writer *w);
/* Drains what is left, closes the file, stops producers waiting. */
void recw_close(rec_writer *w);

#endif
