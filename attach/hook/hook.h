/* hook.h - attach/hook/ is libmprof.so and nothing else: what runs inside
 * the target.  The entry points (hook.c: C's malloc family; hook_ext.c: the
 * C++ operators, jemalloc's and tcmalloc's own API) forward to the
 * program's allocator and record (hook_record.c: one allocation or free;
 * hook_start.c starts the hook and reads its settings; hook_thread.c keeps
 * each thread's state and counter lane; hook_defer.c the frees a signal
 * handler makes inside the hook; hook_hot.h what these share); unwind.c and stackcache.c make the stack,
 * stacks.c interns it in the segment, live.c keeps the live pointers, ring.c
 * streams events, modules.c and elfsym.c name the code, dump.c writes .pro
 * files through core's writers, record.c and record_hook.c write
 * recordings, sample.c samples (sfilt.c: the filter free reads first), got.c reaches callers through their GOT
 * slots, resolve.c finds each entry's real function, arena.c serves the
 * calls made before it is known, segment_create.c makes the segment (and a
 * forked child's copy), dumpname.c names dumps, dumpon.c writes the
 * triggered ones (MPROF_DUMP_ON), epoch.c starts the counts
 * afresh at a re-injection; allocators.c finds the
 * allocators interposition does not reach (allocfam.c says which functions
 * make one) and entry.c patches their entry points to jump to
 * entry_wrap.c's wrappers (capmem.c gives capstone its memory, procmaps.c
 * reads the process's mappings).  The contracts with
 * mprof-tui are attach/shared/segment.h and core/recfmt.h.  Nothing here allocates through the watched allocator:
 * all memory is mmap'd (test/integration/hook_link.sh checks the objects). */
#ifndef MPROF_HOOK_H
#define MPROF_HOOK_H

#include <stddef.h>
#include <stdint.h>

#include "attach/shared/allocfam.h"
#include "attach/shared/elfsym.h"
#include "attach/shared/mapmem.h"
#include "attach/shared/segment.h"
#include "core/hash.h"
#include "core/v1name.h"

#define HOOK_MAX_DEPTH SEG_MAX_DEPTH
#define HOOK_TLS __attribute__((tls_model("initial-exec")))
#define HOOK_DEFER 16   /* frees parked while the thread is inside the hook */

/* The segment of this process, or NULL when recording is off. */
extern seg_header *hook_seg;

struct scache;
struct ring_stage;

/* Per-thread state; zero-initialised TLS. */
typedef struct hook_thread {
	/* The fields every call reads, in one cache line (th is aligned to 64). */
	int busy;          /* inside the hook: nested calls pass straight through */
	uint32_t ndefer;   /* blocks freed by signal handlers inside the hook */
	int64_t sample_left;     /* bytes until the next look at sampling (<= 0: every allocation) */
	uint64_t group_memo;     /* free's last 64 MiB region << 4 | its live_group (0: region 0, group 0) */
	uint64_t tag;            /* live-table key bits of the allocator being recorded (0: malloc's) */
	uint32_t reached;        /* a nested call's allocator tag + 1 since hook_begin; 0 none */
	int state;         /* 0 new, 1 set up, 2 exited (shared lane, no cache) */
	uint32_t tid;
	uint32_t calls;    /* recorded calls before the stack cache (UINT32_MAX: it was made) */
	mp_counts *lane; /* this thread's own counter lane, or NULL: lane 0 */
	uint64_t lane_no;  /* its index (1..), 0 for none */
	struct scache *sc; /* stack cache, or NULL; owned, unmapped at thread exit */
	uint32_t drops;    /* ring events overwritten unread, not yet in the header */
	struct ring_stage *stage; /* events not yet in the ring, or NULL; owned */
	int64_t peak_delta;      /* bytes recorded allocated less freed, not yet in the segment's peak.inuse */
	uint64_t sample_rng;     /* its random state (0: not seeded) */
	uint64_t sample_seq;     /* the segment's sample.seq when the countdown was drawn */
	uint64_t sample_mean;    /* the rate it was drawn at (0 every allocation, SEG_SAMPLE_OFF none) */
	uint32_t sample_ridx;    /* that rate's index (live.c keeps it with each block) */
	int64_t sample_bank;     /* bytes of the countdown drawn but not yet in sample_left */
	uint32_t cache_hash[64]; /* hash -> stack id cache (low bits index) */
	uint32_t cache_id[64];
	void *defer[HOOK_DEFER];
	uint64_t stack_lo, stack_hi;   /* the mapping of its stack, for the frame-pointer walk */
} hook_thread;

/* unwind.c: fills pcs (leaf first) with return addresses of the caller of
 * the hooked function and beyond; the hook's own frames are left out.
 * fa is the hooked function's frame address.  Returns the depth, at most
 * max (<= SEG_MAX_PCS); *exact is set when slots[i] holds the address pcs[i] was read from
 * (frame-pointer walk). */
void unwind_init(int fp);
/* dlopens libunwind.so.8 (at start, before unwind_init): 0, or -1 when it
 * is not there (frame pointers then). */
int unwind_load(void);
/* zstd_dl.c: dlopens libzstd.so.1 (at start) for the recorder: 0, or -1
 * when it is not there; zstd_loaded says which. */
int zstd_load(void);
int zstd_loaded(void);
int unwind_capture(uint64_t *pcs, uint64_t *slots, int *exact, int max, uint64_t fa);

/* stackcache.c: per-thread cache (caller's return address, stack pointer)
 * -> stack id, checked against the return addresses still on the stack. */
void scache_init(int max_depth);
/* A cache for the calling thread (mmap'd; scache_free unmaps it), or NULL. */
struct scache *scache_new(uint32_t tid);
void scache_free(struct scache *c);
void scache_clear(struct scache *c);
/* The cached stack id for a call whose hooked function's frame is fa, or
 * UINT32_MAX (a cut stack's id carries its [truncated] root). */
uint32_t scache_lookup(struct scache *c, uint64_t fa);
/* Remembers an unwound stack of depth real frames; slots NULL: found by scanning the stack. */
void scache_fill(struct scache *c, uint64_t fa, const uint64_t *pcs, const uint64_t *slots,
		 int depth, uint32_t id);
/* The hook's own text, so its frames can be skipped. */
void unwind_set_self(uint64_t lo, uint64_t hi);

/* stacks.c: the stack id for pcs, inserting it; UINT32_MAX if full. */
uint32_t stacks_intern(seg_header *h, hook_thread *t, const uint64_t *pcs, uint32_t depth, int *fresh);
/* Rebuilds HASH from STACKS (after fork copied the segment). */
void stacks_rehash(seg_header *h);

/* live.c: live pointer table, private to the process (not in the segment).
 * A key is a block's address with its allocator's tag bits (ENTRY_TAG_SHIFT). */
int live_init(void);
/* Records key -> (stack, size, index of the sampling rate); mark LIVE_NEW
 * marks it when the heap window is open (a block the program just
 * allocated), LIVE_PLAIN never.  -1 if the table is full (or the address
 * uses the rate index's bits), else 1 when marked, 0 when not. */
enum { LIVE_PLAIN = 0, LIVE_NEW = 1 };
#define LIVE_RIDX_SHIFT 48
#define LIVE_RIDX_MASK (0x7full << LIVE_RIDX_SHIFT)
int live_put(uint64_t key, uint32_t stack, uint64_t size, uint32_t ridx, int mark);
/* Removes key; 1 and fills stack, size, ridx if it was there, else 0.
 * *win (win may be NULL) is set when the block was allocated in the window
 * that is open now. */
int live_take(uint64_t key, uint32_t *stack, uint64_t *size, uint32_t *ridx, int *win);
/* The filter of sampled blocks (see live.c): on while sampling, so the
 * free of a block never recorded returns without touching the table. */
#define LIVE_SHARDS 256
#define LIVE_FILT_BITS 1024     /* per shard */
extern uint64_t live_filt[LIVE_SHARDS * LIVE_FILT_BITS / 64];
extern int live_filter_on;
/* Turns the filter on (recounting it under every lock) or off. */
void live_filter(int on);
/* The group is the 64 MiB region's nibbles folded, not a hash of it:
 * regions near each other (the heaps of one allocator's arenas, 64 or 128
 * MiB apart) always get different groups, where a hash put two threads'
 * arenas in one group (and their frees on the same locks) one time in
 * four. */
static inline uint64_t live_group(uint64_t key)
{
	uint64_t r = key >> 26;
	r ^= r >> 32;
	r ^= r >> 16;
	r ^= r >> 8;
	r ^= r >> 4;
	return r & 15;
}
static inline uint64_t live_shard_index(uint64_t key, uint64_t h)
{
	return live_group(key) << 4 | (h & 15);
}
/* The filter bit of a key of group g (its shard's bits: kept under its lock). */
static inline uint64_t live_filter_bit_of(uint64_t g, uint64_t h)
{
	return (g << 4 | (h & 15)) * LIVE_FILT_BITS + ((h >> 44) & (LIVE_FILT_BITS - 1));
}
static inline uint64_t live_filter_bit(uint64_t key, uint64_t h)
{
	return live_filter_bit_of(live_group(key), h);
}
/* 0 when key is surely not in the table (the filter is on and its bit
 * clear): a few ns, no lock, no write. */
static inline int live_maybe(uint64_t key)
{
	if (!__atomic_load_n(&live_filter_on, __ATOMIC_ACQUIRE))
		return 1;
	uint64_t b = live_filter_bit(key, hash_mix64(key));
	return (int)(__atomic_load_n(&live_filt[b >> 6], __ATOMIC_ACQUIRE) >> (b & 63)) & 1;
}
/* Empties the table and its filter (a re-injection: epoch.c). */
void live_clear(void);
/* fork: all shard locks taken in the parent, released in both. */
void live_lock_all(void);
void live_unlock_all(void);
uint64_t live_count(void);

/* ring.c: a thread's slot goes to the ring once it spans this long (and a
 * sweep takes the slots of threads quiet for this long). */
#define RING_STAGE_NS 10000000
/* Appends an event (ptr: the block, for its pairing key). */
void ring_push(seg_header *h, hook_thread *t, uint32_t kind, uint32_t stack, uint64_t size, uint64_t ptr);
/* Publishes the thread's staged events and adds its pending count of
 * overwritten events to the header.  Never from a signal handler that
 * interrupted the hook (busy). */
#define RING_DROP_BATCH 256
void ring_flush(seg_header *h, hook_thread *t);
/* 1 while a recorder reads the ring (its heartbeat rec_beat_ns is recent). */
int ring_recorder_alive(const seg_header *h);
/* Fork child: forgets the thread's staged events and pending count, and
 * the other threads' stages (the parent's). */
void ring_discard(hook_thread *t);
/* A thread's staging buffer (mmap'd, on the list sweeps walk), and its release. */
struct ring_stage *ring_stage_new(void);
void ring_stage_free(struct ring_stage *s);
/* Publishes other threads' staged events older than older_ns (0: all),
 * for the calling thread t (NULL: a thread without a stage); skips a stage
 * whose owner is in it, and does
 * nothing while another sweep runs or without membarrier(2).  Returns the
 * start of the oldest slot other threads still stage (INT64_MAX: none),
 * or -1 when it did nothing: the recorder's bound on what is yet to come. */
int64_t ring_sweep(seg_header *h, hook_thread *t, int64_t older_ns);

/* modules.c: appends modules not yet in the table (dl_iterate_phdr);
 * marks modules gone from the process as unloaded.  Takes the module
 * lock unless try is set and it is busy (signal handlers). */
void modules_scan(seg_header *h, int try);
/* Rescans when the loader's object count changed since the last scan;
 * 1 when it did. */
int modules_check(seg_header *h);
/* The text range of the module holding addr (for the hook's own). */
int modules_self_range(const void *addr, uint64_t *lo, uint64_t *hi);

/* segment_create.c: creates and maps /dev/shm/mprof-<pid> (0600) with the
 * given capacities; *seg_size gets its size.  NULL after saying why. */
seg_header *hook_seg_create(uint64_t stacks, uint64_t frames, uint64_t ring, uint64_t mods, uint64_t lanes,
			    uint64_t lcap, uint32_t max_depth, size_t page_size, uint64_t *seg_size);
/* A forked child's own segment holding what the parent recorded (the
 * parent's lanes folded into the shared one), running; NULL after saying why. */
seg_header *hook_seg_clone(seg_header *old, uint32_t max_depth, size_t page_size, uint64_t *seg_size);
/* say.c: "mprof: a b c" on stderr, one write; to syslog (/dev/log) when
 * stderr is closed or no longer the file it was at say_init (start). */
void hook_say(const char *a, const char *b, const char *c);
void say_init(void);
/* hook_start.c: the setting name by attach/shared/settings.h's one rule
 * (a decimal number in [lo, hi]; else def, a bad value said through
 * hook_settings_warn, which says settings_num's line through hook_say). */
uint64_t hook_env_num(const char *name, uint64_t def, uint64_t lo, uint64_t hi);
void hook_settings_warn(const char *line);

/* peak.c: folds the thread's peak_delta into the segment's total in use,
 * copying every stack's counters when that passes the mark (segment.h);
 * peak_reset starts afresh (a re-injection). */
void peak_fold(seg_header *h);
void peak_reset(seg_header *h);

/* arena.c: blocks handed out before the next allocator is known. */
#define HOOK_ARENA_SIZE (1 << 16)
extern char hook_arena[HOOK_ARENA_SIZE];
void *hook_arena_alloc(size_t n, size_t align);
/* The size a block of the arena was asked with. */
size_t hook_arena_size(const void *p);
static inline int hook_in_arena(const void *p)
{
	/* One unsigned compare: below the arena wraps to far above it. */
	return (uintptr_t)p - (uintptr_t)hook_arena < HOOK_ARENA_SIZE;
}

/* dumpname.c: the program's name for dump names; returns 1 when the
 * parent process records too (this one was exec'd by it). */
int dumpname_init(void);
/* The dump's path from MPROF_OUT's pattern; other: a process the user did
 * not start (forked, or exec'd by a recording process); seq: SIGUSR2's. */
void dumpname_path(char *dst, size_t cap, const char *pattern, int other, unsigned seq);
/* A triggered dump's path: ".trigger-N" before the extension (out.trigger-1.pro). */
void dumpname_trigger(char *dst, size_t cap, const char *pattern, int other, unsigned n);
/* Blanks libmprof out of LD_PRELOAD (MPROF_FOLLOW=0). */
void dumpname_unfollow(void);

/* dumps.c: when dumps are written (exit, SIGUSR2, a fatal signal).
 * dumps_init reads MPROF_OUT, MPROF_FORMAT, MPROF_FORKS, MPROF_FOLLOW;
 * dumps_arm installs the handlers once the segment exists (late: injected);
 * dumps_forked: this is a forked child now. */
void dumps_init(void);
void dumps_arm(int late);
void dumps_forked(void);
/* The n-th triggered dump's path under pattern (NULL: MPROF_OUT's); -1
 * when there is no pattern.  dumps_write writes h there (modules
 * rescanned), saying why on failure; 0 or the errno. */
int dumps_trigger_path(char *dst, size_t cap, const char *pattern, unsigned n);
int dumps_write(seg_header *h, const char *path, int try);
/* dumpon.c: MPROF_DUMP_ON read at start (after dumps_init; its thread
 * starts once the segment exists: dumpon_start); dumpon_forked: a forked
 * child runs no trigger. */
void dumpon_start(seg_header *h);
void dumpon_forked(void);
/* loadhow.c: 1 when the hook was dlopened into a running program
 * (mprof-tui --inject), 0 when it came with the program (LD_PRELOAD). */
int hook_loaded_late(void);
/* hook_start.c: the calling thread enters the hook, publishing its staged events
 * unless it was inside already; leave runs the frees parked meanwhile
 * unless in a signal handler. */
void hook_self_enter(void);
void hook_self_leave(int run_deferred);

/* dump.c: writes a profile of h to path in the format (0 native, 1 v1)
 * through a new temporary renamed over path (core/atomicfile.h); 0, or the
 * errno of what failed.  Allocation-free: works from a signal handler. */
int dump_write(seg_header *h, const char *path, int v1);

/* sample.c: MPROF_SAMPLE and the segment's seg_sample requests.
 * sample_rate is the rate in effect (0 every allocation, SEG_SAMPLE_OFF
 * none); sample_seqp the request counter a thread compares with its own
 * each time its countdown's slice runs out.  sample_init at start (the segment h, MPROF_SAMPLE);
 * sample_attach when the segment changes (a forked child's). */
extern uint64_t sample_rate;
extern const uint64_t *sample_seqp;
extern int sample_ever;
void sample_init(seg_header *h, uint64_t rate);
void sample_attach(seg_header *h);
/* The slow path of the countdown, the thread's count already lowered by n
 * (or a new request): 1 when the allocation is to be recorded, at the
 * thread's sample_mean. */
int sample_take(hook_thread *t, uint64_t n);
/* The rate of an index live.c keeps (0: every allocation, weight 1). */
uint64_t sample_rate_of(uint32_t ridx);
/* fork: no rate change half done in the child. */
void sample_lock(void);
void sample_unlock(void);

/* record_hook.c: MPROF_RECORD=DIR, a writer thread draining the ring into
 * files. record_start at init (0 or -1 after saying why); record_stop at
 * exit drains what is left and closes the file (only in the process that
 * started it). hook_quiet makes the calling thread's allocations pass
 * through unrecorded (the writer's own). */
int record_start(seg_header *h, const char *dir);
void record_stop(void);
void hook_quiet(void);

/* The entry points the hook takes over (hook.c, hook_ext.c).  real is the
 * definition the program's own symbol lookup reaches without the hook: under
 * LD_PRELOAD the next one (RTLD_NEXT), when the program's lookup does not
 * reach the hook (injected, an executable that defines malloc, or a name the
 * hook does not export such as mallocx and tc_malloc) the global one
 * (RTLD_DEFAULT).  got marks the entries whose calls reach the hook only
 * through patched GOT slots (got.c).  Resolved once at start; an entry still
 * unresolved (a C++ runtime loaded later) is looked up on first use. */
typedef struct hook_fn {
	const char *name;
	void *wrapper;     /* the hook's function (a hidden alias) */
	int exported;      /* libmprof.so defines the name for interposition */
	void *real;
	int got;
} hook_fn;
/* Indices of the C entry points in hook_fns (hook.c keeps these first). */
enum { HF_MALLOC, HF_FREE, HF_CALLOC, HF_REALLOC, HF_REALLOCARRAY, HF_POSIX_MEMALIGN, HF_ALIGNED_ALLOC,
       HF_MEMALIGN, HF_VALLOC, HF_PVALLOC, HF_USABLE, HF_CFREE, HF_C_COUNT };
/* hook_ext.c: the C++ operators and the allocators' own extensions. */
extern hook_fn hook_ext_fns[];
/* Every entry point: hook.c's C family, then hook_ext_fns (NULL name ends each). */
extern hook_fn hook_c_fns[];
/* Resolves e->real (and e->got) as described above. */
void hook_fn_resolve(hook_fn *e);
/* Resolves both tables; 1 when some entry is reached through GOT slots only. */
int hook_fn_resolve_all(void);
/* fn when it is defined by the module that defines malloc_fn, else NULL: an
 * aligned allocator found elsewhere would hand out blocks malloc's provider
 * cannot free (posix_memalign is used instead). */
void *hook_fn_same_provider(void *fn, void *malloc_fn);
/* e->real, resolving it on first use; NULL when nothing defines the name. */
void *hook_fn_real(hook_fn *e);

/* hook_record.c's recording, for hook_ext.c and entry_wrap.c. hook_begin: 1 when
 * this call is to be recorded, its blocks under the live-table key bits
 * key (the thread is then busy until hook_end); 0 to pass straight
 * through, and a call nested in a recorded one notes key's allocator as
 * the one it reached (hook_reached: its tag + 1, 0 none).  hook_rekey
 * changes the key bits of the call being recorded. */
int hook_begin(uint64_t key);
void hook_end(void);
uint32_t hook_reached(void);
void hook_rekey(uint64_t key);
/* Records the block p of n bytes allocated by the call whose frame is fa. */
void hook_note_alloc(void *p, size_t n, uint64_t fa);
/* Takes p out of the live table (before the allocator frees it); 1 when
 * it was there. */
int hook_note_free(void *p);
/* A resize (realloc, rallocx): p's record is taken out before the call
 * (once p is freed another thread may be handed its address), and after it
 * either put back (failed: p is still the caller's) or counted freed, with
 * q's added (q may equal p; NULL adds nothing). */
typedef struct hook_resize {
	void *p;
	uint64_t key;      /* the key bits p was kept under */
	uint32_t id;
	uint64_t old;
	int known;
	int win;           /* allocated in the open heap window */
	uint32_t ridx;     /* the index of the rate p was recorded at */
} hook_resize_t;
hook_resize_t hook_resize_begin(void *p);
void hook_resize_end(hook_resize_t *r, void *q, size_t n, int failed, uint64_t fa);
/* hook_defer.c: a free that arrives while the thread is inside the hook (a signal
 * handler): 1 when parked (freed later by real_free), 0 to free now. */
int hook_defer_free(void *p);

/* got.c: the program's calls reach the hook through its GOT slots where
 * interposition does not (the hook was dlopened into a running program, or
 * the names are not exported).  Every module but the hook, libc, the
 * loader, the vdso and the allocator that provides malloc is patched, and
 * again when modules are loaded later; the old value of each slot is kept
 * so mprof_detach puts it back. */
/* 1 when the program's malloc is not the hook's: its calls reach the hook
 * through GOT slots only (the hook was loaded late, or the executable
 * defines malloc).  Not how the hook was loaded: loadhow.c says that. */
int got_slots_only(void);
/* Patches every loaded module's slots not yet patched; returns how many.
 * with_dlopen: dlopen's slots too, so modules it loads are patched. */
int got_patch_all(int with_dlopen);
/* Puts every patched slot back; returns how many. */
int got_restore_all(void);
/* 1 when p is one of the hook's entry points. */
int target_of_ptr(const void *p);

/* epoch.c: mprof_detach calls epoch_detached once the program's calls go
 * to its allocator again (staged events into the ring); mprof_attach calls
 * epoch_begin before they reach the hook again, with no thread inside it:
 * the live table, the counters and the totals start afresh (attach_ns). */
void epoch_detached(seg_header *h);
void epoch_begin(seg_header *h);

/* ---- allocators that symbol interposition does not reach ---------------- */

/* entry_wrap.c: ENTRY_MAX wrappers, entry_wrappers[i] serving entry_fns[i].
 * An allocator's blocks are kept in the live table under key = its tag <<
 * ENTRY_TAG_SHIFT (tag 0: the program's malloc, whichever way it is reached). */
#define ENTRY_MAX 128
#define ENTRY_TAG_SHIFT 56
#define ENTRY_QUIET (1ull << 55)   /* in a key: a free that misses is not an unknown free (yet) */
typedef struct entry_alloc {
	uint64_t key;
	int user;           /* MPROF_FUNCS: each function takes the tag of the allocator it reaches */
	uint32_t tags;      /* user: the tags its functions took (bit t: tag t) */
} entry_alloc;
typedef struct entry_fn {
	void *real;         /* the trampoline: runs the patched function */
	entry_alloc *alloc;
	unsigned char role, a0, a1;
	uint32_t learned;   /* user: its blocks' tag + 1, once its first allocation told it */
} entry_fn;
extern entry_fn entry_fns[ENTRY_MAX];
extern void *const entry_wrappers[ENTRY_MAX];

/* entry.c: between entry_begin and entry_end (capstone open), entry_prepare
 * decodes fn's prologue, checks the whole function (size bytes) and builds
 * its trampoline near the module's code [mod_lo, mod_hi); the trampoline,
 * or NULL with why.  entry_apply writes the jump, entry_restore the bytes
 * that were there (0, -1 when the bytes are not what they should be). */
int entry_begin(void);
void entry_end(void);
void *entry_prepare(int slot, uint64_t fn, uint64_t size, uint64_t mod_lo, uint64_t mod_hi, int is_exe,
		    void *wrapper, char *why, size_t cap);
int entry_apply(int slot);
int entry_restore(int slot);

/* capmem.c: capstone's memory (an mmap'd arena) for one patching session. */
int capmem_begin(void);
void capmem_end(void);

/* procmaps.c: /proc/self/maps, read without malloc. */
typedef struct procmap {
	uint64_t lo, hi;
	int prot;      /* PROT_* */
	int special;   /* 1 [heap], 2 [stack], 3 another [name], 0 a file or anonymous */
	const char *path;   /* a file's absolute path, "" none (or cut): valid in the callback only */
} procmap;
/* Calls fn on each mapping in address order until it returns nonzero. */
int procmaps_each(int (*fn)(void *arg, const procmap *m), void *arg);
/* The protection of the mapping holding addr, -1 if none. */
int procmaps_prot(uint64_t addr);
/* The absolute path of the file mapped at addr into out; 0, or -1 (none). */
int procmaps_path(uint64_t addr, char *out, size_t len);
int procmaps_exe_path(uint64_t addr, char *out, size_t len);
/* A free page-aligned range of size bytes whose distance to every byte of
 * [lo, hi) is at most reach, the nearest; none at or above no_above (if
 * not 0) nor just below the stack; 0 if there is none. */
uint64_t procmaps_gap(uint64_t lo, uint64_t hi, uint64_t size, uint64_t reach, uint64_t no_above);

/* allocators.c: at start (segment h made), finds the allocators, patches
 * them and fills the segment's allocator table; mprof_detach puts their
 * bytes back (allocators_restore), mprof_attach patches again.  Each
 * returns the functions it changed. */
int allocators_start(seg_header *h);
int allocators_restore(void);
int allocators_repatch(void);

/* dumps_finish: the last dump and the segment's removal, once (exit,
 * _exit, a fatal signal: in_signal). */
void dumps_finish(int in_signal);
/* fatalsig.c: stands in for the default action of the fatal signals the
 * program leaves at it (dumps_finish, then dies of the signal). */
void fatalsig_arm(int late);
struct sigaction;
extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* procfns.c: the process calls wrapped beside the allocator (exit, set*id,
 * signal dispositions), for got.c to patch when injected; procfns_seg_made
 * notes the segment file just made (fd), the one set*id hands over. */
extern hook_fn hook_proc_fns[];
void procfns_seg_made(int fd);
/* A hidden alias of an exported wrapper: inside the hook the exported name
 * may resolve to another library's definition. */
#define HOOK_GOT_ALIAS(fn) extern __typeof(fn) got_##fn __attribute__((alias(#fn), copy(fn), visibility("hidden")));

#endif
