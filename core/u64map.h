/* u64map.h - the one map from u64 keys to u32 values: open addressing,
 * linear probing, a power of two of slots, at most half full.  Every key
 * is usable (0 and UINT64_MAX too); the value U64MAP_NONE marks an empty
 * slot, so it is the one value that cannot be stored.  The probe is inline
 * here so the hook, which must not malloc, runs the same map over buffers
 * it maps itself (u64map_over); u64map.c grows, deletes and frees. */
#ifndef MPROF_U64MAP_H
#define MPROF_U64MAP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/hash.h"

#define U64MAP_NONE UINT32_MAX

/* All zero is an empty map that u64map_get and u64map_put accept. */
typedef struct u64map {
	uint64_t *keys;
	uint32_t *vals;          /* U64MAP_NONE: the slot is empty */
	size_t mask, used;       /* slots - 1; keys stored */
	int fixed;               /* over the caller's buffers: never grows or frees them */
} u64map;

/* Sized for expect keys before it grows (0: a small start); 0 or -1 on ENOMEM. */
int u64map_init(u64map *m, size_t expect);
void u64map_free(u64map *m);

/* A map over the caller's keys[slots] and vals[slots] (slots a power of
 * two), for code that cannot allocate: it never grows, so the caller
 * stores at most slots - 1 keys, with u64map_set_at. */
static inline void u64map_over(u64map *m, uint64_t *keys, uint32_t *vals, size_t slots)
{
	memset(vals, 0xff, slots * sizeof(*vals));
	*m = (u64map){ .keys = keys, .vals = vals, .mask = slots - 1, .fixed = 1 };
}

/* The slot holding key, else the empty slot where it goes.  The map must
 * have slots (u64map_init, u64map_over or a first put). */
static inline size_t u64map_slot(const u64map *m, uint64_t key)
{
	size_t i = (size_t)hash_mix64(key) & m->mask;
	while (m->vals[i] != U64MAP_NONE && m->keys[i] != key)
		i = (i + 1) & m->mask;
	return i;
}

/* The value of key, or U64MAP_NONE. */
static inline uint32_t u64map_get(const u64map *m, uint64_t key)
{
	return m->vals ? m->vals[u64map_slot(m, key)] : U64MAP_NONE;
}

/* Stores key -> val at slot i from u64map_slot(m, key), nothing stored in
 * between; never grows (a fixed map, or replacing a value in place). */
static inline void u64map_set_at(u64map *m, size_t i, uint64_t key, uint32_t val)
{
	m->used += m->vals[i] == U64MAP_NONE;
	m->keys[i] = key;
	m->vals[i] = val;
}

/* u64map_set_at, then growing if over half full; 0 or -1 on ENOMEM (then
 * nothing is stored and the map is as it was). */
int u64map_add_at(u64map *m, size_t i, uint64_t key, uint32_t val);
/* Inserts key -> val or replaces key's value; 0 or -1 on ENOMEM. */
int u64map_put(u64map *m, uint64_t key, uint32_t val);
/* Removes the entry at slot i (which holds one), shifting the entries of
 * its probe run back so every remaining key is still found. */
void u64map_del_at(u64map *m, size_t i);
/* Removes key; 1 when it was there, else 0. */
int u64map_del(u64map *m, uint64_t key);

/* Iteration: for (size_t it = 0; u64map_next(m, &it, &k, &v);) visits each
 * entry once, in slot order; the map must not change meanwhile. */
static inline int u64map_next(const u64map *m, size_t *it, uint64_t *key, uint32_t *val)
{
	for (; m->vals && *it <= m->mask; ++*it)
		if (m->vals[*it] != U64MAP_NONE) {
			*key = m->keys[*it];
			*val = m->vals[(*it)++];
			return 1;
		}
	return 0;
}

#endif
