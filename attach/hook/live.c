/* live.c - the live-pointer table: ptr -> (stack, size) for every block the
 * hook saw allocated, so each free is charged to its allocating stack.
 * 256 shards, each an open-addressing table with backward-
 * shift deletion under its own spinlock (held for a few loads and stores,
 * never while unwinding).  Memory is mmap'd; a full shard doubles.
 * A shard is picked by 64 MiB region (16 groups, neighbouring regions in
 * different ones: hook.h) and by pointer hash (16 in a group): blocks of
 * one glibc arena, or one allocator arena, mostly stay in a group, so
 * threads with arenas of their own seldom share a shard's cache lines.
 * Entries are 16 bytes, four to a cache line: sizes of 4 GiB - 1 and more
 * are kept apart, in one more table of the same kind keyed by pointer.
 * While a heap window is open (segment.h's win_state) a block put in is
 * marked (LIVE_WIN in its stack field; stack ids stay below 2^30); each
 * shard remembers the window its marks belong to and clears them under its
 * lock the first time it is used in a later one, so a mark always means
 * "allocated in the current window" without a stop of the whole table.
 *
 * An entry's key holds the index of the sampling rate it was recorded at
 * in bits LIVE_RIDX_SHIFT.. (pointers stay below 2^47), so its free takes
 * off exactly the weight its allocation added, whatever the rate is now.
 *
 * The filter: while sampling, most blocks are never in the table, and a
 * free must not pay a lock and a cache miss to learn that.  Each shard owns
 * 1024 bits of live_filt (32 KiB in all, read without a lock, stays in
 * cache): a bit is set while some entry of the shard hashes to it (a count
 * per bit, saturating, kept under the shard's lock).  A clear bit means
 * "not here"; a set one sends the free to the table.  The filter is kept
 * only while live_filter_on (sampling: full capture looks every free up
 * anyway); turning it on recounts it under every lock. */
#include "attach/hook/hook.h"
#include "core/hash.h"

#include <sched.h>
#include <string.h>

#define SHARDS LIVE_SHARDS
#define SHARD_INIT 64
#define BIG_SIZE UINT32_MAX   /* in live_ent.size: look in the big table */
#define LIVE_WIN 0x80000000u  /* in live_ent.a: allocated while the window was open */

typedef struct live_ent {
	uint64_t ptr;      /* the key, with the rate index bits; 0: empty */
	uint32_t a, b;     /* stack and size; in the big table, the size's halves */
} live_ent;

typedef struct shard {
	int lock;
	uint32_t gen;      /* the window whose marks the entries carry */
	live_ent *tab;
	uint64_t mask, used;
	char line_pad[32];
} shard;

static shard shards[SHARDS] __attribute__((aligned(64)));
static shard big __attribute__((aligned(64)));

uint64_t live_filt[LIVE_SHARDS * LIVE_FILT_BITS / 64] __attribute__((aligned(64)));
int live_filter_on;
static uint8_t filt_cnt[LIVE_SHARDS * LIVE_FILT_BITS];   /* entries per bit, 255 sticks */
static int filt_dirty;   /* some bit was ever set: clear the filter before a recount */

static inline shard *shard_of(uint64_t ptr, uint64_t h)
{
	return &shards[live_shard_index(ptr, h)];
}

static inline uint64_t key_of(uint64_t stored)
{
	return stored & ~LIVE_RIDX_MASK;
}

/* Called with s's lock held: one more (d = 1) or one less (-1) entry on the bit of key. */
static void filt_add(uint64_t key, uint64_t h, int d)
{
	if (!__atomic_load_n(&live_filter_on, __ATOMIC_RELAXED))
		return;
	uint64_t b = live_filter_bit(key, h);
	uint8_t c = filt_cnt[b];
	if (c == 255 || (c == 0 && d < 0))
		return;   /* saturated: the bit stays set */
	filt_cnt[b] = (uint8_t)(c + d);
	filt_dirty = 1;
	uint64_t *w = &live_filt[b >> 6], m = 1ull << (b & 63);
	if (c + d == 0)
		__atomic_store_n(w, __atomic_load_n(w, __ATOMIC_RELAXED) & ~m, __ATOMIC_RELAXED);
	else if (c == 0)
		__atomic_store_n(w, __atomic_load_n(w, __ATOMIC_RELAXED) | m, __ATOMIC_RELEASE);
}

static inline void shard_lock(shard *s)
{
	for (int spins = 0; __atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE); spins++) {
		while (__atomic_load_n(&s->lock, __ATOMIC_RELAXED)) {
			if (++spins > 100)
				sched_yield();
			else
				__builtin_ia32_pause();
		}
	}
}

static inline void shard_unlock(shard *s)
{
	__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
}

/* Every shard's first table, in one mapping (one mmap at start, not 257);
 * a shard that grows leaves its slice there. */
static live_ent *first_tabs;

static void shard_init(shard *s, live_ent *tab)
{
	s->tab = tab;
	s->mask = SHARD_INIT - 1;
}

int live_init(void)
{
	first_tabs = hook_map((SHARDS + 1) * SHARD_INIT * sizeof(live_ent));
	if (!first_tabs)
		return -1;
	for (int i = 0; i < SHARDS; i++)
		shard_init(&shards[i], first_tabs + (size_t)i * SHARD_INIT);
	shard_init(&big, first_tabs + (size_t)SHARDS * SHARD_INIT);
	return 0;
}

static void slot_insert(live_ent *tab, uint64_t mask, const live_ent *e)
{
	uint64_t i = (hash_mix64(key_of(e->ptr)) >> 8) & mask;
	while (tab[i].ptr)
		i = (i + 1) & mask;
	tab[i] = *e;
}

static int shard_grow(shard *s)
{
	uint64_t n = (s->mask + 1) * 2;
	live_ent *t = hook_map(n * sizeof(live_ent));
	if (!t)
		return -1;
	for (uint64_t i = 0; i <= s->mask; i++)
		if (s->tab[i].ptr)
			slot_insert(t, n - 1, &s->tab[i]);
	if (s->tab < first_tabs || s->tab >= first_tabs + (SHARDS + 1) * SHARD_INIT)
		hook_unmap(s->tab, (s->mask + 1) * sizeof(live_ent));
	s->tab = t;
	s->mask = n - 1;
	return 0;
}

/* The window word (gen << 1 | open), read under a shard's lock. */
static inline uint64_t win_word(void)
{
	seg_header *h = hook_seg;
	return h ? __atomic_load_n(&h->win_state, __ATOMIC_ACQUIRE) : 0;
}

/* Under s's lock: marks of an earlier window are cleared before s serves
 * window w (a walk of the shard, once per window). */
static void shard_regen(shard *s, uint64_t w)
{
	uint32_t g = (uint32_t)(w >> 1);
	if (s->gen == g)
		return;
	for (uint64_t i = 0; i <= s->mask; i++)
		s->tab[i].a &= ~LIVE_WIN;
	s->gen = g;
}

/* Puts e into s (whose hash of its key is h), replacing an entry with the
 * same key (its free went unseen).  mark: LIVE_PLAIN, LIVE_NEW (marked
 * when the window is open), or -1 for the big table (no marks, no filter:
 * its keys are in a shard too).  Takes the shard's lock.  -1 full, else 1
 * when marked. */
static int shard_put(shard *s, uint64_t h, live_ent *e, int mark)
{
	uint64_t key = key_of(e->ptr);
	shard_lock(s);
	if ((s->used + 1) * 4 > (s->mask + 1) * 3 && shard_grow(s)) {
		shard_unlock(s);
		return -1;
	}
	int marked = 0;
	if (mark >= 0) {
		uint64_t w = win_word();
		shard_regen(s, w);
		if (mark == LIVE_NEW && (w & SEG_WIN_OPEN)) {
			e->a |= LIVE_WIN;
			marked = 1;
		}
	}
	uint64_t i = (h >> 8) & s->mask;
	while (s->tab[i].ptr && key_of(s->tab[i].ptr) != key)
		i = (i + 1) & s->mask;
	if (!s->tab[i].ptr) {
		s->used++;
		if (mark >= 0)
			filt_add(key, h, 1);
	}
	s->tab[i] = *e;
	shard_unlock(s);
	return marked;
}

/* Removes key from s into *out; 1 if it was there.  win (NULL for the big
 * table, which keeps no marks and no filter) is set when the entry was put
 * in during the window still open. */
static int shard_take(shard *s, uint64_t h, uint64_t key, live_ent *out, int *win)
{
	/* Start the slot's cache miss before the lock (a racy read is fine
	 * for a prefetch: it never faults). */
	live_ent *t0 = __atomic_load_n(&s->tab, __ATOMIC_RELAXED);
	__builtin_prefetch(&t0[(h >> 8) & __atomic_load_n(&s->mask, __ATOMIC_RELAXED)], 1);
	shard_lock(s);
	if (win) {
		uint64_t w = win_word();
		shard_regen(s, w);
		*win = (int)(w & SEG_WIN_OPEN);
	}
	uint64_t mask = s->mask, i = (h >> 8) & mask;
	live_ent *tab = s->tab;
	while (tab[i].ptr && key_of(tab[i].ptr) != key)
		i = (i + 1) & mask;
	if (!tab[i].ptr) {
		shard_unlock(s);
		return 0;
	}
	*out = tab[i];
	if (win) {
		*win &= (out->a & LIVE_WIN) != 0;
		out->a &= ~LIVE_WIN;
		filt_add(key, h, -1);
	}
	/* Backward-shift deletion keeps probe chains intact without tombstones. */
	uint64_t j = i;
	for (;;) {
		tab[i].ptr = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (!tab[j].ptr)
				goto done;
			uint64_t home = (hash_mix64(key_of(tab[j].ptr)) >> 8) & mask;
			/* Move j to i unless its home lies cyclically in (i, j]. */
			if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
				break;
		}
		tab[i] = tab[j];
		i = j;
	}
done:
	s->used--;
	shard_unlock(s);
	return 1;
}

int live_put(uint64_t key, uint32_t stack, uint64_t size, uint32_t ridx, int mark)
{
	if (key & LIVE_RIDX_MASK)
		return -1;   /* a pointer at 2^48 or above: no room for the rate */
	uint64_t h = hash_mix64(key);
	live_ent e = { .ptr = key | (uint64_t)ridx << LIVE_RIDX_SHIFT, .a = stack,
		       .b = size < BIG_SIZE ? (uint32_t)size : BIG_SIZE };
	if (size >= BIG_SIZE) {
		live_ent be = { .ptr = key, .a = (uint32_t)size, .b = (uint32_t)(size >> 32) };
		if (shard_put(&big, h, &be, -1) < 0)
			return -1;
	}
	return shard_put(shard_of(key, h), h, &e, mark);
}

int live_take(uint64_t key, uint32_t *stack, uint64_t *size, uint32_t *ridx, int *win)
{
	uint64_t h = hash_mix64(key);
	live_ent e;
	int w0;
	if (!shard_take(shard_of(key, h), h, key, &e, win ? win : &w0))
		return 0;
	*stack = e.a;
	*size = e.b;
	*ridx = (uint32_t)((e.ptr & LIVE_RIDX_MASK) >> LIVE_RIDX_SHIFT);
	if (e.b == BIG_SIZE) {
		live_ent be;
		if (shard_take(&big, h, key, &be, NULL))
			*size = (uint64_t)be.b << 32 | be.a;
	}
	return 1;
}

void live_filter(int on)
{
	live_lock_all();
	if (on && !live_filter_on) {
		if (filt_dirty) {   /* untouched, the pages need not be faulted in */
			memset(live_filt, 0, sizeof(live_filt));
			memset(filt_cnt, 0, sizeof(filt_cnt));
			filt_dirty = 0;
		}
		__atomic_store_n(&live_filter_on, 1, __ATOMIC_RELAXED);   /* filt_add counts from here */
		for (int i = 0; i < SHARDS; i++)
			for (uint64_t j = 0; shards[i].used && j <= shards[i].mask; j++)
				if (shards[i].tab[j].ptr) {
					uint64_t k = key_of(shards[i].tab[j].ptr);
					filt_add(k, hash_mix64(k), 1);
				}
	}
	/* Release: a free that sees it on sees the bits counted above. */
	__atomic_store_n(&live_filter_on, on, __ATOMIC_RELEASE);
	live_unlock_all();
}

/* Under every lock: no entry left, the filter's bits and counts cleared
 * (the tables keep their size). */
void live_clear(void)
{
	live_lock_all();
	for (int i = 0; i <= SHARDS; i++) {
		shard *s = i < SHARDS ? &shards[i] : &big;
		if (s->used)
			memset(s->tab, 0, (s->mask + 1) * sizeof(live_ent));
		s->used = 0;
	}
	if (filt_dirty) {
		memset(live_filt, 0, sizeof(live_filt));
		memset(filt_cnt, 0, sizeof(filt_cnt));
		filt_dirty = 0;
	}
	live_unlock_all();
}

void live_lock_all(void)
{
	for (int i = 0; i < SHARDS; i++)
		shard_lock(&shards[i]);
	shard_lock(&big);
}

void live_unlock_all(void)
{
	shard_unlock(&big);
	for (int i = 0; i < SHARDS; i++)
		shard_unlock(&shards[i]);
}

uint64_t live_count(void)
{
	uint64_t n = 0;
	for (int i = 0; i < SHARDS; i++)
		n += __atomic_load_n(&shards[i].used, __ATOMIC_RELAXED);
	return n;
}
