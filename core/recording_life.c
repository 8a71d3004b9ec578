/* recording_life.c - frees paired with their allocations over a window of
 * a recording: what was left alive (leaks) and how long blocks lived
 * (temporaries, lifetimes). */
#include "core/recording_int.h"
#include "core/agg.h"
#include "core/snapdiff.h"
#include "core/u64map.h"
#include "core/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- pairing frees with allocations ---------------------------------------- */

/* An allocation waiting for its free. */
typedef struct pending {
	uint64_t v1, v2;
	uint32_t next;           /* the next one of its key, or the next free entry */
	uint32_t last;           /* in the oldest of a key: the newest one */
} pending;

/* Allocations by key (the allocation's position) -> the oldest waiting;
 * more of one key (only in a hostile file) wait behind it, and a free takes
 * the oldest. */
typedef struct pair_map {
	u64map oldest;
	pending *e;
	size_t n, cap;
	uint32_t free;           /* entries to reuse, through next; U64MAP_NONE: none */
} pair_map;

static int pm_put(pair_map *m, uint64_t key, uint64_t v1, uint64_t v2)
{
	uint32_t id = m->free;
	if (id != U64MAP_NONE) {
		m->free = m->e[id].next;
	} else {
		if (m->n >= U64MAP_NONE - 1 || vec_grow((void **)&m->e, &m->cap, m->n + 1, sizeof(*m->e)))
			return -1;
		id = (uint32_t)m->n++;
	}
	m->e[id] = (pending){ v1, v2, U64MAP_NONE, id };
	if (!m->oldest.vals && u64map_init(&m->oldest, 512))
		return -1;
	size_t at = u64map_slot(&m->oldest, key);
	uint32_t first = m->oldest.vals[at];
	if (first == U64MAP_NONE)
		return u64map_add_at(&m->oldest, at, key, id);
	m->e[m->e[first].last].next = id;
	m->e[first].last = id;
	return 0;
}

/* Removes key's oldest allocation; 1 and its values if there was one. */
static int pm_take(pair_map *m, uint64_t key, uint64_t *v1, uint64_t *v2)
{
	if (!m->oldest.vals)
		return 0;
	size_t at = u64map_slot(&m->oldest, key);
	uint32_t id = m->oldest.vals[at];
	if (id == U64MAP_NONE)
		return 0;
	pending *x = &m->e[id];
	*v1 = x->v1;
	*v2 = x->v2;
	if (x->next == U64MAP_NONE) {
		u64map_del_at(&m->oldest, at);
	} else {
		m->e[x->next].last = x->last;
		u64map_set_at(&m->oldest, at, key, x->next);
	}
	x->next = m->free;
	m->free = id;
	return 1;
}

static void pm_free(pair_map *m)
{
	u64map_free(&m->oldest);
	free(m->e);
}

/* Runs the body on every event e (at position pos) from position from to
 * the end, in order; events that cannot be decoded end the walk. */
#define FOR_EVENTS(r, k, from, e, pos, ...)                                                  \
	for (size_t fi_ = rec_file_of(r, from); fi_ < (r)->nf; fi_++) {                     \
		const rec_file *f_ = &(r)->f[fi_];                                           \
		for (size_t c_ = 0; c_ < f_->nch; c_++) {                                    \
			const rec_chref *ch_ = &f_->ch[c_];                                  \
			if (ch_->first + ch_->count <= (from))                               \
				continue;                                                    \
			const rec_event *v_ = rec_cursor_chunk(k, f_, c_);                   \
			if (!v_)                                                             \
				break;                                                       \
			for (uint32_t i_ = 0; i_ < ch_->count; i_++) {                       \
				uint64_t pos = ch_->first + i_;                              \
				if (pos < (from))                                            \
					continue;                                            \
				const rec_event e = v_[i_];                                  \
				__VA_ARGS__                                                  \
			}                                                                    \
		}                                                                            \
	}

static prof *counts_prof(recording *r, const mp_counts *per_id, prof_error *err)
{
	snap s = { 0 };
	s.n = r->p->samples.len;
	s.c = calloc(s.n ? s.n : 1, sizeof(mp_counts));
	if (!s.c) {
		prof_errorf(err, "%s: out of memory", r->dir);
		return NULL;
	}
	for (size_t k = 0; k < s.n; k++) {
		const mp_counts *c = &per_id[r->id_of[k]];
		s.c[k] = *c;
	}
	prof *d = snap_delta(r->p, NULL, &s, NULL, err);
	free(s.c);
	return d;
}

prof *rec_leaks(recording *r, uint64_t from, uint64_t to, prof_error *err)
{
	if (to < from) {
		uint64_t t = to;
		to = from;
		from = t;
	}
	pair_map m = { .free = U64MAP_NONE };
	rec_cursor k = { 0 };
	mp_counts *alive = calloc(r->nids, sizeof(mp_counts));
	if (!alive)
		goto nomem;
	/* An allocation is known by its position; a free names it. */
	FOR_EVENTS(r, &k, from, e, pos, {
		if (e.stack >= r->nids)
			continue;
		uint64_t a, b;
		if (e.kind == REC_EV_FREE) {
			if (e.ref)
				pm_take(&m, e.ref - 1, &a, &b);
		} else if (pos < to) {
			if (pm_put(&m, pos, e.size, e.stack))
				goto nomem;
		}
	})
	uint64_t key;
	uint32_t first;
	for (size_t it = 0; u64map_next(&m.oldest, &it, &key, &first);)
		for (uint32_t x = first; x != U64MAP_NONE; x = m.e[x].next) {
			uint64_t o, b;
			rec_weight_at(m.e[x].v1, r->sample_rate, key, r->dither, &o, &b);
			alive[m.e[x].v2].alloc_objs += o;
			alive[m.e[x].v2].alloc_bytes += b;
		}
	pm_free(&m);
	rec_cursor_free(&k);
	prof *d = counts_prof(r, alive, err);
	free(alive);
	return d;
nomem:
	pm_free(&m);
	rec_cursor_free(&k);
	free(alive);
	prof_errorf(err, "%s: out of memory", r->dir);
	return NULL;
}

int rec_hist_bin(uint64_t ns)
{
	uint64_t ms = ns / 1000000;
	int b = 0;
	while (ms && b < REC_HIST_BINS - 1) {
		ms >>= 1;
		b++;
	}
	return b;
}

uint64_t rec_hist_low_ms(int bin)
{
	return bin <= 0 ? 0 : 1ull << (bin - 1);
}

rec_life *rec_lifetimes(recording *r, uint64_t max_allocs, uint64_t max_ns)
{
	rec_life *l = calloc(r->nids ? r->nids : 1, sizeof(rec_life));
	pair_map m = { .free = U64MAP_NONE };
	rec_cursor k = { 0 };
	if (!l)
		return NULL;
	uint64_t nalloc = 0, tmax = 0;
	FOR_EVENTS(r, &k, r->first_ev, e, pos, {
		if (e.time_ns > tmax)
			tmax = e.time_ns;
		if (e.stack >= r->nids)
			continue;
		uint64_t at, t0;
		if (e.kind != REC_EV_FREE) {
			if (pm_put(&m, pos, nalloc, tmax))
				goto nomem;
			nalloc++;
			continue;
		}
		if (!e.ref || !pm_take(&m, e.ref - 1, &at, &t0))
			continue;   /* allocated before the recording's first file */
		rec_life *x = &l[e.stack];
		uint64_t life = tmax - t0, between = nalloc - at - 1;
		x->freed++;
		x->hist[rec_hist_bin(life)]++;
		if ((max_allocs && between < max_allocs) || (max_ns && life <= max_ns)) {
			uint64_t o, b;
			rec_weight_at(e.size, r->sample_rate, e.ref - 1, r->dither, &o, &b);
			x->temp_objs += o;
			x->temp_bytes += b;
		}
	})
	pm_free(&m);
	rec_cursor_free(&k);
	return l;
nomem:
	pm_free(&m);
	rec_cursor_free(&k);
	free(l);
	return NULL;
}

prof *rec_temp_prof(recording *r, const rec_life *l, prof_error *err)
{
	mp_counts *c = calloc(r->nids ? r->nids : 1, sizeof(mp_counts));
	if (!c) {
		prof_errorf(err, "%s: out of memory", r->dir);
		return NULL;
	}
	for (size_t i = 0; i < r->nids; i++) {
		c[i].alloc_objs = l[i].temp_objs;
		c[i].alloc_bytes = l[i].temp_bytes;
	}
	prof *d = counts_prof(r, c, err);
	free(c);
	return d;
}
