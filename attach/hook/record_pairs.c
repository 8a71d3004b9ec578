/* record_pairs.c - the recording writer's live allocations: (stack, key)
 * -> the position of the allocation, so that a free is written as
 * a reference back to it instead of its stack, size and pointer. Linear
 * probing with backward-shift deletion (no tombstones) in mmap'd memory,
 * doubled when half full; only the writer thread touches it. */
#include "attach/hook/record.h"
#include "attach/hook/hook.h"

#include <string.h>

#define PAIRS_MIN 65536

/* A free slot has key 0: keys are stored + 1 (a key of UINT64_MAX cannot
 * happen: stack ids are below the segment's capacity). */
static void insert(rec_pairs *m, uint64_t k1, uint64_t pos)
{
	size_t i = recpairs_slot(m, k1 - 1);
	while (m->e[i].key && m->e[i].key != k1)
		i = (i + 1) & (m->cap - 1);
	m->n += !m->e[i].key;
	m->e[i] = (rec_pair){ k1, pos };
}

static int grow(rec_pairs *m)
{
	size_t cap = m->cap ? m->cap * 2 : PAIRS_MIN;
	rec_pair *e = hook_map(cap * sizeof(rec_pair)), *old = m->e;
	if (!e)
		return -1;
	size_t ocap = m->cap;
	m->e = e;
	m->cap = cap;
	m->shift = 64 - (unsigned)__builtin_ctzll(cap);
	m->n = 0;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].key)
			insert(m, old[i].key, old[i].pos);
	hook_unmap(old, ocap * sizeof(rec_pair));
	return 0;
}

int recpairs_put(rec_pairs *m, uint64_t key, uint64_t pos)
{
	if ((m->n + 1) * 2 > m->cap && grow(m))
		return -1;
	insert(m, key + 1, pos);
	return 0;
}

int recpairs_take(rec_pairs *m, uint64_t key, uint64_t *pos)
{
	if (!m->cap)
		return 0;
	size_t i = recpairs_slot(m, key), mask = m->cap - 1;
	for (; m->e[i].key != key + 1; i = (i + 1) & mask)
		if (!m->e[i].key)
			return 0;
	*pos = m->e[i].pos;
	/* Backward shift: pull later entries of the run into the hole. */
	for (size_t j = i;;) {
		j = (j + 1) & mask;
		if (!m->e[j].key)
			break;
		size_t home = recpairs_slot(m, m->e[j].key - 1);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->e[i] = m->e[j];
			i = j;
		}
	}
	m->e[i].key = 0;
	m->n--;
	return 1;
}

void recpairs_free(rec_pairs *m)
{
	hook_unmap(m->e, m->cap * sizeof(rec_pair));
	memset(m, 0, sizeof(*m));
}
