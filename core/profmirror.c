/* profmirror.c - successive whole profiles folded into one that only
 * grows: frames by address, modules by base and path, stacks by their
 * frames, samples by (stack, size); the counters of the newest profile
 * replace the old ones in place. */
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/profmirror.h"

int mirror_init(prof_mirror *m)
{
	memset(m, 0, sizeof(*m));
	m->p = prof_new();
	return m->p ? 0 : -1;
}

void mirror_free(prof_mirror *m)
{
	prof_free(m->p);
	u64map_free(&m->stack_of);
	u64map_free(&m->sample_of);
	free(m->fmap);
	memset(m, 0, sizeof(*m));
}

/* p's module for q's module qm: found by base and path, else added. */
static uint32_t module_of(prof *p, const prof *q, uint32_t qm, int *added)
{
	if (qm == PROF_NONE)
		return PROF_NONE;
	const prof_module *a = &q->modules.v[qm];
	const char *path = prof_strat(q, a->path);
	for (size_t i = 0; i < p->modules.len; i++) {
		const prof_module *b = &p->modules.v[i];
		const char *bp = prof_strat(p, b->path);
		if (b->base == a->base && b->size == a->size && !strcmp(bp ? bp : "", path ? path : ""))
			return (uint32_t)i;
	}
	*added = 1;
	return prof_module_add(p, path ? path : "", prof_strat(q, a->build_id), a->base, a->size, a->offset);
}

/* Maps q's frames onto p's; MIRROR_FRAMES when some were new, -1 ENOMEM. */
static int frames_map(prof_mirror *m, const prof *q)
{
	prof *p = m->p;
	if (q->frames.len > m->fmap_cap) {
		uint32_t *f = realloc(m->fmap, q->frames.len * sizeof(*f));
		if (!f)
			return -1;
		m->fmap = f;
		m->fmap_cap = q->frames.len;
	}
	int ch = 0;
	for (size_t i = 0; i < q->frames.len; i++) {
		const prof_frame *qf = &q->frames.v[i];
		uint32_t f = prof_frame_find(p, qf->addr);
		if (f == PROF_NONE) {
			int added = 0;
			uint32_t mod = module_of(p, q, qf->module, &added);
			if ((f = prof_frame_intern(p, qf->addr)) == PROF_NONE)
				return -1;
			p->frames.v[f].module = mod;
			const char *n = prof_strat(q, qf->name);
			if (n && (p->frames.v[f].name = prof_str(p, n, strlen(n))) == PROF_NONE)
				return -1;
			ch = MIRROR_FRAMES;
		}
		m->fmap[i] = f;
	}
	return ch;
}

/* p's stack with the frames of q's stack s (added when new). */
static uint32_t stack_of(prof_mirror *m, const prof *q, uint32_t s, int *ch)
{
	prof *p = m->p;
	const prof_stack *qs = &q->stacks.v[s];
	const uint32_t *qf = prof_stack_frames(q, s);
	uint64_t h = hash_mix64(qs->depth);
	for (uint32_t d = 0; d < qs->depth; d++)
		h = hash_mix64(h ^ m->fmap[qf[d]]);
	for (;; h++) {   /* a clash of two stacks' hashes probes on */
		size_t at = u64map_slot(&m->stack_of, h);
		uint32_t ps = m->stack_of.vals ? m->stack_of.vals[at] : U64MAP_NONE;
		if (ps == U64MAP_NONE) {
			uint32_t *fr = prof_stack_begin(p, qs->depth);
			if (!fr)
				return PROF_NONE;
			for (uint32_t d = 0; d < qs->depth; d++)
				fr[d] = m->fmap[qf[d]];
			ps = prof_stack_commit(p, qs->depth);
			if (ps == PROF_NONE || u64map_put(&m->stack_of, h, ps))
				return PROF_NONE;
			*ch |= MIRROR_STACKS;
			return ps;
		}
		const prof_stack *st = &p->stacks.v[ps];
		if (st->depth != qs->depth)
			continue;
		const uint32_t *pf = prof_stack_frames(p, ps);
		uint32_t d = 0;
		while (d < qs->depth && pf[d] == m->fmap[qf[d]])
			d++;
		if (d == qs->depth)
			return ps;
	}
}

int mirror_update(prof_mirror *m, const prof *q)
{
	prof *p = m->p;
	if (!m->stack_of.vals && (u64map_init(&m->stack_of, 64) || u64map_init(&m->sample_of, 64)))
		return -1;
	int ch = frames_map(m, q);
	if (ch < 0)
		return -1;
	size_t old = p->samples.len;
	uint8_t *seen = calloc(old ? old : 1, 1);
	if (!seen)
		return -1;
	for (size_t i = 0; i < q->samples.len; i++) {
		const prof_sample *qs = &q->samples.v[i];
		uint32_t ps = stack_of(m, q, qs->stack, &ch);
		if (ps == PROF_NONE)
			goto nomem;
		uint64_t h = hash_mix64(((uint64_t)ps << 32) ^ hash_mix64(qs->size));
		uint32_t si;
		for (;; h++) {
			si = u64map_get(&m->sample_of, h);
			if (si == U64MAP_NONE || (p->samples.v[si].stack == ps && p->samples.v[si].size == qs->size))
				break;
		}
		if (si == U64MAP_NONE) {
			si = (uint32_t)p->samples.len;
			if (prof_sample_add(p, ps, qs->size, 0, 0, 0, 0) || u64map_put(&m->sample_of, h, si))
				goto nomem;
			ch |= MIRROR_STACKS;
		}
		/* Two of q's samples on one (stack, size): their sum. */
		mp_counts *c = &p->samples.v[si].c;
		if (si < old && !seen[si]) {
			seen[si] = 1;
			if (memcmp(c, &qs->c, sizeof(*c)))
				ch |= MIRROR_COUNTS;
			memset(c, 0, sizeof(*c));
		} else if (si >= old) {
			ch |= MIRROR_COUNTS;
		}
		c->alloc_objs += qs->c.alloc_objs;
		c->alloc_bytes += qs->c.alloc_bytes;
		c->free_objs += qs->c.free_objs;
		c->free_bytes += qs->c.free_bytes;
	}
	for (size_t i = 0; i < old; i++)
		if (!seen[i] && memcmp(&p->samples.v[i].c, &(mp_counts){ 0 }, sizeof(mp_counts))) {
			memset(&p->samples.v[i].c, 0, sizeof(mp_counts));
			ch |= MIRROR_COUNTS;
		}
	free(seen);
	p->meta.format = q->meta.format;
	p->meta.pid = q->meta.pid;
	p->meta.time = q->meta.time;
	p->meta.scale = q->meta.scale;
	p->go = q->go;
	return ch;
nomem:
	free(seen);
	return -1;
}
