/* u64map.c - the u64 -> u32 map's growth, deletion and freeing. */
#include "core/u64map.h"

#include <stdlib.h>

/* Moves every entry into slots new slots (a power of two); 0 or -1. */
static int u64map_rehash(u64map *m, size_t slots)
{
	u64map n = { .keys = malloc(slots * sizeof(*n.keys)), .vals = malloc(slots * sizeof(*n.vals)),
		     .mask = slots - 1, .used = m->used };
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -1;
	}
	memset(n.vals, 0xff, slots * sizeof(*n.vals));
	for (size_t i = 0; m->vals && i <= m->mask; i++) {
		if (m->vals[i] == U64MAP_NONE)
			continue;
		size_t j = u64map_slot(&n, m->keys[i]);
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

int u64map_init(u64map *m, size_t expect)
{
	*m = (u64map){ 0 };
	size_t slots = 16;
	while (slots < expect * 2 && slots < ((size_t)1 << 40))
		slots *= 2;
	return u64map_rehash(m, slots);
}

void u64map_free(u64map *m)
{
	if (!m->fixed) {
		free(m->keys);
		free(m->vals);
	}
	*m = (u64map){ 0 };
}

int u64map_add_at(u64map *m, size_t i, uint64_t key, uint32_t val)
{
	if (m->vals[i] == U64MAP_NONE && (m->used + 1) * 2 > m->mask + 1) {
		if (m->fixed || u64map_rehash(m, (m->mask + 1) * 2))
			return -1;
		i = u64map_slot(m, key);
	}
	u64map_set_at(m, i, key, val);
	return 0;
}

int u64map_put(u64map *m, uint64_t key, uint32_t val)
{
	if (!m->vals && u64map_init(m, 0))
		return -1;
	return u64map_add_at(m, u64map_slot(m, key), key, val);
}

void u64map_del_at(u64map *m, size_t i)
{
	size_t mask = m->mask;
	/* Backward shift: an entry further on moves into the hole unless its
	 * home lies (cyclically) after the hole, where a probe starts past it. */
	for (size_t j = i;;) {
		j = (j + 1) & mask;
		if (m->vals[j] == U64MAP_NONE)
			break;
		size_t home = (size_t)hash_mix64(m->keys[j]) & mask;
		if (((j - home) & mask) < ((j - i) & mask))
			continue;
		m->keys[i] = m->keys[j];
		m->vals[i] = m->vals[j];
		i = j;
	}
	m->vals[i] = U64MAP_NONE;
	m->used--;
}

int u64map_del(u64map *m, uint64_t key)
{
	if (!m->vals)
		return 0;
	size_t i = u64map_slot(m, key);
	if (m->vals[i] == U64MAP_NONE)
		return 0;
	u64map_del_at(m, i);
	return 1;
}
