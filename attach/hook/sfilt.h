/* sfilt.h - the first filter free reads while sampling (sfilt.c): a byte per
 * slot, 64 KiB, a slot being the 16-byte granule of an address folded
 * (bits 4-19 xor bits 20-35); a slot's byte counts the sampled blocks in the
 * live table whose addresses fold to it.  A zero byte means "never sampled":
 * free forwards at once, one load and a test where live.c's filter costs a
 * hash.  Private to the hook; on only while sampling and the filter counts
 * every block in the table. */
#ifndef MPROF_SFILT_H
#define MPROF_SFILT_H

#include <stdint.h>

#define SFILT_SLOTS 65536
extern uint8_t sfilt_cnt[SFILT_SLOTS] __attribute__((visibility("hidden")));
extern int sfilt_on __attribute__((visibility("hidden")));

static inline uint64_t sfilt_slot(uint64_t a)
{
	return ((a >> 4) ^ (a >> 20)) & (SFILT_SLOTS - 1);
}

/* 1 when the block at a was surely never sampled (the filter is on and its
 * slot empty); 0: look further. */
static inline int sfilt_miss(uint64_t a)
{
	return __atomic_load_n(&sfilt_on, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&sfilt_cnt[sfilt_slot(a)], __ATOMIC_RELAXED);
}

/* A sampled block at a goes into the live table (before it is put there)
 * or leaves it (after it is taken out); blocks recorded at the rate index 0
 * (every allocation) are never counted. */
void sfilt_add(uint64_t a);
void sfilt_del(uint64_t a);
/* The rate in effect changes (sample.c, under its lock): every allocation
 * (0) puts uncounted blocks into the table, so the filter stays off until
 * sfilt_reset says the table is empty again. */
void sfilt_rate(uint64_t rate);
/* The live table was emptied (a re-injection), rate in effect. */
void sfilt_reset(uint64_t rate);

#endif
