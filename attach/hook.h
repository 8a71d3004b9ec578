/* hook.h - what the producer's modules (hook, unwind, stacks, live, ring,
 * modules, dump) share inside libmprof.so.  Nothing here allocates through
 * the watched allocator: all memory is mmap'd. */
#ifndef MPROF_HOOK_H
#define MPROF_HOOK_H

#include <stddef.h>
#include <stdint.h>

#include "attach/segment.h"

#define HOOK_MAX_DEPTH 256
#define HOOK_TLS __attribute__((tls_model("initial-exec")))

/* The segment of this process, or NULL when recording is off. */
extern seg_header *hook_seg;

static inline void *seg_region(seg_header *h, int r)
{
	return (char *)h + h->off[r];
}

/* Per-thread state; zero-initialised TLS. */
typedef struct hook_thread {
	int busy;          /* inside the hook: nested calls pass straight through */
	uint32_t tid;
	uint32_t cache_hash[64]; /* hash -> stack id cache (low bits index) */
	uint32_t cache_id[64];
} hook_thread;

/* unwind.c: fills pcs (leaf first) with return addresses of the caller of
 * the hooked function and beyond; the hook's own frames are left out.
 * Returns the depth, at most max. */
void unwind_init(int fp);
int unwind_capture(uint64_t *pcs, int max);
/* The hook's own text, so its frames can be skipped. */
void unwind_set_self(uint64_t lo, uint64_t hi);

/* stacks.c: the stack id for pcs, inserting it; UINT32_MAX if full. */
uint32_t stacks_intern(seg_header *h, hook_thread *t, const uint64_t *pcs, uint32_t depth, int *fresh);
/* Rebuilds HASH from STACKS (after fork copied the segment). */
void stacks_rehash(seg_header *h);

/* live.c: live pointer table, private to the process (not in the segment). */
int live_init(void);
/* Records ptr -> (stack, size); -1 if the table is full. */
int live_put(uint64_t ptr, uint32_t stack, uint64_t size);
/* Removes ptr; 1 and fills stack, size if it was there, else 0. */
int live_take(uint64_t ptr, uint32_t *stack, uint64_t *size);
/* fork: all shard locks taken in the parent, released in both. */
void live_lock_all(void);
void live_unlock_all(void);
uint64_t live_count(void);

/* ring.c: appends an event. */
void ring_push(seg_header *h, hook_thread *t, uint32_t kind, uint32_t stack, uint64_t size);

/* modules.c: appends modules not yet in the table (dl_iterate_phdr);
 * marks modules gone from the process as unloaded.  Takes the module
 * lock unless try is set and it is busy (signal handlers). */
void modules_scan(seg_header *h, int try);
/* Rescans when the loader's object count changed since the last scan. */
void modules_check(seg_header *h);
/* The text range of the module holding addr (for the hook's own). */
int modules_self_range(const void *addr, uint64_t *lo, uint64_t *hi);

/* dump.c: writes a profile of h to path in the format (0 native, 1 v1);
 * 0 or -1.  Allocation-free: works from a signal handler. */
int dump_write(seg_header *h, const char *path, int v1);

/* elfsym.c: names of pcs in a module "path(sym+0xoff) [0xaddr]"; see there. */
struct elfsym;
struct elfsym *elfsym_open(const char *path);
/* The symbol holding ELF vaddr; NULL if none; *off gets vaddr - sym start. */
const char *elfsym_lookup(struct elfsym *e, uint64_t vaddr, uint64_t *off);
void elfsym_close(struct elfsym *e);
/* Writes "path(sym+0xoff) [0xaddr]" (or "path(+0xoff) [0xaddr]" with no
 * symbol, offset from the file start) into buf; returns its length. */
#define ELFSYM_NAME_MAX 256
int elfsym_name(struct elfsym *e, char *buf, size_t cap, const char *path, uint64_t addr,
		uint64_t bias, uint64_t base, uint64_t offset);

/* mmap-backed memory for the hook; sizes rounded to pages. */
void *hook_map(size_t size);
void hook_unmap(void *p, size_t size);

#endif
