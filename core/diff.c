/* diff.c - NEW - BASE as one profile. Frames of the two runs are matched
 * by a key that survives ASLR, never by raw address: module file name +
 * offset when the frame has a module (native, gperftools, jemalloc, pprof),
 * else the recorded name with its absolute address cut off (skynet v1's
 * "path(+0xoff) [0x7f...]" or "path(sym+0xoff) [...]" -> "file(+0xoff)"),
 * else the name (Go, folded), else the raw address as a last resort.
 * Frames of a module whose build differs between the two (another
 * build-id, or a file name the other lacks) are matched by the keyer's
 * keys instead: what the frame means, not where it was.
 * The result has NEW's frames, modules and addresses (so symbols resolve
 * as for NEW); BASE-only frames are added, moved into NEW's address space
 * when their module (same build) is there, else named by their functions
 * (frames with no module and no address a symbol could be read at).
 * Samples are merged by (stack, size): BASE's counters are subtracted
 * (unsigned wrap; inuse/alloc deltas come out signed from
 * agg_sample_vals), and samples that cancel out are dropped. */
#include "core/diff.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/path.h"
#include "core/strix.h"
#include "core/v1name.h"

static size_t hash_bytes(const void *d, size_t n, size_t h)
{
	const unsigned char *s = d;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ULL;
	return h;
}

/* The last part of the path [path, end). */
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

/* A BASE frame's place in the result: fv[foff[f] .. foff[f+1]). */
typedef struct fmap {
	uint32_t *off;           /* per BASE frame + 1 */
	PROF_VEC(uint32_t) v;
} fmap;

/* Adds the samples of p with frames mapped through map (identity when
 * NULL), negated if neg. */
static int add_samples(prof *r, const prof *p, const fmap *map, int neg, smap *m)
{
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *s = &p->samples.v[i];
		const prof_stack *st = &p->stacks.v[s->stack];
		const uint32_t *fr = prof_stack_frames(p, s->stack);
		uint32_t depth = st->depth;
		for (uint32_t d = 0; map && d < st->depth; d++)
			depth += map->off[fr[d] + 1] - map->off[fr[d]] - 1;
		uint32_t *dst = prof_stack_begin(r, depth);
		if (!dst)
			return -1;
		for (uint32_t d = 0, o = 0; d < st->depth; d++) {
			if (!map) {
				dst[o++] = fr[d];
				continue;
			}
			for (uint32_t j = map->off[fr[d]]; j < map->off[fr[d] + 1]; j++)
				dst[o++] = map->v.v[j];
		}
		uint32_t sid = prof_stack_commit(r, depth);
		uint64_t k = neg ? (uint64_t)-1 : 1;
		if (sid == PROF_NONE ||
		    prof_sample_add(r, sid, s->size, s->c.alloc_objs * k, s->c.alloc_bytes * k, s->c.free_objs * k,
				    s->c.free_bytes * k) ||
		    merge_last(r, m))
			return -1;
		/* A merged sample leaves its stack unused: take the stack back. */
		if (r->samples.len && r->samples.v[r->samples.len - 1].stack != sid) {
			r->stacks.len--;
			r->stack_frames.len -= depth;
		}
	}
	return 0;
}

static int build_id_same(const prof *a, const prof_module *ma, const prof *b, const prof_module *mb)
{
	return ma->build_id == PROF_NONE || mb->build_id == PROF_NONE ||
	       !strcmp(a->strs.v + ma->build_id, b->strs.v + mb->build_id);
}

uint8_t *diff_modules_rebuilt(const prof *p, const prof *other, diff_stats *st)
{
	uint8_t *rb = calloc(p->modules.len ? p->modules.len : 1, 1);
	if (!rb)
		return NULL;
	for (size_t i = 0; i < p->modules.len; i++) {
		const prof_module *m = &p->modules.v[i];
		const char *bn = path_base(p->strs.v + m->path);
		const prof_module *same_name = NULL;
		int same = 0;
		for (size_t j = 0; j < other->modules.len && !same; j++) {
			const prof_module *o = &other->modules.v[j];
			if (strcmp(bn, path_base(other->strs.v + o->path)))
				continue;
			same_name = o;
			same = build_id_same(p, m, other, o);
		}
		if (same || (!same_name && *bn == '['))
			continue;
		rb[i] = 1;
		if (!st || (!same_name && (i || !other->modules.len)))
			continue;
		/* A rebuilt module, or the program itself under another name. */
		if (!st->rebuilt++ && same_name)
			snprintf(st->what, sizeof(st->what), "%s: build-id %.12s in BASE, %.12s in NEW",
				 p->strs.v + m->path, p->strs.v + m->build_id, other->strs.v + same_name->build_id);
		else if (st->rebuilt == 1)
			snprintf(st->what, sizeof(st->what), "BASE ran %s, NEW %s", p->strs.v + m->path,
				 other->strs.v + other->modules.v[0].path);
	}
	return rb;
}

static int frame_rebuilt(const prof *p, const uint8_t *rb, uint32_t f)
{
	uint32_t m = p->frames.v[f].module;
	return rb && m != PROF_NONE && m < p->modules.len && rb[m];
}

/* BASE frame f's address in NEW's copy of its module (same build), or 0. */
static uint64_t place_in_module(const prof *r, const prof *base, uint32_t f)
{
	const prof_frame *bf = &base->frames.v[f];
	if (bf->module == PROF_NONE || bf->module >= base->modules.len)
		return 0;
	const prof_module *bm = &base->modules.v[bf->module];
	const char *bb = path_base(base->strs.v + bm->path);
	for (size_t i = 0; i < r->modules.len; i++) {
		const prof_module *rm = &r->modules.v[i];
		if (!strcmp(path_base(r->strs.v + rm->path), bb) && build_id_same(r, rm, base, bm))
			return rm->base + (bf->addr - bm->base + bm->offset) - rm->offset;
	}
	return 0;
}

/* A frame of r with a fresh address no module holds, named name. */
static uint32_t frame_named(prof *r, keymap *km, const char *name, uint64_t *synth, int *oom)
{
	char kb[600];
	snprintf(kb, sizeof(kb), "N:%s", name);
	uint32_t rf = km_get(km, kb, PROF_NONE, oom);
	if (rf != PROF_NONE)
		return rf;
	while (prof_frame_find(r, *synth) != PROF_NONE)
		++*synth;
	rf = prof_frame_intern(r, (*synth)++);
	if (rf == PROF_NONE || (r->frames.v[rf].name = prof_str(r, name, strlen(name))) == PROF_NONE) {
		*oom = 1;
		return PROF_NONE;
	}
	km_get(km, kb, rf, oom);
	return rf;
}

/* The names a BASE frame matching nothing is shown by: the keyer's
 * functions, else the symbol of its recorded name, else "[key]" (a
 * name no symbol reader takes for a module). Returns how many. */
static size_t unmatched_labels(const prof *base, const diff_keyer *k, uint32_t f, const char **lab, char *buf,
			       size_t len)
{
	size_t n = k && k->labels ? k->labels(k->ctx, f, lab, DIFF_LABELS_MAX) : 0;
	if (n)
		return n;
	const char *name = prof_strat(base, base->frames.v[f].name);
	v1name vn;
	if (name && !v1name_parse(name, V1NAME_STRICT, &vn) && vn.sym_len) {
		snprintf(buf, len, "%.*s", (int)vn.sym_len, vn.sym);
	} else {
		char kb[512];
		snprintf(buf, len, "[%s]", diff_frame_key(base, f, kb, sizeof(kb)));
	}
	lab[0] = buf;
	return 1;
}

/* Maps BASE frame f into r: by key, else placed in NEW's module, else as
 * frames named by its functions. Appends to map. */
static void map_base_frame(prof *r, const prof *base, uint32_t f, const uint8_t *rb, const diff_keyer *k,
			   keymap *km, fmap *map, uint64_t *synth, diff_stats *st, int *oom)
{
	char kb[4200];
	uint32_t rf = PROF_NONE;
	int rebuilt = frame_rebuilt(base, rb, f);
	if (rebuilt && k) {
		for (int l = 0; l < DIFF_KEY_LEVELS && rf == PROF_NONE; l++) {
			const char *key = k->key(k->ctx, 0, f, l, kb, sizeof(kb));
			if (key)
				rf = km_get(km, key, PROF_NONE, oom);
		}
	} else {
		const char *key = diff_frame_key(base, f, kb, sizeof(kb));
		rf = km_get(km, key, PROF_NONE, oom);
		if (rf == PROF_NONE) {
			/* Only in BASE: NEW's copy of its module, if there is one. */
			uint64_t addr = place_in_module(r, base, f);
			if (!addr && k && k->place && base->frames.v[f].module == PROF_NONE && k->place(k->ctx, f, &addr))
				addr = 0;
			uint32_t mod = addr ? prof_module_find(r, addr) : PROF_NONE;
			if (addr && (rf = prof_frame_find(r, addr)) == PROF_NONE) {
				const prof_frame *bf = &base->frames.v[f];
				if ((rf = prof_frame_intern(r, addr)) == PROF_NONE) {
					*oom = 1;
					return;
				}
				r->frames.v[rf].module = mod;
				if (bf->name != PROF_NONE && (r->frames.v[rf].name = str_copy(r, base, bf->name)) == PROF_NONE)
					*oom = 1;
			}
			if (rf != PROF_NONE)
				km_get(km, key, rf, oom);
		}
	}
	if (rf != PROF_NONE) {
		if (prof_vec_reserve(map->v, 1))
			*oom = 1;
		else
			map->v.v[map->v.len++] = rf;
		return;
	}
	/* Matched nothing and has no place: shown by what it means. */
	const char *lab[DIFF_LABELS_MAX];
	size_t n = unmatched_labels(base, k, f, lab, kb, sizeof(kb));
	st->unmatched++;
	for (size_t i = 0; i < n && !*oom; i++) {
		uint32_t lf = frame_named(r, km, lab[i], synth, oom);
		if (lf == PROF_NONE || prof_vec_reserve(map->v, 1))
			*oom = 1;
		else
			map->v.v[map->v.len++] = lf;
	}
}

prof *diff_build_by(const prof *base, const prof *cur, const diff_keyer *keyer, diff_stats *st, prof_error *err)
{
	diff_stats own;
	if (!st)
		st = &own;
	memset(st, 0, sizeof(*st));
	prof *r = prof_new();
	keymap km = { 0 };
	smap sm = { 0 };
	fmap map = { 0 };
	uint8_t *rb_base = diff_modules_rebuilt(base, cur, st), *rb_cur = diff_modules_rebuilt(cur, base, NULL);
	int oom = !r || !rb_base || !rb_cur || strix_init(&km.ix, cur->frames.len, km_key, &km) || sm_grow(r, &sm);
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
		if (!keyer || !frame_rebuilt(cur, rb_cur, nf)) {
			km_get(&km, diff_frame_key(cur, (uint32_t)f, kb, sizeof(kb)), nf, &oom);
			continue;
		}
		for (int l = 0; l < DIFF_KEY_LEVELS; l++) {
			const char *key = keyer->key(keyer->ctx, 1, nf, l, kb, sizeof(kb));
			if (key)
				km_get(&km, key, nf, &oom);
		}
	}
	map.off = malloc((base->frames.len + 1) * sizeof(*map.off));
	oom |= !map.off;
	uint64_t synth = DIFF_NAMED_ADDR;
	for (size_t f = 0; !oom && f < base->frames.len; f++) {
		map.off[f] = (uint32_t)map.v.len;
		map_base_frame(r, base, (uint32_t)f, rb_base, keyer, &km, &map, &synth, st, &oom);
		map.off[f + 1] = (uint32_t)map.v.len;
	}
	oom = oom || add_samples(r, cur, NULL, 0, &sm) || add_samples(r, base, &map, 1, &sm);
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
	free(map.off);
	free(map.v.v);
	free(rb_base);
	free(rb_cur);
	km_free(&km);
	free(sm.slot);
	if (oom) {
		prof_errorf(err, "diff: out of memory");
		prof_free(r);
		return NULL;
	}
	return r;
}

int diff_stats_say(const diff_stats *st, char *buf, size_t len)
{
	if (!st->rebuilt && !st->unmatched)
		return 0;
	size_t n = 0;
	if (st->rebuilt)
		n = (size_t)snprintf(buf, len, "BASE and NEW are different builds (%s); frames matched by symbol and source line",
				     st->what);
	if (st->unmatched && n < len)
		snprintf(buf + n, len - n, "%s%" PRIu64 " frame%s of BASE matched none of NEW (shown by function name)",
			 n ? "; " : "", st->unmatched, st->unmatched == 1 ? "" : "s");
	return 1;
}
