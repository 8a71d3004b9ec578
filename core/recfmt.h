/* recfmt.h - the recording file format (MPROF_RECORD=DIR, mprof-tui
 * --record): shared by the writer (attach/shared/record.c, inside the hook: no
 * allocation) and the reader (core/recording.c). Native byte order (the
 * reader runs on the machine that recorded). Documented in mprof-pro(5).
 *
 * DIR/mprof-PID.NNNNNN.rec, NNNNNN counting from 1: a rec_file_header,
 * then chunks { u32 type, u32 len, len bytes } (no alignment). The writer
 * puts every chunk inside ZSTD chunks: each is one zstd frame, decodable on
 * its own, of a run of inner chunks. Every file starts with the module
 * table, the whole stack table and a checkpoint of every stack's counters,
 * so each file parses on its own when older ones were rotated away. A file
 * cut short (the process was killed) ends at its last whole chunk.
 *
 * From version 5 a ZSTD chunk is written as a stream: its header first,
 * with len UINT32_MAX and raw_len 0 (its frame has no content size), then
 * its frame in whole zstd blocks as the writer polls (ZSTD_e_flush), and
 * len and raw_len last, when the frame ends.  A frame that never ended
 * (the process was killed, the disk was full) is read as far as its whole
 * blocks and whole inner chunks go.  The header's `stopped` says why a
 * writer gave up on the file (empty if it did not).
 *
 * Events are a byte stream per run of EVENTS chunks (one chunk, and those
 * that continue it: REC_EV_CONT), decodable on its own (the running state
 * starts at zero in each run): per event a varint tag
 * (x << 3 | time_changed << 2 | tid_changed << 1 | is_free), then the
 * time delta in microseconds (zigzag varint) if time_changed, the thread id
 * (varint) if tid_changed, then
 *   allocation: x = zigzag(stack - previous stack); varint size;
 *   free, x > 0: it frees an allocation of this chunk (its stack and
 *                size): the one unzigzag(x - 1) + a events back, where a is
 *                the same count of the chunk's previous such free (0 at the
 *                start); ages repeat (queues, pools), so x is mostly small.
 *                Version 3 and before: x events back;
 *   free, x = 0: zigzag(stack - previous stack), varint size, varint back:
 *                the allocation is `back` positions before this free (in an
 *                earlier chunk or file); 0: not in the recording.
 * Varints are LEB128 (core/varint.h). */
#ifndef MPROF_RECFMT_H
#define MPROF_RECFMT_H

#include <math.h>
#include <stdint.h>
#include "core/counts.h"
#include "core/heap_scale.h"
#include "core/varint.h"

#define REC_MAGIC "MPROFREC"
#define REC_VERSION 5
#define REC_VERSION_MIN 2   /* version 2: sampled weights rounded to nearest (rec_weight_at) */
#define REC_VERSION_DITHER 3   /* from this version on, sampled weights are dithered */
#define REC_VERSION_AGE_DELTA 4   /* from this version on, a free in its chunk says its age as a delta */
#define REC_VERSION_STREAM 5   /* from this version on, frames are streamed and the header has `stopped` */
#define REC_HEADER_V4_SIZE 560   /* the header before `stopped` */
#define REC_ZSTD_MAX (64u << 20)   /* an inner run decompresses to at most this */
#define REC_NAME_FMT "mprof-%d.%06u.rec"

typedef struct rec_file_header {
	char magic[8];             /* REC_MAGIC */
	uint32_t version;          /* REC_VERSION */
	uint32_t header_size;      /* sizeof(rec_file_header) */
	int64_t pid;
	uint32_t seq;              /* this file's number, from 1 */
	uint32_t unwind;           /* enum seg_unwind */
	int64_t start_time_ns;     /* CLOCK_REALTIME when the process started */
	uint64_t sample_rate;      /* MPROF_SAMPLE bytes; 0: every allocation */
	char cmdline[512];         /* NUL-terminated */
	char stopped[256];         /* version 5: why the writer stopped writing this file ("": it did not) */
} rec_file_header;
_Static_assert(__builtin_offsetof(rec_file_header, stopped) == REC_HEADER_V4_SIZE, "rec_file_header is a file layout");

enum rec_chunk_type {
	REC_C_MODULE = 1,      /* rec_module */
	REC_C_STACKS = 2,      /* u32 count, u32 0, count x { u32 id, u32 depth, depth x u64 pc (leaf first) } */
	REC_C_CHECKPOINT = 3,  /* rec_checkpoint; its nstacks rec_counts follow in COUNTS chunks */
	REC_C_EVENTS = 4,      /* u32 count, u32 flags (REC_EV_CONT), the events' byte stream (above) */
	REC_C_WAIT = 5,        /* rec_wait: the producer had to wait for the writer */
	REC_C_GAP = 6,         /* rec_gap: events lost (the producer did not wait long enough) */
	REC_C_END = 7,         /* rec_end: the file was closed in order */
	REC_C_COUNTS = 8,      /* len / sizeof(rec_counts) x rec_counts, after a CHECKPOINT */
	REC_C_ZSTD = 9,        /* u32 raw_len, u32 0, a zstd frame of raw_len bytes of inner chunks (no ZSTD) */
};

typedef struct rec_chunk {
	uint32_t type, len;
} rec_chunk;

typedef struct rec_module {
	uint32_t index;            /* in the process's module table */
	uint32_t state;            /* enum seg_module_state */
	uint64_t base, size, offset, bias;
	char build_id[48];         /* hex, NUL-terminated */
	char path[448];            /* NUL-terminated */
} rec_module;

/* Counters of a stack are weighted (see rec_weight_at): exact counts when
 * sample_rate is 0, unbiased estimates otherwise. */
typedef struct rec_counts {
	uint32_t id, pad;
	mp_counts c;
} rec_counts;
_Static_assert(sizeof(rec_counts) == 40, "rec_counts is a file layout");

typedef struct rec_checkpoint {
	uint64_t events;           /* events before this point since the recording began */
	uint64_t time_ns;          /* running maximum of the event times so far */
	uint64_t nstacks;          /* rec_counts that follow (stacks with any count) */
	uint64_t lost;             /* events lost so far */
} rec_checkpoint;

enum { REC_EV_ALLOC = 1, REC_EV_FREE = 2 };
/* An EVENTS chunk's flag (version 5): it continues the EVENTS chunk
 * before it in its frame (other chunks may come between): the running
 * state goes on, positions too, and "in this chunk" (a free that refers
 * back) means in the run, from its first chunk without the flag.  The
 * writer ends a chunk at each poll, so that it can reach the file. */
#define REC_EV_CONT 1u

/* An event as decoded (not a file layout). */
typedef struct rec_event {
	uint64_t time_ns;          /* since the process started; coarse clock (1-4 ms ticks), kept in us */
	uint64_t size;             /* requested bytes */
	uint64_t ref;              /* a free: its allocation's position + 1; 0 if not recorded */
	uint32_t stack;            /* stack id */
	uint32_t tid;
	uint32_t kind;             /* REC_EV_* */
} rec_event;

#define REC_EV_MAX 48   /* the most bytes one encoded event takes */

typedef struct rec_wait {
	uint64_t time_ns;          /* running time of the stream when the writer saw it */
	uint64_t waits;            /* producer waits since the previous rec_wait */
	uint64_t wait_ns;          /* their total duration */
	uint64_t max_ns;           /* the longest single wait so far */
} rec_wait;

typedef struct rec_gap {
	uint64_t time_ns;
	uint64_t lost;             /* events overwritten before the writer read them */
} rec_gap;

typedef struct rec_end {
	uint64_t events;           /* events since the recording began */
	uint64_t time_ns;          /* when the file was closed (the process exited, or rotation) */
	uint64_t how;              /* version 5: enum rec_end_how (absent before: len 16) */
} rec_end;

/* Why a file was closed: said by a recorder outside the process, which
 * outlives it (mprof-tui --record --attach). */
enum rec_end_how {
	REC_HOW_CLOSED = 0,        /* the process exited, or a rotation */
	REC_HOW_STOPPED = 1,       /* the recorder was stopped (Ctrl-C) */
	REC_HOW_KILLED = 2,        /* the process ended without exiting: killed (SIGKILL, the OOM killer) */
};

/* An event's weight in a sampled recording: 1/p objects and size/p
 * bytes, dithered by the position of the allocation it stands for (a
 * free: its allocation's, so it takes off exactly what that added; a free
 * whose allocation is not in the recording: its own), so object counts of
 * large blocks (1/p near 1) are unbiased.  Version 2 files rounded to
 * nearest (dither 0).  Exact (1, size) when rate is 0. */
static inline void rec_weight_at(uint64_t size, uint64_t rate, uint64_t apos, int dither, uint64_t *objs,
				 uint64_t *bytes)
{
	if (!rate) {
		*objs = 1;
		*bytes = size;
		return;
	}
	heap_weight_at(size, rate, dither ? heap_weight_frac(apos) : 0.5, objs, bytes);
}

#endif
