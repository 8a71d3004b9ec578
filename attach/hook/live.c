/* live.c - the live-pointer table: ptr -> (stack, size) for every block the
 * hook saw allocated, so each free is charged to its allocating stack.
 * 256 shards, each an open-addressing table of buckets (a cache line of
 * four entries; a full bucket spills into the next, counted in the
 * bucket's own line, so a search stops where no entry passed over and a
 * delete moves nothing: a put or take reads one line, where the old
 * linear probing rehashed every entry after a deleted one) under its own
 * spinlock (held for a few loads and stores, never while unwinding).
 * Memory is mmap'd; a shard 5/8 full doubles.
 * A shard is picked by 64 MiB region (16 groups, neighbouring regions in
 * different ones: hook.h) and by pointer hash (16 in a group): blocks of
 * one glibc arena, or one allocator arena, mostly stay in a group, so
 * threads with arenas of their own seldom share a shard's cache lines.
 * Entries are 16 bytes: sizes of 4 GiB - 1 and more are kept apart, in
 * one more table of the same kind keyed by pointer (30 bits of the size
 * in a, the rest in b, so bit 30 of a is free there too).
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

#define unlikely(x) __builtin_expect(!!(x), 0)
#define likely(x) __builtin_expect(!!(x), 1)

#define SHARDS LIVE_SHARDS
#define WAYS 4                /* entries in a bucket: one cache line */
#define SHARD_INIT_B 16       /* buckets of a shard's first table */
#define BIG_SIZE UINT32_MAX   /* in live_ent.size: look in the big table */
#define LIVE_WIN 0x80000000u  /* in live_ent.a: allocated while the window was open */
#define LIVE_SPILL 0x40000000u /* in each a: a bit of its bucket's overflow count */
#define SPILL_MAX 15          /* the count's four bits: it sticks there */
#define BIG_LOW 30            /* the big table's a: a size's low 30 bits, b the rest */

typedef struct live_ent {
	uint64_t ptr;      /* the key, with the rate index bits; 0: empty */
	uint32_t a, b;     /* stack and size; in the big table, the size's parts */
} live_ent;

typedef struct bucket {
	live_ent e[WAYS];
} __attribute__((aligned(64))) bucket;

typedef struct shard {
	int lock;
	uint32_t pad;
	uint64_t seen;     /* the window word (segment.h) whose marks the entries carry */
	bucket *tab;       /* mask + 1 buckets */
	uint64_t mask, used;
	uint64_t limit;    /* used at which it grows */
	char line_pad[16];
} shard;

static shard shards[SHARDS] __attribute__((aligned(64)));
static shard big __attribute__((aligned(64)));

uint64_t live_filt[LIVE_SHARDS * LIVE_FILT_BITS / 64] __attribute__((aligned(64)));
int live_filter_on;
static uint8_t filt_cnt[LIVE_SHARDS * LIVE_FILT_BITS];   /* entries per bit, 255 sticks */
static int filt_dirty;   /* some bit was ever set: clear the filter before a recount */

static inline uint64_t key_of(uint64_t stored)
{
	return stored & ~LIVE_RIDX_MASK;
}

/* A bucket's overflow count: entries whose home lies before it and that
 * passed over it, full, to a later one; kept in its own line, one bit in
 * each entry's a (stack ids stay below 2^30), so a search stops at the
 * first bucket whose count is 0 without reading more.  No tombstones, and
 * a delete moves nothing. */
static inline int spilled(const live_ent *x)
{
	return ((x[0].a | x[1].a | x[2].a | x[3].a) & LIVE_SPILL) != 0;
}

static inline unsigned spill_count(const live_ent *x)
{
	unsigned c = 0;
	for (int k = 0; k < WAYS; k++)
		c |= (x[k].a & LIVE_SPILL ? 1u : 0u) << k;
	return c;
}

static inline void spill_set(live_ent *x, unsigned c)
{
	for (int k = 0; k < WAYS; k++)
		x[k].a = (x[k].a & ~LIVE_SPILL) | (c >> k & 1 ? LIVE_SPILL : 0);
}

static inline size_t tab_bytes(uint64_t nb)
{
	return (size_t)nb * sizeof(bucket);
}

static inline uint64_t home_of(uint64_t h, uint64_t mask)
{
	return (h >> 8) & mask;
}

/* Grown at 5/8 full: most keys then lie in their home bucket, and a put
 * seldom finds it full (at 3/4 two puts in five went on to the next). */
static inline uint64_t limit_of(uint64_t mask)
{
	return (mask + 1) * WAYS * 5 / 8;
}

/* The index of key's entry in the bucket x, WAYS if none there (an empty
 * entry's key is 0, never a block's). */
static inline int bucket_find(const live_ent *x, uint64_t key)
{
	const uint64_t m = ~LIVE_RIDX_MASK;
	return !((x[0].ptr ^ key) & m) ? 0 : !((x[1].ptr ^ key) & m) ? 1 : !((x[2].ptr ^ key) & m) ? 2
		: !((x[3].ptr ^ key) & m) ? 3 : WAYS;
}

/* The index of the first empty entry of the bucket x, WAYS if it is full. */
static inline int bucket_room(const live_ent *x)
{
	return !x[0].ptr ? 0 : !x[1].ptr ? 1 : !x[2].ptr ? 2 : !x[3].ptr ? 3 : WAYS;
}

/* Entry k of bucket x becomes e, its bit of the overflow count kept. */
static inline void ent_set(live_ent *x, int k, live_ent e)
{
	e.a = (e.a & ~LIVE_SPILL) | (x[k].a & LIVE_SPILL);
	x[k] = e;
}

/* Entry k of bucket x, without its bit of the overflow count. */
static inline live_ent ent_get(const live_ent *x, int k)
{
	live_ent e = x[k];
	e.a &= ~LIVE_SPILL;
	return e;
}

/* Called with s's lock held: one more (d = 1) or one less (-1) entry on the bit of key. */
static __attribute__((noinline)) void filt_count(uint64_t key, uint64_t h, int d)
{
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

static inline void filt_add(uint64_t key, uint64_t h, int d)
{
	if (__atomic_load_n(&live_filter_on, __ATOMIC_RELAXED))
		filt_count(key, h, d);
}

/* The lock is held by another thread: spin, then yield, until it is ours. */
static __attribute__((noinline)) void shard_lock_wait(shard *s)
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

static inline void shard_lock(shard *s)
{
	if (unlikely(__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE)))
		shard_lock_wait(s);
}

static inline void shard_unlock(shard *s)
{
	__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
}

/* Every shard's first table, in one mapping (one mmap at start, not 257);
 * a shard that grows leaves its slice there. */
static char *first_tabs;
#define FIRST_SLICE ((tab_bytes(SHARD_INIT_B) + 63) & ~(size_t)63)

static void shard_init(shard *s, char *mem)
{
	s->tab = (bucket *)(void *)mem;
	s->mask = SHARD_INIT_B - 1;
	s->limit = limit_of(s->mask);
}

int live_init(void)
{
	first_tabs = hook_map((SHARDS + 1) * FIRST_SLICE);
	if (!first_tabs)
		return -1;
	for (int i = 0; i < SHARDS; i++)
		shard_init(&shards[i], first_tabs + (size_t)i * FIRST_SLICE);
	shard_init(&big, first_tabs + (size_t)SHARDS * FIRST_SLICE);
	return 0;
}

/* The entry of key in s (whose hash of it is h), or NULL; *at gets the
 * bucket it is in. */
static live_ent *slot_find(shard *s, uint64_t h, uint64_t key, uint64_t *at)
{
	bucket *tab = s->tab;
	uint64_t mask = s->mask, b = home_of(h, mask);
	for (uint64_t n = 0;; n++) {
		int k = bucket_find(tab[b].e, key);
		if (k < WAYS) {
			*at = b;
			return &tab[b].e[k];
		}
		if (!spilled(tab[b].e) || n == mask)
			return NULL;
		b = (b + 1) & mask;
	}
}

/* Puts e in the first free entry from its home bucket on, counting the
 * full buckets it passes over (there is one: the load stays below 1). */
static void slot_insert(bucket *tab, uint64_t mask, uint64_t h, live_ent e)
{
	for (uint64_t b = home_of(h, mask);; b = (b + 1) & mask) {
		int k = bucket_room(tab[b].e);
		if (k < WAYS) {
			ent_set(tab[b].e, k, e);
			return;
		}
		unsigned c = spill_count(tab[b].e);
		if (c < SPILL_MAX)
			spill_set(tab[b].e, c + 1);
	}
}

/* Empties the entry x found in bucket at, uncounting it from the buckets
 * it passed over. */
static void slot_remove(shard *s, uint64_t h, live_ent *x, uint64_t at)
{
	uint64_t mask = s->mask;
	x->ptr = 0;
	for (uint64_t b = home_of(h, mask); b != at; b = (b + 1) & mask) {
		unsigned c = spill_count(s->tab[b].e);
		if (c < SPILL_MAX)
			spill_set(s->tab[b].e, c - 1);
	}
}

static int shard_grow(shard *s)
{
	uint64_t n = (s->mask + 1) * 2;
	bucket *t = hook_map(tab_bytes(n));
	if (!t)
		return -1;
	for (uint64_t i = 0; i <= s->mask; i++)
		for (int k = 0; k < WAYS; k++)
			if (s->tab[i].e[k].ptr)
				slot_insert(t, n - 1, hash_mix64(key_of(s->tab[i].e[k].ptr)), ent_get(s->tab[i].e, k));
	char *old = (char *)s->tab;
	if (old < first_tabs || old >= first_tabs + (SHARDS + 1) * FIRST_SLICE)
		hook_unmap(old, tab_bytes(s->mask + 1));
	s->tab = t;
	s->mask = n - 1;
	s->limit = limit_of(s->mask);
	return 0;
}

/* The window word (gen << 1 | open), read under a shard's lock. */
static inline uint64_t win_word(void)
{
	seg_header *h = hook_seg;
	return h ? __atomic_load_n(&h->win_state, __ATOMIC_ACQUIRE) : 0;
}

/* Under s's lock: the window word; marks of an earlier window are cleared
 * before s serves a later one (a walk of the shard, once per window). */
static uint64_t shard_window(shard *s)
{
	uint64_t w = win_word();
	if (s->seen >> 1 != w >> 1)
		for (uint64_t i = 0; i <= s->mask; i++)
			for (int k = 0; k < WAYS; k++)
				s->tab[i].e[k].a &= ~LIVE_WIN;
	s->seen = w;
	return w;
}

/* Under s's lock, w the window word: 1 when a put or take in s needs no
 * more than its key's home bucket (live_put and live_take's own paths):
 * no window open nor a new one to clear marks for, no filter to count. */
static inline int shard_plain(const shard *s, uint64_t w)
{
	return w == s->seen && !(w & SEG_WIN_OPEN) && !__atomic_load_n(&live_filter_on, __ATOMIC_RELAXED);
}

/* Under s's lock: puts e into s (whose hash of its key is h), replacing an
 * entry with the same key (its free went unseen).  mark: LIVE_PLAIN,
 * LIVE_NEW (marked when the window is open), or -1 for the big table (no
 * marks, no filter: its keys are in a shard too).  -1 full, else 1 when
 * marked. */
static __attribute__((noinline)) int shard_put(shard *s, uint64_t h, live_ent e, int mark)
{
	uint64_t key = key_of(e.ptr), at;
	if (s->used >= s->limit && shard_grow(s))
		return -1;
	int marked = 0;
	if (mark >= 0 && (shard_window(s) & SEG_WIN_OPEN) && mark == LIVE_NEW) {
		e.a |= LIVE_WIN;
		marked = 1;
	}
	live_ent *x = slot_find(s, h, key, &at);
	if (x) {
		ent_set(x, 0, e);   /* x is the entry itself */
		return marked;
	}
	slot_insert(s->tab, s->mask, h, e);
	s->used++;
	if (mark >= 0)
		filt_add(key, h, 1);
	return marked;
}

/* Under s's lock: removes key from s into *out; 1 if it was there.  win
 * (NULL for the big table, which keeps no marks and no filter) is set
 * when the entry was put in during the window still open. */
static __attribute__((noinline)) int shard_take(shard *s, uint64_t h, uint64_t key, live_ent *out, int *win)
{
	if (win)
		*win = (int)(shard_window(s) & SEG_WIN_OPEN);
	uint64_t at;
	live_ent *x = slot_find(s, h, key, &at);
	if (!x)
		return 0;
	*out = ent_get(x, 0);
	slot_remove(s, h, x, at);
	s->used--;
	if (win) {
		*win &= (out->a & LIVE_WIN) != 0;
		out->a &= ~LIVE_WIN;
		filt_add(key, h, -1);
	}
	return 1;
}

/* The shard of key (hash h): its 64 MiB region's group remembered from
 * the thread's last call (one word, so a signal handler's call reads a
 * region with its own group). */
static HOOK_TLS __thread uint64_t group_memo;   /* region << 4 | group; 0: region 0, group 0 */

static inline shard *shard_of(uint64_t key, uint64_t h)
{
	uint64_t m = group_memo, g;
	if (likely(m >> 4 == key >> 26)) {
		g = m & 15;
	} else {
		g = live_group(key);
		group_memo = (key >> 26) << 4 | g;
	}
	return &shards[g << 4 | (h & 15)];
}

/* A block of 4 GiB - 1 or more: its size in the big table, the rest as any block's. */
static __attribute__((noinline)) int put_big(uint64_t key, uint64_t h, live_ent e, uint64_t size, int mark)
{
	live_ent be = { .ptr = key, .a = (uint32_t)(size & ((1u << BIG_LOW) - 1)), .b = (uint32_t)(size >> BIG_LOW) };
	shard_lock(&big);
	int r = shard_put(&big, h, be, -1);
	shard_unlock(&big);
	if (r < 0)
		return -1;
	shard *s = shard_of(key, h);
	shard_lock(s);
	r = shard_put(s, h, e, mark);
	shard_unlock(s);
	return r;
}

static __attribute__((noinline)) void take_big(uint64_t key, uint64_t h, uint64_t *size)
{
	live_ent be;
	shard_lock(&big);
	if (shard_take(&big, h, key, &be, NULL))
		*size = (uint64_t)be.b << BIG_LOW | be.a;
	shard_unlock(&big);
}

int live_put(uint64_t key, uint32_t stack, uint64_t size, uint32_t ridx, int mark)
{
	if (key & LIVE_RIDX_MASK)
		return -1;   /* a pointer at 2^48 or above: no room for the rate */
	uint64_t h = hash_mix64(key);
	live_ent e = { .ptr = key | (uint64_t)ridx << LIVE_RIDX_SHIFT, .a = stack, .b = (uint32_t)size };
	if (unlikely(size >= BIG_SIZE)) {
		e.b = BIG_SIZE;
		return put_big(key, h, e, size, mark);
	}
	shard *s = shard_of(key, h);
	shard_lock(s);
	if (likely(s->used < s->limit && shard_plain(s, win_word()))) {
		/* The home bucket settles it when it holds the key, or has room
		 * and no entry of it went further. */
		live_ent *x = s->tab[home_of(h, s->mask)].e;
		int k = bucket_find(x, key), r = bucket_room(x);
		if (k < WAYS || (r < WAYS && !spilled(x))) {
			s->used += k == WAYS;
			ent_set(x, k < WAYS ? k : r, e);
			shard_unlock(s);
			return 0;
		}
	}
	int r = shard_put(s, h, e, mark);
	shard_unlock(s);
	return r;
}

int live_take(uint64_t key, uint32_t *stack, uint64_t *size, uint32_t *ridx, int *win)
{
	uint64_t h = hash_mix64(key);
	shard *s = shard_of(key, h);
	/* Start the bucket's cache miss before the lock (a racy read is fine
	 * for a prefetch: it never faults). */
	bucket *t0 = __atomic_load_n(&s->tab, __ATOMIC_RELAXED);
	__builtin_prefetch(&t0[home_of(h, __atomic_load_n(&s->mask, __ATOMIC_RELAXED))], 1);
	live_ent e;
	int w0, *wp = win ? win : &w0;
	shard_lock(s);
	live_ent *x = s->tab[home_of(h, s->mask)].e;
	int k = bucket_find(x, key);
	if (likely(k < WAYS && shard_plain(s, win_word()))) {
		/* In its home bucket: no overflow count to undo. */
		e = ent_get(x, k);
		x[k].ptr = 0;
		s->used--;
		shard_unlock(s);
		*wp = 0;
		e.a &= ~LIVE_WIN;   /* a window's mark, the window closed since */
	} else {
		int r = shard_take(s, h, key, &e, wp);
		shard_unlock(s);
		if (!r)
			return 0;
	}
	*stack = e.a;
	*size = e.b;
	*ridx = (uint32_t)((e.ptr & LIVE_RIDX_MASK) >> LIVE_RIDX_SHIFT);
	if (unlikely(e.b == BIG_SIZE))
		take_big(key, h, size);
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
		for (int i = 0; i < SHARDS; i++) {
			live_ent *e = shards[i].tab->e;
			for (uint64_t j = 0; shards[i].used && j < (shards[i].mask + 1) * WAYS; j++)
				if (e[j].ptr) {
					uint64_t k = key_of(e[j].ptr);
					filt_add(k, hash_mix64(k), 1);
				}
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
			memset(s->tab, 0, tab_bytes(s->mask + 1));
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
