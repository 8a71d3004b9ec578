/* sfilt.c - the filter of sampled blocks that free reads first (sfilt.h).
 * live.c's own filter stays behind it: a slot shared by a sampled block
 * (one in about 65,536 frees of other blocks per sampled block alive) goes
 * on to it and the table.  Counts change by compare-and-swap on the slot's
 * byte, so no lock is held (a fork copies them whole); 255 sticks, the slot
 * then being always set.  A block is counted before it enters the table and
 * uncounted after it leaves: a count is never below the table's, so a zero
 * is always right. */
#include "attach/hook/sfilt.h"

#include <string.h>

uint8_t sfilt_cnt[SFILT_SLOTS] __attribute__((aligned(64)));
int sfilt_on;
static int full_seen;   /* blocks of rate index 0 may be in the table, uncounted */
static int dirty;       /* some count was ever raised */

void sfilt_add(uint64_t a)
{
	uint8_t *c = &sfilt_cnt[sfilt_slot(a)];
	uint8_t v = __atomic_load_n(c, __ATOMIC_RELAXED);
	do {
		if (v == 255)
			return;
	} while (!__atomic_compare_exchange_n(c, &v, (uint8_t)(v + 1), 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	if (!__atomic_load_n(&dirty, __ATOMIC_RELAXED))
		__atomic_store_n(&dirty, 1, __ATOMIC_RELAXED);
}

void sfilt_del(uint64_t a)
{
	uint8_t *c = &sfilt_cnt[sfilt_slot(a)];
	uint8_t v = __atomic_load_n(c, __ATOMIC_RELAXED);
	do {
		if (v == 255 || !v)
			return;
	} while (!__atomic_compare_exchange_n(c, &v, (uint8_t)(v - 1), 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

void sfilt_rate(uint64_t rate)
{
	if (!rate)
		full_seen = 1;
	__atomic_store_n(&sfilt_on, rate && !full_seen, __ATOMIC_RELEASE);
}

void sfilt_reset(uint64_t rate)
{
	__atomic_store_n(&sfilt_on, 0, __ATOMIC_RELEASE);
	if (__atomic_load_n(&dirty, __ATOMIC_RELAXED)) {
		memset(sfilt_cnt, 0, sizeof(sfilt_cnt));
		dirty = 0;
	}
	full_seen = 0;
	sfilt_rate(rate);
}
