/* diff.c - NEW - BASE as one profile. Frames of the two runs are matched
 * by a key that survives ASLR, never by raw address: module file name +
 * offset when the frame has a module (native, gperftools, jemalloc, pprof),
 * else the recorded name with its absolute address cut off (skynet v1's
 * "path(+0xoff) [0x7f...]" or "path(sym+0xoff) [...]" -> "file(+0xoff)"),
 * else the name (Go, folded), else the raw address as a last resort.
 * The result has NEW's frames, modules and addresses (so symbols resolve
 * as for NEW); BASE-only frames are added, moved into NEW's address space
 * when their module is there. Samples are merged by (stack, size): BASE's
 * counters are subtracted (unsigned wrap; inuse/alloc deltas come out
 * signed from agg_sample_vals), and samples that cancel out are dropped. */
#include "core/diff.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strix.h"
#include "core/v1name.h"

static size_t hash_bytes(const void *d, size_t n, size_t h)
{
	const unsigned char *s = d;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ULL;
	return h;
}

static const char *base_name(const char *path, const char *end)
{
	const char *b = path;
	for (const char *c = path; c < end; c++)
		if (*c == '/')
			b = c + 1;
	return b;
}

const char *diff_frame_key(const prof *p, uint32_t f, char *buf, size_t len)
{
	const prof_frame *fr = &p->frames.v[f];
	if (fr->module != PROF_NONE && fr->module < p->modules.len) {
		const prof_module *m = &p->modules.v[fr->module];
		const char *path = p->strs.v + m->path;
		snprintf(buf, len, "%s+0x%" PRIx64, base_name(path, path + strlen(path)),
			 fr->addr - m->base + m->offset);
		return buf;
	}
	if (fr->name != PROF_NONE) {
		const char *n = p->strs.v + fr->name;
		v1name vn;
		/* backtrace_symbols: file(...) [addr], the address maybe cut. */
		if (!v1name_parse(n, V1NAME_LOOSE, &vn) && n[vn.head_len]) {
			const char *b = base_name(n, n + vn.path_len);
			snprintf(buf, len, "%.*s", (int)(n + vn.head_len - b), b);
			return buf;
		}
		return n;
	}
	snprintf(buf, len, "0x%" PRIx64, fr->addr);
	return buf;
}

/* key string -> frame index of the result; keys are owned copies. */
typedef struct keymap {
	struct km_entry {
		char *key;
		uint32_t val;
	} *e;
	size_t n, cap;
	strix ix;
} keymap;

static const char *km_key(const void *k, uint32_t id)
{
	return ((const keymap *)k)->e[id].key;
}

/* Finds key; when absent and add != PROF_NONE, inserts it with add. */
static uint32_t km_get(keymap *k, const char *key, uint32_t add, int *oom)
{
	size_t at, len = strlen(key);
	uint32_t id = strix_find(&k->ix, key, len, &at);
	if (id != STRIX_NONE)
		return k->e[id].val;
	if (add == PROF_NONE)
		return PROF_NONE;
	char *copy = vec_grow((void **)&k->e, &k->cap, k->n + 1, sizeof(*k->e)) ? NULL : strdup(key);
	if (!copy) {
		*oom = 1;
		return PROF_NONE;
	}
	k->e[k->n] = (struct km_entry){ copy, add };
	if (strix_add(&k->ix, at, (uint32_t)k->n++))
		*oom = 1;
	return add;
}

static void km_free(keymap *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->e[i].key);
	free(k->e);
	strix_free(&k->ix);
}

/* (stack frames, size) -> sample index of the result, for merging. */
typedef struct smap {
	uint32_t *slot;   /* sample index + 1 */
	size_t mask, used;
} smap;

static size_t sample_hash(const prof *r, uint32_t s)
{
	const prof_sample *sm = &r->samples.v[s];
	const prof_stack *st = &r->stacks.v[sm->stack];
	size_t h = hash_bytes(&sm->size, sizeof(sm->size), 1469598103934665603ULL);
	return hash_bytes(prof_stack_frames(r, sm->stack), st->depth * sizeof(uint32_t), h);
}

static int sample_same(const prof *r, uint32_t a, uint32_t b)
{
	const prof_sample *x = &r->samples.v[a], *y = &r->samples.v[b];
	const prof_stack *sx = &r->stacks.v[x->stack], *sy = &r->stacks.v[y->stack];
	return x->size == y->size && sx->depth == sy->depth &&
	       !memcmp(prof_stack_frames(r, x->stack), prof_stack_frames(r, y->stack), sx->depth * sizeof(uint32_t));
}

static int sm_grow(const prof *r, smap *m)
{
	size_t slots = m->slot ? (m->mask + 1) * 2 : 1024;
	uint32_t *ns = calloc(slots, sizeof(*ns));
	if (!ns)
		return -1;
	for (size_t i = 0; m->slot && i <= m->mask; i++) {
		if (!m->slot[i])
			continue;
		size_t h = sample_hash(r, m->slot[i] - 1) & (slots - 1);
		while (ns[h])
			h = (h + 1) & (slots - 1);
		ns[h] = m->slot[i];
	}
	free(m->slot);
	m->slot = ns;
	m->mask = slots - 1;
	return 0;
}

/* Merges the last sample of r into an equal earlier one (and pops it), or
 * indexes it. sign -1 subtracts. 0 or -1 on ENOMEM. */
static int merge_last(prof *r, smap *m)
{
	uint32_t s = (uint32_t)r->samples.len - 1;
	size_t h = sample_hash(r, s) & m->mask;
	while (m->slot[h]) {
		uint32_t o = m->slot[h] - 1;
		if (sample_same(r, o, s)) {
			prof_sample *d = &r->samples.v[o], *x = &r->samples.v[s];
			counts_add(&d->c, &x->c);
			r->samples.len--;
			return 0;
		}
		h = (h + 1) & m->mask;
	}
	m->slot[h] = s + 1;
	if (++m->used * 2 > m->mask && sm_grow(r, m))
		return -1;
	return 0;
}

static uint32_t str_copy(prof *r, const prof *p, uint32_t off)
{
	if (off == PROF_NONE)
		return PROF_NONE;
	const char *s = p->strs.v + off;
	return prof_str(r, s, strlen(s));
}

/* Adds the samples of p with frames mapped through fmap, negated if neg. */
static int add_samples(prof *r, const prof *p, const uint32_t *fmap, int neg, smap *m)
{
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *s = &p->samples.v[i];
		const prof_stack *st = &p->stacks.v[s->stack];
		uint32_t *dst = prof_stack_begin(r, st->depth);
		if (!dst)
			return -1;
		const uint32_t *fr = prof_stack_frames(p, s->stack);
		for (uint32_t d = 0; d < st->depth; d++)
			dst[d] = fmap[fr[d]];
		uint32_t sid = prof_stack_commit(r, st->depth);
		uint64_t k = neg ? (uint64_t)-1 : 1;
		if (sid == PROF_NONE ||
		    prof_sample_add(r, sid, s->size, s->c.alloc_objs * k, s->c.alloc_bytes * k, s->c.free_objs * k,
				    s->c.free_bytes * k) ||
		    merge_last(r, m))
			return -1;
		/* A merged sample leaves its stack unused: take the stack back. */
		if (r->samples.len && r->samples.v[r->samples.len - 1].stack != sid) {
			r->stacks.len--;
			r->stack_frames.len -= st->depth;
		}
	}
	return 0;
}

prof *diff_build(const prof *base, const prof *cur, prof_error *err)
{
	prof *r = prof_new();
	keymap km = { 0 };
	smap sm = { 0 };
	uint32_t *fmap = NULL;
	int oom = !r || strix_init(&km.ix, cur->frames.len, km_key, &km) || sm_grow(r, &sm);
	char kb[4200];

	for (size_t i = 0; !oom && i < cur->modules.len; i++) {
		const prof_module *m = &cur->modules.v[i];
		if (prof_module_add(r, cur->strs.v + m->path, m->build_id == PROF_NONE ? NULL : cur->strs.v + m->build_id,
				    m->base, m->size, m->offset) == PROF_NONE)
			oom = 1;
	}
	/* NEW's frames keep their indices: interned in order, addresses unique. */
	for (size_t f = 0; !oom && f < cur->frames.len; f++) {
		uint32_t nf = prof_frame_intern(r, cur->frames.v[f].addr);
		if (nf != f) {
			oom = 1;
			break;
		}
		r->frames.v[nf].module = cur->frames.v[f].module;
		if (cur->frames.v[f].name != PROF_NONE &&
		    (r->frames.v[nf].name = str_copy(r, cur, cur->frames.v[f].name)) == PROF_NONE)
			oom = 1;
		km_get(&km, diff_frame_key(cur, (uint32_t)f, kb, sizeof(kb)), nf, &oom);
	}
	fmap = malloc((base->frames.len ? base->frames.len : 1) * sizeof(*fmap));
	oom |= !fmap;
	uint64_t synth = 0xfff0000000000000ULL;
	for (size_t f = 0; !oom && f < base->frames.len; f++) {
		const prof_frame *bf = &base->frames.v[f];
		const char *key = diff_frame_key(base, (uint32_t)f, kb, sizeof(kb));
		uint32_t rf = km_get(&km, key, PROF_NONE, &oom);
		if (rf == PROF_NONE) {
			/* Only in BASE: place it in NEW's copy of its module if there is one. */
			uint64_t addr = 0;
			uint32_t mod = PROF_NONE;
			if (bf->module != PROF_NONE && bf->module < base->modules.len) {
				const prof_module *bm = &base->modules.v[bf->module];
				const char *bp = base->strs.v + bm->path;
				const char *bb = base_name(bp, bp + strlen(bp));
				for (size_t i = 0; i < r->modules.len && mod == PROF_NONE; i++) {
					const char *rp = r->strs.v + r->modules.v[i].path;
					if (!strcmp(base_name(rp, rp + strlen(rp)), bb)) {
						mod = (uint32_t)i;
						addr = r->modules.v[i].base + (bf->addr - bm->base + bm->offset) -
						       r->modules.v[i].offset;
					}
				}
			}
			if (mod == PROF_NONE || prof_frame_find(r, addr) != PROF_NONE) {
				do
					addr = synth++;
				while (prof_frame_find(r, addr) != PROF_NONE);
			}
			rf = prof_frame_intern(r, addr);
			if (rf == PROF_NONE) {
				oom = 1;
				break;
			}
			r->frames.v[rf].module = mod;
			if (bf->name != PROF_NONE && (r->frames.v[rf].name = str_copy(r, base, bf->name)) == PROF_NONE)
				oom = 1;
			km_get(&km, key, rf, &oom);
		}
		fmap[f] = rf;
	}
	uint32_t *ident = NULL;
	if (!oom) {
		ident = malloc((cur->frames.len ? cur->frames.len : 1) * sizeof(*ident));
		oom = !ident;
		for (size_t f = 0; ident && f < cur->frames.len; f++)
			ident[f] = (uint32_t)f;
	}
	oom = oom || add_samples(r, cur, ident, 0, &sm) || add_samples(r, base, fmap, 1, &sm);
	free(ident);
	if (!oom) {
		/* Drop what cancelled out exactly. */
		size_t k = 0;
		for (size_t i = 0; i < r->samples.len; i++) {
			const prof_sample *s = &r->samples.v[i];
			if (s->c.alloc_objs || s->c.alloc_bytes || s->c.free_objs || s->c.free_bytes)
				r->samples.v[k++] = *s;
		}
		r->samples.len = k;
		r->meta = cur->meta;
		r->meta.cmdline = str_copy(r, cur, cur->meta.cmdline);
	}
	free(fmap);
	km_free(&km);
	free(sm.slot);
	if (oom) {
		prof_errorf(err, "diff: out of memory");
		prof_free(r);
		return NULL;
	}
	return r;
}
