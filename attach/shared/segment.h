/* attach/shared/ is what both binaries link; this header and
 * core/recfmt.h are the contracts between attach/hook/ (libmprof.so, the
 * producer) and mprof-tui's side of attach/ (attach/live/ reads the
 * segment, attach/inject/ and attach/serve/ reach it through there).
 *
 * segment.h - the live segment /dev/shm/mprof-<pid>: the layout shared by
 * the producer (libmprof.so, inside the profiled process) and consumers
 * (segment_read.c, the live TUI).  Native byte order and alignment: the
 * consumer runs on the same machine.  Documented in man/libmprof.3.
 *
 * The file is one header followed by regions, each at header.off[R] with
 * header.size[R] bytes (R = SEG_R_*), all 64-byte aligned and inside the
 * file.  A consumer must check every offset, size, count and index against
 * the mapping before use (segment_read.c does).
 *
 * Concurrency: the producer appends; it never moves or rewrites published
 * data except counters.  A stack entry is written, then its state is set to
 * SEG_STACK_READY with a release store; readers load state with acquire and
 * skip entries that are not ready.  Counters are 64-bit, in lanes: lane 0
 * (stack_cap entries) is shared and updated with atomic adds; lanes 1..
 * counter_lanes-1 (lane_cap entries each, for stack ids below lane_cap)
 * each belong to one thread at a time, which updates them with plain
 * 64-bit stores.  A stack's counters are the sum over the lanes
 * (seg_counter_sum); a reader sees each one exactly or slightly stale. */
#ifndef MPROF_SEGMENT_H
#define MPROF_SEGMENT_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "core/counts.h"
#include "core/varint.h"

/* The deepest stack the hook records (MPROF_DEPTH at most this). */
#define SEG_MAX_DEPTH 256
/* The outermost frame of a stack cut at MPROF_DEPTH frames (no code lives
 * there; readers name it "[truncated]"): such a stack has depth + 1 pcs. */
#define SEG_FRAME_TRUNCATED 0xfffffffffffff003ULL
#define SEG_MAX_PCS (SEG_MAX_DEPTH + 1)

#define SEG_MAGIC "MPROFSEG"
#define SEG_VERSION 5
#define SEG_PATH_FMT "/dev/shm/mprof-%d"

/* Producer state (header.state). */
enum seg_state {
	SEG_STATE_STARTING = 0,
	SEG_STATE_RUNNING = 1,   /* recording */
	SEG_STATE_EXITED = 2,    /* the process ran its exit handlers */
};

/* header.flags. */
enum seg_flag {
	SEG_FLAG_LATE = 1,       /* loaded into a running process (mprof-tui --inject):
				  * history before that is unknown */
	SEG_FLAG_DETACHED = 2,   /* mprof_detach: the program's calls no longer reach the hook */
};

/* header.sample_rate and seg_sample.want: 0 every allocation, N one per N
 * bytes on average, SEG_SAMPLE_OFF none (frees of recorded blocks still count). */
#define SEG_SAMPLE_OFF UINT64_MAX
#define SEG_SAMPLE_MAX (1ull << 40)   /* the largest finite rate */

/* seg_sample.result: what the hook made of the last request. */
enum seg_sample_result {
	SEG_SAMPLE_DONE = 1,          /* applied (or already in effect) */
	SEG_SAMPLE_BAD = 2,           /* want is neither 0, 1..SEG_SAMPLE_MAX nor SEG_SAMPLE_OFF */
	SEG_SAMPLE_RECORDING = 3,     /* refused: a recording weighs events with the rate it began with */
	SEG_SAMPLE_TOO_MANY = 4,      /* refused: the process used SEG_SAMPLE_RATES rates already */
};
#define SEG_SAMPLE_RATES 127

/* Sampling control, on a cache line of its own: a thread reads seq each
 * time it has allocated 64 KiB (every allocation when all are recorded).
 * A consumer (mprof-tui --sample-rate) stores want, then adds 1 to seq
 * (release); the first thread to see it applies it and stores result,
 * then done = the seq it handled (release). */
typedef struct seg_sample {
	uint64_t seq;
	uint64_t want;
	uint64_t done;
	uint64_t result;           /* enum seg_sample_result of the request done */
	uint64_t changes;          /* rate changes applied since start: > 0, the counters mix rates */
	uint64_t last;             /* the last finite rate > 1 in effect (0: none): what OFF keeps */
	uint64_t dumpon_off;       /* the header's, in this line's padding: seg_dumpon at this offset;
				    * 0 none (a hook older than triggered dumps: this was reserved, zero) */
	uint64_t pad[1];
} seg_sample;

/* Triggered dumps (MPROF_DUMP_ON, mprof-tui --dump-on; attach/shared/dumpon.h
 * says the syntax).  A consumer writes spec and out, then adds 1 to seq
 * (release); the hook's trigger thread takes it within a tick and stores
 * result, active and where, then done = the seq it handled (release).
 * While no trigger thread runs (running 0), the consumer starts one by
 * calling the hook's mprof_dump_on() (ptrace, as --detach does).  The
 * layout adds no field to the header (its offset is in seg_sample's
 * padding), so the segment's version stays 5. */
#define SEG_DUMPON_PATH 1024
enum seg_dumpon_result {
	SEG_DUMPON_OK = 1,          /* in effect */
	SEG_DUMPON_BAD = 2,         /* spec does not parse (why says where) */
	SEG_DUMPON_NO_OUT = 3,      /* out is empty and the process has no MPROF_OUT */
	SEG_DUMPON_REFUSED = 4,     /* a trigger cannot work here (why: no cgroup v2, no memory.max) */
};
typedef struct seg_dumpon {
	uint64_t seq;              /* requests made (the consumer's) */
	uint64_t done;             /* the last one the hook handled */
	uint64_t result;           /* enum seg_dumpon_result of it */
	uint64_t running;          /* 1 while the hook's trigger thread runs */
	uint64_t has_out;          /* 1 when the process has an MPROF_OUT (out may stay empty) */
	uint64_t fired;            /* triggered dumps written */
	uint64_t failed;           /* triggered dumps that could not be written */
	int64_t last_ns;           /* CLOCK_REALTIME of the last one written */
	char spec[256];            /* request: the triggers */
	char out[SEG_DUMPON_PATH];   /* request: the dumps' name pattern (MPROF_OUT's rules); "" MPROF_OUT */
	char active[256];          /* the hook's: the triggers in effect ("" none) */
	char where[SEG_DUMPON_PATH]; /* the hook's: the next triggered dump's path */
	char last[SEG_DUMPON_PATH];  /* the hook's: the last one written */
	char why[256];             /* the hook's: why the last request was refused */
} seg_dumpon;

/* The peak (header.peak): each thread adds the bytes it records allocated
 * (less those freed) to its own running delta and folds it into inuse once
 * it passes SEG_PEAK_FOLD either way; the thread whose fold takes inuse to
 * mark or beyond takes lock (a try: others never wait) and copies every
 * stack's bytes and objects in use (the lanes' sums) into the array at off
 * (seg_peak_stack[stack_cap]), with seq odd while it writes (a reader
 * copies, then keeps the copy only when seq was even and unchanged); then
 * mark = the copy's bytes + max(1/64 of them, SEG_PEAK_MARGIN).  So copies
 * happen a logarithmic number of times, and the copy is within a margin
 * (and the threads' unfolded deltas) of the true peak. */
#define SEG_PEAK_FOLD (16u << 10)
#define SEG_PEAK_MARGIN (4u << 10)

typedef struct seg_peak_stack {
	uint64_t objs, bytes;      /* in use at the peak */
} seg_peak_stack;

typedef struct seg_peak {
	int64_t inuse;             /* bytes in use, as folded so far (atomic adds) */
	uint64_t pad0[7];          /* inuse on a line of its own: every fold writes it */
	uint64_t off;              /* seg_peak_stack[stack_cap] at this offset; 0 none */
	uint64_t seq;              /* copies begun and ended: odd while one is written */
	uint64_t lock;             /* 1 while a thread copies */
	int64_t mark;              /* the next copy once inuse reaches this */
	int64_t time_ns;           /* CLOCK_REALTIME of the copy; 0: none yet */
	uint64_t bytes, objs;      /* the copy's totals */
	uint64_t copies;           /* copies taken */
} seg_peak;

/* A reader of the peak copy: seq before (acquire), then the copy and the
 * totals, then seg_peak_whole: 1 when no copy was written meanwhile. */
static inline uint64_t seg_peak_begin(const seg_peak *pk)
{
	return __atomic_load_n(&pk->seq, __ATOMIC_ACQUIRE);
}
static inline int seg_peak_whole(const seg_peak *pk, uint64_t seq)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return !(seq & 1) && __atomic_load_n(&pk->seq, __ATOMIC_RELAXED) == seq;
}

/* Unwinder in use (header.unwind). */
enum seg_unwind {
	SEG_UNWIND_LIBUNWIND = 0,
	SEG_UNWIND_FP = 1,
	SEG_UNWIND_FP_NOLIB = 2,   /* frame pointers: libunwind.so.8 could not be loaded */
};

/* Regions, in file order. */
enum seg_region {
	SEG_R_STACKS = 0,   /* seg_stack[stack_cap] */
	SEG_R_COUNTERS,     /* mp_counts[stack_cap + (counter_lanes - 1) * lane_cap] */
	SEG_R_FRAMES,       /* uint64_t pcs[frame_cap], the stacks' frames */
	SEG_R_HASH,         /* uint32_t slots[hash_cap]: stack id + 1, 0 empty */
	SEG_R_RING,         /* seg_slot[ring_cap] */
	SEG_R_MODULES,      /* seg_module[module_cap] */
	SEG_R_COUNT
};

/* Counts in the header that grow are atomics; a reader loads them with
 * acquire and clamps them to the matching capacity. */
typedef struct seg_header {
	char magic[8];             /* SEG_MAGIC, no NUL */
	uint32_t version;          /* SEG_VERSION */
	uint32_t header_size;      /* sizeof(seg_header) */
	uint64_t file_size;        /* bytes in the file */
	int64_t pid;
	int64_t start_time_ns;     /* CLOCK_REALTIME at segment creation */
	int64_t start_mono_ns;     /* CLOCK_MONOTONIC at creation: event times are the coarse clock (the
				    * same clock, tick resolution) less this, clamped at 0 */
	uint32_t state;            /* enum seg_state */
	uint32_t unwind;           /* enum seg_unwind */
	uint32_t max_depth;        /* MPROF_DEPTH */
	uint32_t flags;            /* SEG_FLAG_* */
	char cmdline[512];         /* argv joined by spaces, NUL-terminated, truncated */

	uint64_t off[SEG_R_COUNT]; /* byte offset of each region in the file */
	uint64_t size[SEG_R_COUNT];/* byte size of each region */

	uint64_t stack_cap;        /* entries in STACKS and COUNTERS */
	uint64_t stack_count;      /* ids handed out so far (entries may not be ready) */
	uint64_t frame_cap;        /* pcs in FRAMES */
	uint64_t frame_used;       /* pcs handed out so far */
	uint64_t hash_cap;         /* slots in HASH, a power of two */
	uint64_t ring_cap;         /* slots in RING, a power of two */
	uint64_t ring_head;        /* slots ever written; next goes to head % cap */
	uint64_t ring_read;        /* slots a consumer has taken (it may write this) */
	uint64_t module_cap;
	uint64_t module_count;     /* modules published (each entry ready first) */

	/* Totals and what could not be recorded; alloc/free totals are the sums
	 * of the per-stack counters (kept there only, to keep the hot path off
	 * one shared line). */
	uint64_t unknown_frees;    /* frees of pointers the hook never saw */
	uint64_t unknown_free_bytes; /* always 0: their size is unknown */
	uint64_t dropped_stacks;   /* allocations not recorded: stack table full */
	uint64_t dropped_live;     /* allocations not tracked: live table full */
	uint64_t dropped_events;   /* ring events overwritten before being read (nobody recording) */
	uint64_t truncated_stacks; /* distinct stacks cut at max_depth */
	uint64_t dumps;            /* dumps written so far */
	uint64_t counter_lanes;    /* lanes of counters, 1 to SEG_MAX_LANES */
	uint64_t lane_cap;         /* entries in each lane after the first, <= stack_cap */
	/* Recording (MPROF_RECORD, mprof-tui --record): while rec_beat_ns is
	 * recent, producers wait (bounded) for ring_read instead of
	 * overwriting, and count how often and how long here. */
	uint64_t rec_beat_ns;      /* the recorder's last sign of life (event clock); 0: none */
	uint64_t rec_waits;        /* producer waits for the recorder */
	uint64_t rec_wait_ns;      /* their total duration */
	uint64_t rec_wait_max_ns;  /* the longest one */
	uint64_t rec_lost;         /* events a recorder missed: their slot was overwritten after a wait */
	uint64_t sample_rate;      /* in effect: mean bytes per sampled allocation; 0 all;
				    * SEG_SAMPLE_OFF none (MPROF_SAMPLE, then seg_sample requests) */
	uint64_t alloc_off;        /* the allocator table (seg_allocs) at this offset; 0: none
				    * (a hook older than the table: this was reserved, zero) */
	/* The heap window (mprof-tui --window): while it is open the hook marks
	 * each block it records and counts it, and the frees of marked blocks,
	 * in the window counters (mp_counts[stack_cap] at win_off, shared,
	 * atomic adds); a free of a block allocated before it counts nowhere
	 * there.  win_state is on a line of its own: every put and take reads it. */
	uint64_t win_off;
	uint64_t win_state __attribute__((aligned(64)));   /* gen << 1 | open; the consumer writes it */
	int64_t win_owner;         /* pid of the mprof-tui holding the window, 0 none */
	/* A follower (the live screens) writes its last drain here (event clock);
	 * the hook writes events to the ring only while this or rec_beat_ns is
	 * recent (SEG_RING_STALE_NS): with nobody reading, the ring costs nothing.
	 * In the window line's padding. */
	uint64_t ring_beat_ns;
	/* A re-injection (mprof_attach on a detached hook) starts the counts
	 * afresh: the live table, every counter and the totals above are
	 * emptied, then attach_ns is set and attaches raised (release).  The
	 * counts cover the time since attach_ns, or since start_time_ns while
	 * attaches is 0.  In the window line's padding (zero in older hooks). */
	int64_t attach_ns;         /* CLOCK_REALTIME of the latest re-injection */
	uint64_t attaches;         /* re-injections so far */
	seg_sample sample __attribute__((aligned(64)));
	seg_peak peak;             /* the heap's high-water mark (version 5) */
} seg_header;

#define SEG_WIN_OPEN 1ull

#define SEG_MAX_LANES 64

/* A recorder whose heartbeat (rec_beat_ns) is older than this is gone. */
#define SEG_REC_STALE_NS 1000000000LL

/* A follower whose ring_beat_ns is older than this is gone: the hook stops
 * writing events (a follower that comes back reads the counters again). */
#define SEG_RING_STALE_NS 2000000000LL

/* The header of the segment file at path read into *h (no symlink
 * followed): 1 when the file is whole, its magic (written last) there;
 * 0 when there is none or it is still being made. Allocation-free: the
 * hook calls it too. */
static inline int seg_file_header(const char *path, seg_header *h)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	ssize_t r = pread(fd, h, sizeof(*h), 0);
	close(fd);
	return r == (ssize_t)sizeof(*h) && !memcmp(h->magic, SEG_MAGIC, 8);
}

/* A reader says it reads the ring (now: the event clock), then fences
 * before it reads ring_head and the counters: the hook, about to leave an
 * event out, fences and looks again (ring.c), so an event it left out is
 * in the counters read after this. */
static inline void seg_ring_beat(seg_header *hw, int64_t now)
{
	__atomic_store_n(&hw->ring_beat_ns, (uint64_t)(now > 0 ? now : 1), __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* The event clock: CLOCK_MONOTONIC_COARSE since the segment began, what
 * event times, rec_beat_ns and ring_beat_ns are counted in. */
static inline int64_t seg_event_clock(const seg_header *h)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - h->start_mono_ns;
}

/* 1 while a recorder reads the ring; now: CLOCK_MONOTONIC in ns. */
static inline int seg_recorder_alive(const seg_header *h, int64_t now)
{
	uint64_t beat = __atomic_load_n(&h->rec_beat_ns, __ATOMIC_RELAXED);
	return beat && now - h->start_mono_ns - (int64_t)beat <= SEG_REC_STALE_NS;
}

/* The rate a profile of h is to say it shows (prof meta.scale): the one in
 * effect, or with sampling off the last one used; 1 for every allocation. */
static inline double seg_sample_scale(const seg_header *h)
{
	uint64_t r = h->sample_rate == SEG_SAMPLE_OFF ? h->sample.last : h->sample_rate;
	return r > 1 && r != SEG_SAMPLE_OFF ? (double)r : 1.0;
}

enum seg_stack_state {
	SEG_STACK_EMPTY = 0,       /* id handed out, not written yet */
	SEG_STACK_READY = 1,       /* published: depth and frames are valid */
	SEG_STACK_DUP = 2,         /* lost an insert race: an equal stack exists */
};

typedef struct seg_stack {
	uint32_t state;            /* enum seg_stack_state, release-stored last */
	uint32_t depth;            /* frames, leaf first */
	uint64_t frame_off;        /* index of the leaf pc in FRAMES */
	uint64_t hash;
} seg_stack;

/* Exact per-stack totals (requested sizes): core/counts.h's mp_counts. */

/* Adds stack s's counters over every lane into *out (which it zeroes
 * first).  The caller has checked s < stack_cap and the region's size. */
static inline void seg_counter_sum(const seg_header *h, const mp_counts *region, uint64_t s,
				   mp_counts *out)
{
	out->alloc_objs = out->alloc_bytes = out->free_objs = out->free_bytes = 0;
	uint64_t lanes = h->counter_lanes, cap = h->lane_cap;
	for (uint64_t l = 0; l < lanes; l++) {
		const mp_counts *c;
		if (!l)
			c = region + s;
		else if (s < cap)
			c = region + h->stack_cap + (l - 1) * cap + s;
		else
			break;
		out->alloc_objs += __atomic_load_n(&c->alloc_objs, __ATOMIC_RELAXED);
		out->alloc_bytes += __atomic_load_n(&c->alloc_bytes, __ATOMIC_RELAXED);
		out->free_objs += __atomic_load_n(&c->free_objs, __ATOMIC_RELAXED);
		out->free_bytes += __atomic_load_n(&c->free_bytes, __ATOMIC_RELAXED);
	}
}

/* Stack s's counters for the whole program.  Since version 3 the hook adds
 * each recorded allocation's own weight (heap_weight: 1 and its size when
 * every allocation is recorded, unbiased estimates when sampled), so the
 * lanes' sum is the estimate. */
static inline void seg_counter_estimate(const seg_header *h, const mp_counts *region, uint64_t s,
					mp_counts *out)
{
	seg_counter_sum(h, region, s, out);
}

/* Stack s's counters as seg_counter_estimate gives them, when the stack is
 * published (READY) and has allocated: 1; else 0 (skip it). */
static inline int seg_stack_counters(const seg_header *h, const seg_stack *stacks,
				     const mp_counts *region, uint64_t s, mp_counts *out)
{
	if (__atomic_load_n(&stacks[s].state, __ATOMIC_ACQUIRE) != SEG_STACK_READY)
		return 0;
	seg_counter_estimate(h, region, s, out);
	return out->alloc_objs != 0;
}

enum seg_event_kind { SEG_EV_ALLOC = 1, SEG_EV_FREE = 2 };

/* The ring is an array of slots, each a batch of one thread's events
 * encoded compactly (about 10 bytes an event instead of 40: the ring's
 * lines are what the program's threads and the reader pass between
 * cores).  seq is written last (release) as the slot's index + 1: a reader
 * that loads seq (acquire), copies the slot, and loads seq again, keeps the
 * copy only if both equal the index it wanted + 1.
 *
 * Events in data, each decoded against the previous one of the slot (the
 * first against stack 0, key 0, the slot's time_ns):
 *   varint zigzag(stack - previous stack) << 2 | time_changed << 1 | is_free
 *   varint (time_ns - previous time_ns), if time_changed
 *   varint size
 *   varint zigzag(key - previous key)
 * Varints are core/varint.h's; seg_slot_next decodes one. */
#define SEG_SLOT_SIZE 512
#define SEG_SLOT_DATA (SEG_SLOT_SIZE - 24)
#define SEG_EV_MAXLEN 30           /* the most bytes one encoded event takes */
#define SEG_SLOT_MAX_EVENTS (SEG_SLOT_DATA / 3)   /* the least one takes is 3 */
#define SEG_SLOT_EVENTS 32         /* events a slot stands for in MPROF_RING (nominal) */

typedef struct seg_slot {
	uint64_t seq;
	uint64_t time_ns;          /* the first event's: CLOCK_MONOTONIC_COARSE - header.start_mono_ns */
	uint32_t tid;              /* the thread of every event in it */
	uint16_t n;                /* events */
	uint16_t len;              /* bytes of data used, <= SEG_SLOT_DATA */
	uint8_t data[SEG_SLOT_DATA];
} seg_slot;
_Static_assert(sizeof(seg_slot) == SEG_SLOT_SIZE, "seg_slot is a segment layout");

/* Copies the slot at e, whose seq was loaded (acquire) as s1, into *c
 * (its data up to len, at most SEG_SLOT_DATA); 1 when seq still says s1
 * after the copy, so the copy is whole; 0 when it was rewritten meanwhile. */
static inline int seg_slot_copy(const seg_slot *e, uint64_t s1, seg_slot *c)
{
	memcpy(c, e, offsetof(seg_slot, data));
	memcpy(c->data, e->data, c->len <= SEG_SLOT_DATA ? c->len : SEG_SLOT_DATA);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&e->seq, __ATOMIC_RELAXED) == s1;
}

/* An event as encoded into and decoded from a slot (not a layout). */
typedef struct seg_event {
	uint64_t time_ns;          /* tick resolution */
	uint64_t size;             /* requested bytes */
	uint32_t stack;            /* stack id; UINT32_MAX when unknown */
	uint32_t kind;             /* enum seg_event_kind */
	uint32_t tid;
	uint32_t key;              /* (uint32_t)(ptr >> 4): pairs a free with its allocation */
} seg_event;

/* Appends e to a slot's data at p; prev is the slot's previous event (its
 * stack, key and time; zero but the time at the start). Returns the end. */
static inline uint8_t *seg_slot_put(uint8_t *p, seg_event *prev, const seg_event *e)
{
	uint64_t dt = e->time_ns > prev->time_ns ? e->time_ns - prev->time_ns : 0;
	p = varint_put(p, zigzag((int64_t)e->stack - (int64_t)prev->stack) << 2 | (uint64_t)(dt != 0) << 1 |
				  (uint64_t)(e->kind == SEG_EV_FREE));
	if (dt)
		p = varint_put(p, dt);
	p = varint_put(p, e->size);
	p = varint_put(p, zigzag((int64_t)e->key - (int64_t)prev->key));
	prev->stack = e->stack;
	prev->key = e->key;
	prev->time_ns += dt;
	return p;
}

/* Decodes the event at p (before end) into *e, against *prev (as above;
 * start it as { .time_ns = slot time, .tid = slot tid }). NULL when the
 * data is cut or malformed: a reader copies a slot while it may be
 * rewritten, so it decodes defensively and trusts the copy only if seq held. */
static inline const uint8_t *seg_slot_next(const uint8_t *p, const uint8_t *end, seg_event *prev, seg_event *e)
{
	uint64_t tag, dt = 0, size, dk;
	if (!(p = varint_get(p, end, &tag)) || ((tag & 2) && !(p = varint_get(p, end, &dt))) ||
	    !(p = varint_get(p, end, &size)) || !(p = varint_get(p, end, &dk)))
		return NULL;
	prev->stack = (uint32_t)((int64_t)prev->stack + unzigzag(tag >> 2));
	prev->key = (uint32_t)((int64_t)prev->key + unzigzag(dk));
	prev->time_ns += dt;
	*e = (seg_event){ .time_ns = prev->time_ns, .size = size, .stack = prev->stack,
			  .kind = tag & 1 ? SEG_EV_FREE : SEG_EV_ALLOC, .tid = prev->tid, .key = prev->key };
	return p;
}

#define SEG_MOD_PATH 448
#define SEG_MOD_BUILD_ID 41        /* hex digits of a 20-byte id + NUL */

enum seg_module_state { SEG_MOD_LOADED = 1, SEG_MOD_UNLOADED = 2 };

typedef struct seg_module {
	uint64_t base;             /* address of the lowest PT_LOAD, page-aligned */
	uint64_t size;             /* bytes from base to the end of the last PT_LOAD */
	uint64_t offset;           /* file offset mapped at base */
	uint64_t bias;             /* load bias: ELF vaddr = address - bias */
	uint32_t state;            /* enum seg_module_state */
	uint32_t pad;
	char build_id[SEG_MOD_BUILD_ID + 7];
	char path[SEG_MOD_PATH];   /* NUL-terminated, truncated */
} seg_module;

/* The allocator table: which allocators the hook found and how it reaches
 * each (written once at start; a detach sets SEG_AF_RESTORED).  At
 * header.alloc_off, 64-byte aligned, inside the file: a seg_allocs, then
 * cap seg_alloc entries, the first count of them valid. */
enum seg_alloc_kind {
	SEG_AK_SYSTEM = 1,         /* the malloc the program's own lookup reaches (libc or a library) */
	SEG_AK_JEMALLOC,           /* jemalloc under its prefix (skynet's je_) */
	SEG_AK_TCMALLOC,           /* tcmalloc linked into the executable */
	SEG_AK_MIMALLOC,           /* mimalloc's mi_ API */
	SEG_AK_OWN,                /* the executable's own malloc and free */
	SEG_AK_USER,               /* the functions MPROF_FUNCS names */
};

enum seg_alloc_how {
	SEG_HOW_INTERPOSED = 1,    /* LD_PRELOAD: symbol interposition */
	SEG_HOW_GOT,               /* its callers' GOT slots point at the hook */
	SEG_HOW_ENTRY,             /* its functions' first instructions jump to the hook */
	SEG_HOW_REFUSED,           /* found, not hooked: note says why */
};

enum seg_alloc_flag {
	SEG_AF_PROVIDER = 1,       /* it provides the program's malloc */
	SEG_AF_RESTORED = 2,       /* detached: its entries hold their own bytes again */
};

typedef struct seg_alloc {
	uint32_t kind;             /* enum seg_alloc_kind */
	uint32_t how;              /* enum seg_alloc_how */
	uint32_t nfuncs;           /* functions entry-patched */
	uint32_t flags;            /* enum seg_alloc_flag */
	char prefix[24];           /* jemalloc's prefix ("je_"), tc_, mi_; NUL-terminated */
	char note[200];            /* why it was refused, or what was patched */
	char path[SEG_MOD_PATH];   /* the module holding it, NUL-terminated */
} seg_alloc;

typedef struct seg_allocs {
	uint32_t count;            /* entries written (release-stored after them) */
	uint32_t cap;
	uint64_t pad[7];
} seg_allocs;

#define SEG_ALLOC_CAP 16

/* Region r of a segment whose offsets were checked (the hook's own, or a
 * consumer's validated copy). */
static inline void *seg_region(seg_header *h, int r)
{
	return (char *)h + h->off[r];
}

#endif
