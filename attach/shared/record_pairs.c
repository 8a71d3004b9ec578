/* record_pairs.c - the recording writer's live allocations: (stack, key)
 * -> the position of the allocation, so that a free is written as a
 * reference back to it instead of its stack, size and pointer.  Every
 * event of the stream comes here once, so an operation is one cache line:
 * a key hashes to a bucket of RECPAIRS_WAYS entries (64 bytes), and goes
 * to a following bucket only when its own is full.  A bucket counts the
 * entries that went past it (ovf), so a lookup stops at the first bucket
 * nobody passed, and taking an entry only clears it (and counts down the
 * buckets it passed).  Doubled when half full; mmap'd; only the writer
 * thread touches it.  What a key's own bucket settles is inline in
 * record.h; what walks on past it is here. */
#include "attach/shared/record.h"
#include "attach/shared/mapmem.h"

#include <string.h>

#define PAIRS_MIN_BUCKETS 4096
#define W RECPAIRS_WAYS

/* k1: a stored key (key + 1). Replaces an entry of k1: 1 with its
 * position in *old; else 0. */
static int insert(rec_pairs *m, uint64_t k1, uint64_t pos, uint64_t *old)
{
	size_t home = recpairs_slot(m, k1 - 1), mask = m->nb - 1, b = home;
	rec_pair *hole = NULL;
	size_t hole_b = 0;
	for (size_t walked = 0; walked <= mask; walked++) {
		rec_pair *e = m->e + b * W;
		int j = recpairs_find_in(e, k1);
		if (j >= 0) {
			*old = e[j].pos;
			e[j].pos = pos;
			return 1;
		}
		if (!hole && (j = recpairs_find_in(e, 0)) >= 0) {
			hole = &e[j];
			hole_b = b;
		}
		if (!m->ovf[b])
			break;
		b = (b + 1) & mask;
	}
	if (!hole) {   /* past the last bucket passed: the first with room */
		for (b = (b + 1) & mask;; b = (b + 1) & mask) {
			int j = recpairs_find_in(m->e + b * W, 0);
			if (j >= 0) {
				hole = &m->e[b * W + (size_t)j];
				hole_b = b;
				break;
			}
		}
	}
	for (b = home; b != hole_b; b = (b + 1) & mask)
		if (m->ovf[b] < 255)
			m->ovf[b]++;
	*hole = (rec_pair){ k1, pos };
	m->n++;
	return 0;
}

static int grow(rec_pairs *m)
{
	size_t nb = m->nb ? m->nb * 2 : PAIRS_MIN_BUCKETS;
	rec_pair *e = hook_map(nb * W * sizeof(rec_pair));
	uint8_t *ovf = hook_map(nb);
	if (!e || !ovf) {
		hook_unmap(e, nb * W * sizeof(rec_pair));
		hook_unmap(ovf, nb);
		return -1;
	}
	hook_populate(e, nb * W * sizeof(rec_pair));   /* the rehash below touches most of it */
	hook_populate(ovf, nb);
	rec_pair *old = m->e;
	uint8_t *oovf = m->ovf;
	size_t onb = m->nb;
	m->e = e;
	m->ovf = ovf;
	m->nb = nb;
	m->shift = 64 - (unsigned)__builtin_ctzll(nb);
	m->n = 0;
	uint64_t none;
	for (size_t i = 0; i < onb * W; i++)
		if (old[i].key)
			insert(m, old[i].key, old[i].pos, &none);   /* keys are unique: nothing is replaced */
	hook_unmap(old, onb * W * sizeof(rec_pair));
	hook_unmap(oovf, onb);
	return 0;
}

int recpairs_grow(rec_pairs *m, size_t n)
{
	while ((m->n + n) * 2 > m->nb * W)
		if (grow(m))
			return -1;
	return 0;
}

int recpairs_put_slow(rec_pairs *m, uint64_t key, uint64_t pos, uint64_t *old)
{
	return insert(m, key + 1, pos, old);
}

int recpairs_take_slow(rec_pairs *m, uint64_t key, uint64_t *pos)
{
	uint64_t k1 = key + 1;
	size_t home = recpairs_slot(m, key), mask = m->nb - 1;
	for (size_t b = home, walked = 0; walked <= mask; b = (b + 1) & mask, walked++) {
		rec_pair *e = m->e + b * W;
		int j = recpairs_find_in(e, k1);
		if (j >= 0) {
			*pos = e[j].pos;
			e[j].key = 0;
			m->n--;
			for (size_t c = home; c != b; c = (c + 1) & mask)
				if (m->ovf[c] < 255)
					m->ovf[c]--;
			return 1;
		}
		if (!m->ovf[b])
			return 0;
	}
	return 0;
}

void recpairs_free(rec_pairs *m)
{
	hook_unmap(m->e, m->nb * W * sizeof(rec_pair));
	hook_unmap(m->ovf, m->nb);
	memset(m, 0, sizeof(*m));
}
