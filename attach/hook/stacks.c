/* stacks.c - lock-free stack interning in the segment: an append-only table
 * of stacks and an open-addressing hash of ids.  An inserter writes its
 * entry, publishes it (release), then claims a hash slot with a CAS; if it
 * loses the slot to an equal stack it marks its own entry a duplicate. */
#include "attach/hook/hook.h"
#include "core/hash.h"

#include <string.h>

/* A fold of hash_mix64 over the depth and the pcs; never 0. */
static uint64_t stack_hash(const uint64_t *pcs, uint32_t depth)
{
	uint64_t h = hash_mix64(depth);
	for (uint32_t i = 0; i < depth; i++)
		h = hash_mix64(h ^ pcs[i]);
	return h ? h : 1;
}

static int stack_equal(seg_header *h, uint32_t id, uint64_t hash, const uint64_t *pcs, uint32_t depth)
{
	seg_stack *st = (seg_stack *)seg_region(h, SEG_R_STACKS) + id;
	if (st->hash != hash || st->depth != depth)
		return 0;
	const uint64_t *fr = (const uint64_t *)seg_region(h, SEG_R_FRAMES) + st->frame_off;
	return !memcmp(fr, pcs, depth * sizeof(*pcs));
}

/* Finds hash in HASH starting at its home slot; inserts id+1 into the
 * first empty slot if id != UINT32_MAX.  Returns the equal stack's id, id
 * itself when it was inserted, or UINT32_MAX (absent / table full). */
static uint32_t hash_probe(seg_header *h, uint64_t hash, const uint64_t *pcs, uint32_t depth, uint32_t id)
{
	uint32_t *slots = seg_region(h, SEG_R_HASH);
	uint64_t mask = h->hash_cap - 1;
	for (uint64_t i = 0, s = hash & mask; i <= mask; i++, s = (s + 1) & mask) {
		uint32_t v = __atomic_load_n(&slots[s], __ATOMIC_ACQUIRE);
		if (!v) {
			if (id == UINT32_MAX)
				return UINT32_MAX;
			uint32_t want = 0;
			if (__atomic_compare_exchange_n(&slots[s], &want, id + 1, 0,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				return id;
			v = want;   /* another thread took it: compare with theirs */
		}
		if (stack_equal(h, v - 1, hash, pcs, depth))
			return v - 1;
	}
	return UINT32_MAX;
}

uint32_t stacks_intern(seg_header *h, hook_thread *t, const uint64_t *pcs, uint32_t depth, int *fresh)
{
	*fresh = 0;
	uint64_t hash = stack_hash(pcs, depth);
	unsigned c = (unsigned)(hash >> 7) & 63;
	if (t->cache_hash[c] == (uint32_t)hash && t->cache_id[c] &&
	    stack_equal(h, t->cache_id[c] - 1, hash, pcs, depth))
		return t->cache_id[c] - 1;
	uint32_t id = hash_probe(h, hash, pcs, depth, UINT32_MAX);
	if (id == UINT32_MAX) {
		uint64_t sid = __atomic_fetch_add(&h->stack_count, 1, __ATOMIC_RELAXED);
		uint64_t off = __atomic_fetch_add(&h->frame_used, depth, __ATOMIC_RELAXED);
		if (sid >= h->stack_cap || sid >= UINT32_MAX - 1 || off + depth > h->frame_cap) {
			if (sid >= h->stack_cap)
				__atomic_store_n(&h->stack_count, h->stack_cap, __ATOMIC_RELAXED);
			__atomic_fetch_add(&h->dropped_stacks, 1, __ATOMIC_RELAXED);
			return UINT32_MAX;
		}
		seg_stack *st = (seg_stack *)seg_region(h, SEG_R_STACKS) + sid;
		memcpy((uint64_t *)seg_region(h, SEG_R_FRAMES) + off, pcs, depth * sizeof(*pcs));
		st->depth = depth;
		st->frame_off = off;
		st->hash = hash;
		__atomic_store_n(&st->state, SEG_STACK_READY, __ATOMIC_RELEASE);
		id = hash_probe(h, hash, pcs, depth, (uint32_t)sid);
		if (id != sid)
			__atomic_store_n(&st->state, SEG_STACK_DUP, __ATOMIC_RELEASE);
		else
			*fresh = 1;
		if (id == UINT32_MAX) {
			__atomic_fetch_add(&h->dropped_stacks, 1, __ATOMIC_RELAXED);
			return UINT32_MAX;
		}
	}
	t->cache_hash[c] = (uint32_t)hash;
	t->cache_id[c] = id + 1;
	return id;
}

/* Only on a new segment, whose slots are zero: clearing them would touch
 * every page of the hash (a third of a fork's time in a shell loop). */
void stacks_rehash(seg_header *h)
{
	uint32_t *slots = seg_region(h, SEG_R_HASH);
	uint64_t n = h->stack_count < h->stack_cap ? h->stack_count : h->stack_cap;
	seg_stack *sts = seg_region(h, SEG_R_STACKS);
	uint64_t mask = h->hash_cap - 1;
	for (uint64_t i = 0; i < n; i++) {
		if (sts[i].state != SEG_STACK_READY)
			continue;
		uint64_t s = sts[i].hash & mask;
		while (slots[s])
			s = (s + 1) & mask;
		slots[s] = (uint32_t)i + 1;
	}
}
