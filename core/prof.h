/* prof.h - the profile model: frames, leaf-first stacks, (stack, size)
 * samples with 64-bit counters, modules and metadata.  Every reader fills
 * one of these; every view and writer reads one.  No I/O here.
 *
 * core/ is the profile and everything computed from it, with no terminal
 * and no process: readers and writers of every format (load.c picks one:
 * pro_v1, pro_native, pprof, folded, heap_legacy, jemalloc), aggregation
 * over a node map (agg.c: flat/cum; callgraph.c, tree.c, inline_edges.c),
 * the view state a key changes (view*.c, filter.c), diffs (diff*.c,
 * snapdiff.c), recordings (recfmt.h, recording*.c, timeline.c), exports
 * and reports (export*.c, flamegraph.c, report.c), names (names.c;
 * v1name.c reads and writes backtrace_symbols-style ones), the hash
 * tables (hash.h: the one mixer; u64map.h, strix.h).  Data
 * flows one way: reader -> prof -> node map (symbols/) -> agg -> view ->
 * tui/.  Nothing here includes ncurses, elfutils or ptrace. */
#ifndef MPROF_PROF_H
#define MPROF_PROF_H

#include "core/counts.h"
#include "core/gomem.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/u64map.h"
#include "core/vec.h"

#define PROF_NONE UINT32_MAX

/* Source formats, detected by content (prof_detect). */
enum prof_format {
	PROF_FMT_UNKNOWN = 0,
	PROF_FMT_V1,      /* skynet-mprof .pro, big-endian, 32-bit counters */
	PROF_FMT_NATIVE,  /* mprof's own format (man/mprof-pro.5) */
	PROF_FMT_GPERF,   /* gperftools text heap profile (@ heapprofile) */
	PROF_FMT_GOHEAP,  /* Go runtime/pprof legacy text, debug=1 (@ heap/RATE) */
	PROF_FMT_JEMALLOC,/* jemalloc heap_v2/PERIOD */
	PROF_FMT_FOLDED,  /* folded stacks "a;b;c 123" */
	PROF_FMT_PPROF,   /* pprof profile.proto, gzipped or not */
};

typedef struct prof_frame {
	uint64_t addr;     /* the recorded pc / id; return address unless exact */
	uint32_t name;     /* offset of a NUL-terminated name in strs, or PROF_NONE */
	uint32_t module;   /* index into modules, or PROF_NONE when unknown */
} prof_frame;

typedef struct prof_stack {
	uint32_t off;      /* first frame index in prof.stack_frames */
	uint32_t depth;    /* number of frames; frame[off] is the leaf */
} prof_stack;

typedef struct prof_sample {
	uint32_t stack;    /* index into stacks */
	uint32_t pad;
	uint64_t size;     /* bucket size in bytes, 0 when the format has none */
	mp_counts c;
	uint64_t peak_objs, peak_bytes;   /* in use when the heap was highest (meta.peak) */
} prof_sample;

typedef struct prof_module {
	uint32_t path;     /* offset into strs */
	uint32_t build_id; /* offset into strs (hex), or PROF_NONE */
	uint64_t base;     /* load address of the mapping with file offset 0 */
	uint64_t size;     /* bytes mapped */
	uint64_t offset;   /* file offset of base (usually 0) */
	uint32_t peer;     /* a diff's BASE build: 1 + the module of NEW it stands
			    * for (rows name both alike); 0 otherwise */
	uint32_t pad;
} prof_module;

/* The heap's high-water mark, when the source kept one (the hook's dumps
 * and live segments): each sample's peak_objs/peak_bytes are its share. */
typedef struct prof_peak {
	int64_t time_ns;   /* unix ns when the heap was highest; 0: no peak in this profile */
	int64_t start_ns;  /* unix ns the counts began (process start, injection), 0 unknown */
	uint64_t bytes, objs;   /* in use then */
} prof_peak;

typedef struct prof_meta {
	enum prof_format format;
	int64_t pid;       /* -1 unknown */
	int64_t time;      /* unix seconds when dumped, 0 unknown */
	uint32_t cmdline;  /* offset into strs, or PROF_NONE */
	uint32_t pad;
	double scale;      /* sampling scale applied already (1 = exact) */
	uint64_t dropped;  /* events the producer could not record */
	uint64_t unknown_frees;     /* frees of pointers never seen allocated */
	uint64_t unknown_free_bytes;
	prof_peak peak;
} prof_meta;

/* A growable array of T; len/cap in elements.  Owned by the prof. */
#define PROF_VEC(T) struct { T *v; size_t len, cap; }

typedef struct prof {
	PROF_VEC(prof_frame) frames;
	PROF_VEC(uint32_t) stack_frames;   /* frame indices of all stacks */
	PROF_VEC(prof_stack) stacks;
	PROF_VEC(prof_sample) samples;
	PROF_VEC(prof_module) modules;
	PROF_VEC(char) strs;               /* string pool, NUL-separated */
	prof_meta meta;
	u64map frame_index;                /* addr -> frame, owned */
	prof_gomem go;                     /* a Go debug=1 profile's runtime.MemStats */
} prof;

/* Allocates an empty profile; free it with prof_free. NULL on ENOMEM. */
prof *prof_new(void);
void prof_free(prof *p);

/* Appends a string to the pool; returns its offset or PROF_NONE on ENOMEM. */
uint32_t prof_str(prof *p, const char *s, size_t len);
/* The same into a pool known to have room for len + 1 more bytes (the
 * hook's dump, which cannot grow it). */
static inline uint32_t prof_str_put(prof *p, const char *s, size_t len)
{
	uint32_t off = (uint32_t)p->strs.len;
	memcpy(p->strs.v + off, s, len);
	p->strs.v[off + len] = 0;
	p->strs.len += len + 1;
	return off;
}
static inline const char *prof_strat(const prof *p, uint32_t off)
{
	return off == PROF_NONE ? NULL : p->strs.v + off;
}

/* Finds or adds the frame for addr; returns its index or PROF_NONE on ENOMEM.
 * A later name for an existing addr replaces the earlier one (as the
 * reference reader's map does). */
uint32_t prof_frame_intern(prof *p, uint64_t addr);
/* Returns the frame index for addr or PROF_NONE. */
uint32_t prof_frame_find(const prof *p, uint64_t addr);

/* Appends a stack of depth frame indices (leaf first); returns its index. */
uint32_t prof_stack_add(prof *p, const uint32_t *frames, uint32_t depth);
/* Two-step add that fills the pool in place: begin returns room for depth
 * frame indices (NULL on ENOMEM), commit publishes them as a stack. */
uint32_t *prof_stack_begin(prof *p, uint32_t depth);
uint32_t prof_stack_commit(prof *p, uint32_t depth);
static inline const uint32_t *prof_stack_frames(const prof *p, uint32_t s)
{
	return p->stack_frames.v + p->stacks.v[s].off;
}

/* The name of the frame that stands for a missing stack. */
#define PROF_NOSTACK_NAME "<no stack>"
/* A stack for a sample recorded without one: the single frame at address 0
 * named "<no stack>" (pc 0 is no code either), so that the sample shows as
 * one row of that name in every view, not only in the totals. Returns the
 * new stack, or PROF_NONE on ENOMEM. */
uint32_t prof_stack_nostack(prof *p);
/* Is frame f that frame? */
static inline int prof_frame_is_nostack(const prof *p, uint32_t f)
{
	const prof_frame *fr = &p->frames.v[f];
	return fr->addr == 0 && fr->module == PROF_NONE && fr->name != PROF_NONE &&
	       !strcmp(p->strs.v + fr->name, PROF_NOSTACK_NAME);
}

/* The outermost frame of a stack the hook cut at its depth limit (no code
 * lives at that address; attach/shared/segment.h's SEG_FRAME_TRUNCATED). */
#define PROF_TRUNCATED_ADDR 0xfffffffffffff003ULL
#define PROF_TRUNCATED_NAME "[truncated]"
static inline int prof_frame_is_truncated(const prof *p, uint32_t f)
{
	const prof_frame *fr = &p->frames.v[f];
	return fr->addr == PROF_TRUNCATED_ADDR && fr->module == PROF_NONE && fr->name != PROF_NONE &&
	       !strcmp(p->strs.v + fr->name, PROF_TRUNCATED_NAME);
}
/* Names frame f "[truncated]" when it is at PROF_TRUNCATED_ADDR, has no
 * name and no module (readers of the hook's segment and recordings);
 * 0, or -1 on ENOMEM. */
int prof_frame_name_truncated(prof *p, uint32_t f);
/* Stacks whose outermost frame is "[truncated]". */
size_t prof_truncated_stacks(const prof *p);

/* Appends a sample; returns 0 or -1 on ENOMEM. */
int prof_sample_add(prof *p, uint32_t stack, uint64_t size, uint64_t alloc_objs,
		    uint64_t alloc_bytes, uint64_t free_objs, uint64_t free_bytes);

/* --peak: every sample's counters become what it held at the peak (as
 * allocated and in use, nothing freed), so every view and export shows
 * the peak.  -1 (nothing changed) when the profile has no peak. */
int prof_select_peak(prof *p);
/* Fills sample peaks and meta.peak from the in-use counters when they are
 * above the peak the source kept (the heap is highest now); now_ns: unix ns. */
void prof_peak_now(prof *p, int64_t now_ns);
/* "peak 8.00 MiB (8 objects) at 06:55:12, 0.3 s in" into buf (peak_text.c);
 * "" (0) when p has no peak. */
size_t prof_peak_text(const prof *p, char *buf, size_t cap);

/* Appends a module; returns its index or PROF_NONE. */
uint32_t prof_module_add(prof *p, const char *path, const char *build_id,
			 uint64_t base, uint64_t size, uint64_t offset);
/* The newest module whose [base, base+size) holds addr, or PROF_NONE. */
uint32_t prof_module_find(const prof *p, uint64_t addr);

/* A frame's display name: its recorded name, or "0x<addr>" in buf. */
const char *prof_frame_name(const prof *p, uint32_t frame, char *buf, size_t buflen);

/* Grows a PROF_VEC to hold n more elements; 0 or -1 on ENOMEM. */
#define prof_vec_reserve(vec, n) \
	vec_grow((void **)&(vec).v, &(vec).cap, (vec).len + (n), sizeof(*(vec).v))

#endif
