/* recording_life.c - frees paired with their allocations over a window of
 * a recording: what was left alive (leaks) and how long blocks lived
 * (temporaries, lifetimes). */
#include "core/recording_int.h"
#include "core/agg.h"
#include "core/snapdiff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- pairing frees with allocations ---------------------------------------- */

/* Open addressing, keys (stack << 32 | key) + 1 (0 is empty); values. */
typedef struct pair_map {
	uint64_t *k;
	uint64_t *v1, *v2;
	size_t cap, n;
} pair_map;

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static int pm_grow(pair_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1024;
	pair_map n = { calloc(cap, 8), malloc(cap * 8), malloc(cap * 8), cap, 0 };
	if (!n.k || !n.v1 || !n.v2) {
		free(n.k);
		free(n.v1);
		free(n.v2);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->k[i])
			continue;
		size_t j = mix(m->k[i]) & (cap - 1);
		while (n.k[j])
			j = (j + 1) & (cap - 1);
		n.k[j] = m->k[i];
		n.v1[j] = m->v1[i];
		n.v2[j] = m->v2[i];
	}
	n.n = m->n;
	free(m->k);
	free(m->v1);
	free(m->v2);
	*m = n;
	return 0;
}

static int pm_put(pair_map *m, uint64_t key, uint64_t v1, uint64_t v2)
{
	if ((m->n + 1) * 4 > m->cap * 3 && pm_grow(m))
		return -1;
	key++;
	size_t j = mix(key) & (m->cap - 1);
	while (m->k[j])
		j = (j + 1) & (m->cap - 1);
	m->k[j] = key;
	m->v1[j] = v1;
	m->v2[j] = v2;
	m->n++;
	return 0;
}

/* Removes key; 1 and its values if it was there. */
static int pm_take(pair_map *m, uint64_t key, uint64_t *v1, uint64_t *v2)
{
	if (!m->cap)
		return 0;
	key++;
	size_t mask = m->cap - 1, j = mix(key) & mask;
	while (m->k[j] && m->k[j] != key)
		j = (j + 1) & mask;
	if (!m->k[j])
		return 0;
	*v1 = m->v1[j];
	*v2 = m->v2[j];
	/* Backward-shift deletion keeps every probe chain whole. */
	size_t i = j;
	for (;;) {
		m->k[i] = 0;
		size_t nx = i;
		for (;;) {
			nx = (nx + 1) & mask;
			if (!m->k[nx])
				goto done;
			size_t home = mix(m->k[nx]) & mask;
			if (((nx - home) & mask) >= ((nx - i) & mask))
				break;
		}
		m->k[i] = m->k[nx];
		m->v1[i] = m->v1[nx];
		m->v2[i] = m->v2[nx];
		i = nx;
	}
done:
	m->n--;
	return 1;
}

static void pm_free(pair_map *m)
{
	free(m->k);
	free(m->v1);
	free(m->v2);
}

/* Calls fn on every event from position from to the end, in order. */
#define FOR_EVENTS(r, from, e, pos, ...)                                                    \
	for (size_t fi_ = rec_file_of(r, from); fi_ < (r)->nf; fi_++) {                          \
		const rec_file *f_ = &(r)->f[fi_];                                           \
		for (size_t c_ = 0; c_ < f_->nch; c_++) {                                    \
			const rec_chref *ch_ = &f_->ch[c_];                                  \
			if (ch_->first + ch_->count <= (from))                               \
				continue;                                                    \
			for (uint32_t i_ = 0; i_ < ch_->count; i_++) {                       \
				uint64_t pos = ch_->first + i_;                              \
				if (pos < (from))                                            \
					continue;                                            \
				rec_event e;                                                 \
				memcpy(&e, f_->map + ch_->off + (size_t)i_ * sizeof(e), sizeof(e)); \
				__VA_ARGS__                                                  \
			}                                                                    \
		}                                                                            \
	}

static prof *counts_prof(recording *r, const rec_cnt *per_id, prof_error *err)
{
	snap s = { 0 };
	s.n = r->p->samples.len;
	s.c = calloc(s.n ? s.n : 1, sizeof(snap_counts));
	if (!s.c) {
		prof_errorf(err, "%s: out of memory", r->dir);
		return NULL;
	}
	for (size_t k = 0; k < s.n; k++) {
		const rec_cnt *c = &per_id[r->id_of[k]];
		s.c[k] = (snap_counts){ c->alloc_objs, c->alloc_bytes, c->free_objs, c->free_bytes };
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
	pair_map m = { 0 };
	rec_cnt *alive = calloc(r->nids, sizeof(rec_cnt));
	if (!alive)
		goto nomem;
	FOR_EVENTS(r, from, e, pos, {
		if (e.stack >= r->nids)
			continue;
		uint64_t key = (uint64_t)e.stack << 32 | e.key, a, b;
		if (e.kind == REC_EV_FREE) {
			pm_take(&m, key, &a, &b);
		} else if (pos < to) {
			if (pm_put(&m, key, e.size, 0))
				goto nomem;
		}
	})
	for (size_t i = 0; i < m.cap; i++) {
		if (!m.k[i])
			continue;
		uint32_t id = (uint32_t)((m.k[i] - 1) >> 32);
		uint64_t o, b;
		rec_weight(m.v1[i], r->sample_rate, &o, &b);
		alive[id].alloc_objs += o;
		alive[id].alloc_bytes += b;
	}
	pm_free(&m);
	prof *d = counts_prof(r, alive, err);
	free(alive);
	return d;
nomem:
	pm_free(&m);
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
	pair_map m = { 0 };
	if (!l)
		return NULL;
	uint64_t nalloc = 0, tmax = 0;
	FOR_EVENTS(r, r->first_ev, e, pos, {
		(void)pos;
		if (e.time_ns > tmax)
			tmax = e.time_ns;
		if (e.stack >= r->nids)
			continue;
		uint64_t key = (uint64_t)e.stack << 32 | e.key, at, t0;
		if (e.kind != REC_EV_FREE) {
			if (pm_put(&m, key, nalloc, tmax))
				goto nomem;
			nalloc++;
			continue;
		}
		if (!pm_take(&m, key, &at, &t0))
			continue;   /* allocated before the recording's first file */
		rec_life *x = &l[e.stack];
		uint64_t life = tmax - t0, between = nalloc - at - 1;
		x->freed++;
		x->hist[rec_hist_bin(life)]++;
		if ((max_allocs && between < max_allocs) || (max_ns && life <= max_ns)) {
			uint64_t o, b;
			rec_weight(e.size, r->sample_rate, &o, &b);
			x->temp_objs += o;
			x->temp_bytes += b;
		}
	})
	pm_free(&m);
	return l;
nomem:
	pm_free(&m);
	free(l);
	return NULL;
}

prof *rec_temp_prof(recording *r, const rec_life *l, prof_error *err)
{
	rec_cnt *c = calloc(r->nids ? r->nids : 1, sizeof(rec_cnt));
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
