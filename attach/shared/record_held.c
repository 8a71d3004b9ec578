/* record_held.c - the recording writer's frees that came before their
 * allocation.  A thread stages its events (ring.c), so a block freed by
 * another thread can reach the ring before the allocation does; written
 * at once, such a free names no allocation, and the allocation arriving
 * later would stay in the pairs table, alive for good, until a later free
 * of its key took it for its own (the wrong size, the wrong lifetime).
 * So the writer holds such a free here until either its allocation comes
 * or nothing staged can hold it any more (record.c).  The other way
 * round, a block made again at the address of one whose free is still
 * staged pushes that one out of the pairs table: it waits here, in a
 * second instance, for its free; and a held free whose block an earlier
 * free took waits in a third (any) for the next allocation of its key.
 * Held frees are a FIFO in arrival order (taken ones are left as holes
 * the oldest end skips), and chained by key hash: a key's oldest free is
 * the last of its chain.  mmap'd, RECHELD_CAP entries at most; only the
 * writer thread touches it. */
#include "attach/shared/record.h"
#include "attach/shared/mapmem.h"

#include <string.h>

#define HELD_BUCKETS (2 * RECHELD_CAP)
#define NONE 0u   /* in chains: index + 1, 0 for none */

static size_t bucket(uint64_t key)
{
	return (size_t)(recpairs_hash(key) >> (64 - __builtin_ctz(HELD_BUCKETS)));
}

static uint64_t key_of(const seg_event *e)
{
	return (uint64_t)e->stack << 32 | e->key;
}

/* Unlinks entry i (0-based) from its chain. */
static void unlink_ent(rec_held *h, uint32_t i)
{
	uint32_t *link = &h->heads[bucket(key_of(&h->e[i].ev))];
	while (*link != NONE && *link != i + 1)
		link = &h->e[*link - 1].next;
	if (*link == i + 1)
		*link = h->e[i].next;
	h->e[i].live = 0;
	h->n--;
}

int recheld_put(rec_held *h, const seg_event *e, int64_t seen, uint64_t aux)
{
	if (!h->e) {
		h->e = hook_map((size_t)RECHELD_CAP * sizeof(rec_held_ent));
		h->heads = hook_map((size_t)HELD_BUCKETS * sizeof(uint32_t));
		if (!h->e || !h->heads) {
			recheld_free(h);
			return -1;
		}
	}
	if (h->hi - h->lo >= RECHELD_CAP)
		recheld_oldest(h);   /* skips the holes at the oldest end */
	if (h->hi - h->lo >= RECHELD_CAP)
		return -1;   /* full: the caller decides */
	uint32_t i = (uint32_t)(h->hi++ % RECHELD_CAP);
	uint32_t *head = &h->heads[bucket(key_of(e))];
	h->e[i] = (rec_held_ent){ .ev = *e, .seen = seen, .aux = aux, .next = *head, .live = 1 };
	*head = i + 1;
	h->n++;
	return 0;
}

int recheld_take(rec_held *h, const seg_event *e, rec_held_ent *out)
{
	uint64_t key = key_of(e);
	int alloc = e->kind != SEG_EV_FREE;
	uint32_t found = NONE;
	for (uint32_t x = h->heads[bucket(key)]; x != NONE; x = h->e[x - 1].next) {
		const rec_held_ent *c = &h->e[x - 1];
		/* A free's allocation is another thread's (a thread's own events
		 * come in order), made no later than the writer's clock when it
		 * read the free. */
		if (key_of(&c->ev) == key && c->ev.size == e->size &&
		    (!alloc || h->any || (c->ev.tid != e->tid && (int64_t)e->time_ns <= c->seen)))
			found = x;   /* the chain runs newest first: the last is the oldest */
	}
	if (found == NONE)
		return 0;
	*out = h->e[found - 1];
	unlink_ent(h, found - 1);
	return 1;
}

const rec_held_ent *recheld_oldest(rec_held *h)
{
	while (h->lo < h->hi && !h->e[h->lo % RECHELD_CAP].live)
		h->lo++;
	return h->lo < h->hi ? &h->e[h->lo % RECHELD_CAP] : NULL;
}

void recheld_drop_oldest(rec_held *h)
{
	if (recheld_oldest(h)) {
		unlink_ent(h, (uint32_t)(h->lo % RECHELD_CAP));
		h->lo++;
	}
}

void recheld_free(rec_held *h)
{
	int any = h->any;
	hook_unmap(h->e, (size_t)RECHELD_CAP * sizeof(rec_held_ent));
	hook_unmap(h->heads, (size_t)HELD_BUCKETS * sizeof(uint32_t));
	memset(h, 0, sizeof(*h));
	h->any = any;
}
