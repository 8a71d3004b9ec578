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

#include "core/hash.h"
#include "core/path.h"
#include "core/strix.h"
#include "core/v1name.h"

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
		snprintf(buf, len, "%s+0x%" PRIx64, path_base(path),
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
	uint32_t *tag;    /* the slot's hash, high half: most probes end here */
	size_t mask;
} smap;

static uint64_t sample_hash(const prof *r, uint32_t s)
{
	const prof_sample *sm = &r->samples.v[s];
	const uint32_t *fr = prof_stack_frames(r, sm->stack);
	uint32_t depth = r->stacks.v[sm->stack].depth, d = 0;
	uint64_t h = hash_mix64(sm->size ^ depth);
	/* Two frames a word: the mixer is the cost. */
	for (; d + 1 < depth; d += 2)
		h = hash_mix64(h ^ (((uint64_t)fr[d] << 32 | fr[d + 1]) + 0x9e3779b97f4a7c15ULL));
	if (d < depth)
		h = hash_mix64(h ^ fr[d]);
	return h;
}

static int sample_same(const prof *r, uint32_t a, uint32_t b)
{
	const prof_sample *x = &r->samples.v[a], *y = &r->samples.v[b];
	const prof_stack *sx = &r->stacks.v[x->stack], *sy = &r->stacks.v[y->stack];
	return x->size == y->size && sx->depth == sy->depth &&
	       !memcmp(prof_stack_frames(r, x->stack), prof_stack_frames(r, y->stack), sx->depth * sizeof(uint32_t));
}

/* Room for n samples at most half full: the diff never grows it. */
static int sm_init(smap *m, size_t n)
{
	size_t slots = 1024;
	while (slots < 2 * n + 2)
		slots *= 2;
	m->slot = calloc(slots, sizeof(*m->slot));
	m->tag = malloc(slots * sizeof(*m->tag));
	m->mask = slots - 1;
	return m->slot && m->tag ? 0 : -1;
}

/* Merges the last sample of r into an equal earlier one (and pops it), or
 * indexes it. */
static void merge_last(prof *r, smap *m)
{
	uint32_t s = (uint32_t)r->samples.len - 1;
	uint64_t hv = sample_hash(r, s);
	uint32_t tag = (uint32_t)(hv >> 32);
	size_t h = hv & m->mask;
	while (m->slot[h]) {
		uint32_t o = m->slot[h] - 1;
		if (m->tag[h] == tag && sample_same(r, o, s)) {
			prof_sample *d = &r->samples.v[o], *x = &r->samples.v[s];
			counts_add(&d->c, &x->c);
			r->samples.len--;
			return;
		}
		h = (h + 1) & m->mask;
	}
	m->slot[h] = s + 1;
	m->tag[h] = tag;
}

static uint32_t str_copy(prof *r, const prof *p, uint32_t off)
{
	if (off == PROF_NONE)
		return PROF_NONE;
	const char *s = p->strs.v + off;
	return prof_str(r, s, strlen(s));
}

/* A BASE frame's place in the result: v[off[f] .. off[f+1]). */
typedef struct fmap {
	uint32_t *off;           /* per BASE frame + 1 */
	PROF_VEC(uint32_t) v;
} fmap;

/* Adds the samples of p with frames mapped through map, or one to one
 * through one (identity when NULL too), negated if neg. */
static int add_samples(prof *r, const prof *p, const fmap *map, const uint32_t *one, int neg, smap *m)
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
				dst[o++] = one ? one[fr[d]] : fr[d];
				continue;
			}
			for (uint32_t j = map->off[fr[d]]; j < map->off[fr[d] + 1]; j++)
				dst[o++] = map->v.v[j];
		}
		uint32_t sid = prof_stack_commit(r, depth);
		uint64_t k = neg ? (uint64_t)-1 : 1;
		if (sid == PROF_NONE ||
		    prof_sample_add(r, sid, s->size, s->c.alloc_objs * k, s->c.alloc_bytes * k, s->c.free_objs * k,
				    s->c.free_bytes * k))
			return -1;
		merge_last(r, m);
		/* A merged sample leaves its stack unused: take the stack back. */
		if (r->samples.len && r->samples.v[r->samples.len - 1].stack != sid) {
			r->stacks.len--;
			r->stack_frames.len -= depth;
		}
	}
	return 0;
}

/* The first module of p from index j on whose file name is bn, or PROF_NONE. */
static uint32_t module_named(const prof *p, const char *bn, size_t j)
{
	for (; j < p->modules.len; j++)
		if (!strcmp(bn, path_base(p->strs.v + p->modules.v[j].path)))
			return (uint32_t)j;
	return PROF_NONE;
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
		for (uint32_t j = module_named(other, bn, 0); j != PROF_NONE && !same; j = module_named(other, bn, j + 1)) {
			same_name = &other->modules.v[j];
			same = build_id_same(p, m, other, same_name);
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

/* One diff being built. */
typedef struct dctx {
	prof *r;
	const prof *base, *cur;
	const diff_keyer *k;     /* may be NULL */
	uint8_t *rb_base, *rb_cur;
	uint32_t *bmod;          /* BASE module -> its copy in r, or PROF_NONE */
	uint32_t *cur_to;        /* NEW frame -> the frame of r its samples go to */
	keymap km;
	fmap map;
	uint64_t synth;
	diff_stats *st;
	int oom;
} dctx;

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
	for (uint32_t i = module_named(r, bb, 0); i != PROF_NONE; i = module_named(r, bb, i + 1)) {
		const prof_module *rm = &r->modules.v[i];
		if (build_id_same(r, rm, base, bm))
			return rm->base + (bf->addr - bm->base + bm->offset) - rm->offset;
	}
	return 0;
}

/* 1 + the module of NEW that BASE's module i is a build of: the same file
 * name, or the program itself under another name; 0 when none. */
static uint32_t module_peer(const dctx *c, uint32_t i)
{
	uint32_t j = module_named(c->cur, path_base(c->base->strs.v + c->base->modules.v[i].path), 0);
	if (j != PROF_NONE)
		return j + 1;
	return i == 0 && c->cur->modules.len && c->rb_cur[0] ? 1 : 0;
}

/* BASE's module i added to r (once), where no module of r is: moved up
 * past them, 2 MiB-aligned as loaders place libraries, when it overlaps. */
static uint32_t module_apart(dctx *c, uint32_t i)
{
	if (c->bmod[i] != PROF_NONE)
		return c->bmod[i];
	const prof_module *bm = &c->base->modules.v[i];
	uint64_t at = bm->base, top = 0, align = 1ULL << 21;
	int clash = 0;
	for (size_t j = 0; j < c->r->modules.len; j++) {
		const prof_module *rm = &c->r->modules.v[j];
		clash |= at < rm->base + rm->size && rm->base < at + bm->size;
		if (rm->base + rm->size > top)
			top = rm->base + rm->size;
	}
	if (clash)
		at = ((top + align - 1) & ~(align - 1)) + (bm->base & (align - 1));
	const char *bid = prof_strat(c->base, bm->build_id);
	c->bmod[i] = prof_module_add(c->r, c->base->strs.v + bm->path, bid, at, bm->size, bm->offset);
	if (c->bmod[i] == PROF_NONE)
		c->oom = 1;
	else
		c->r->modules.v[c->bmod[i]].peer = module_peer(c, i);
	return c->bmod[i];
}

/* BASE frame f in r's copy of BASE's module, named as recorded; or NONE
 * when it has no module. */
static uint32_t place_apart(dctx *c, uint32_t f)
{
	const prof_frame *bf = &c->base->frames.v[f];
	if (bf->module == PROF_NONE || bf->module >= c->base->modules.len)
		return PROF_NONE;
	uint32_t mi = module_apart(c, bf->module);
	if (mi == PROF_NONE)
		return PROF_NONE;
	const prof_module *bm = &c->base->modules.v[bf->module], *rm = &c->r->modules.v[mi];
	uint64_t addr = rm->base + (bf->addr - bm->base);
	uint32_t rf = prof_frame_find(c->r, addr);
	if (rf != PROF_NONE)
		return rf;
	if ((rf = prof_frame_intern(c->r, addr)) == PROF_NONE) {
		c->oom = 1;
		return PROF_NONE;
	}
	c->r->frames.v[rf].module = mi;
	if (bf->name != PROF_NONE && (c->r->frames.v[rf].name = str_copy(c->r, c->base, bf->name)) == PROF_NONE)
		c->oom = 1;
	return rf;
}

/* A frame of r with a fresh address no module holds, named name. */
static uint32_t frame_named(dctx *c, const char *name)
{
	char kb[600];
	snprintf(kb, sizeof(kb), "N:%s", name);
	uint32_t rf = km_get(&c->km, kb, PROF_NONE, &c->oom);
	if (rf != PROF_NONE)
		return rf;
	while (prof_frame_find(c->r, c->synth) != PROF_NONE)
		c->synth++;
	rf = prof_frame_intern(c->r, c->synth++);
	if (rf == PROF_NONE || (c->r->frames.v[rf].name = prof_str(c->r, name, strlen(name))) == PROF_NONE) {
		c->oom = 1;
		return PROF_NONE;
	}
	km_get(&c->km, kb, rf, &c->oom);
	return rf;
}

/* The names a BASE frame with no module that matches nothing is shown by:
 * the keyer's functions, else the symbol of its recorded name, else
 * "[key]" (a name no symbol reader takes for a module). Returns how many. */
static size_t unmatched_labels(const dctx *c, uint32_t f, const char **lab, char *buf, size_t len)
{
	size_t n = c->k && c->k->labels ? c->k->labels(c->k->ctx, f, lab, DIFF_LABELS_MAX) : 0;
	if (n)
		return n;
	const char *name = prof_strat(c->base, c->base->frames.v[f].name);
	v1name vn;
	if (name && !v1name_parse(name, V1NAME_STRICT, &vn) && vn.sym_len) {
		snprintf(buf, len, "%.*s", (int)vn.sym_len, vn.sym);
	} else {
		char kb[512];
		snprintf(buf, len, "[%s]", diff_frame_key(c->base, f, kb, sizeof(kb)));
	}
	lab[0] = buf;
	return 1;
}

static void map_push(dctx *c, uint32_t rf)
{
	if (rf == PROF_NONE || prof_vec_reserve(c->map.v, 1))
		c->oom = 1;
	else
		c->map.v.v[c->map.v.len++] = rf;
}

/* What module m of p (a rebuilt one) is in both: its file name, or the
 * program itself when the two run programs of other names. */
static const char *module_ident(const prof *p, const prof *other, uint32_t m)
{
	const char *bn = path_base(p->strs.v + p->modules.v[m].path);
	return m || !other->modules.len || module_named(other, bn, 0) != PROF_NONE ? bn : "<program>";
}

/* The keyer's key at level l for frame f of a side, within its module's
 * identity (one function name may be in two libraries). */
static const char *meaning_key(const dctx *c, int side, uint32_t f, int l, char *buf, size_t len)
{
	char kb[4096];
	const prof *p = side ? c->cur : c->base, *other = side ? c->base : c->cur;
	const char *key = c->k->key(c->k->ctx, side, f, l, kb, sizeof(kb));
	if (!key)
		return NULL;
	snprintf(buf, len, "%s|%s", module_ident(p, other, p->frames.v[f].module), key);
	return buf;
}

/* BASE frame f by key, or None: a rebuilt module's by the keyer's keys
 * (its NEW match read here through BASE's binary when only that one can
 * be: cur_to), others by diff_frame_key or NEW's copy of the module. */
static uint32_t match_base_frame(dctx *c, uint32_t f)
{
	char kb[4200];
	uint32_t rf = PROF_NONE;
	const diff_keyer *k = c->k;
	if (k && frame_rebuilt(c->base, c->rb_base, f)) {
		for (int l = 0; l < DIFF_KEY_LEVELS && rf == PROF_NONE; l++) {
			const char *key = meaning_key(c, 0, f, l, kb, sizeof(kb));
			if (key)
				rf = km_get(&c->km, key, PROF_NONE, &c->oom);
		}
		if (rf != PROF_NONE && rf < c->cur->frames.len && k->readable && !k->readable(k->ctx, 1, rf) &&
		    k->readable(k->ctx, 0, f)) {
			uint32_t pf = place_apart(c, f);
			if (pf != PROF_NONE && c->cur_to[rf] == rf)
				c->cur_to[rf] = pf;
			return pf != PROF_NONE ? pf : rf;
		}
		return rf;
	}
	const char *key = diff_frame_key(c->base, f, kb, sizeof(kb));
	rf = km_get(&c->km, key, PROF_NONE, &c->oom);
	if (rf != PROF_NONE)
		return rf;
	/* Only in BASE: NEW's copy of its module, if there is one. */
	uint64_t addr = place_in_module(c->r, c->base, f);
	if (!addr && k && k->place && c->base->frames.v[f].module == PROF_NONE && k->place(k->ctx, f, &addr))
		addr = 0;
	if (addr && (rf = prof_frame_find(c->r, addr)) == PROF_NONE) {
		const prof_frame *bf = &c->base->frames.v[f];
		if ((rf = prof_frame_intern(c->r, addr)) == PROF_NONE) {
			c->oom = 1;
			return PROF_NONE;
		}
		c->r->frames.v[rf].module = prof_module_find(c->r, addr);
		if (bf->name != PROF_NONE && (c->r->frames.v[rf].name = str_copy(c->r, c->base, bf->name)) == PROF_NONE)
			c->oom = 1;
	}
	if (rf != PROF_NONE)
		km_get(&c->km, key, rf, &c->oom);
	return rf;
}

/* Maps BASE frame f into r: matched, else in a copy of BASE's module
 * (symbols read through BASE's own binary), else as frames named by its
 * functions. Appends to c->map. */
static void map_base_frame(dctx *c, uint32_t f)
{
	uint32_t rf = match_base_frame(c, f);
	if (rf == PROF_NONE && !c->oom) {
		c->st->unmatched++;
		rf = place_apart(c, f);
	}
	if (rf != PROF_NONE || c->oom) {
		map_push(c, rf);
		return;
	}
	const char *lab[DIFF_LABELS_MAX];
	char kb[600];
	size_t n = unmatched_labels(c, f, lab, kb, sizeof(kb));
	for (size_t i = 0; i < n && !c->oom; i++)
		map_push(c, frame_named(c, lab[i]));
}

/* NEW's modules and frames into r, frames at the same indices, with their
 * keys (the keyer's for rebuilt modules). */
static void add_cur(dctx *c)
{
	const prof *cur = c->cur;
	char kb[4200];
	for (size_t i = 0; !c->oom && i < cur->modules.len; i++) {
		const prof_module *m = &cur->modules.v[i];
		if (prof_module_add(c->r, cur->strs.v + m->path, prof_strat(cur, m->build_id), m->base, m->size,
				    m->offset) == PROF_NONE)
			c->oom = 1;
	}
	for (uint32_t f = 0; !c->oom && f < cur->frames.len; f++) {
		uint32_t nf = prof_frame_intern(c->r, cur->frames.v[f].addr);
		if (nf != f) {   /* interned in order, addresses unique */
			c->oom = 1;
			break;
		}
		c->cur_to[f] = f;
		c->r->frames.v[nf].module = cur->frames.v[f].module;
		if (cur->frames.v[f].name != PROF_NONE &&
		    (c->r->frames.v[nf].name = str_copy(c->r, cur, cur->frames.v[f].name)) == PROF_NONE)
			c->oom = 1;
		if (!c->k || !frame_rebuilt(cur, c->rb_cur, nf)) {
			km_get(&c->km, diff_frame_key(cur, f, kb, sizeof(kb)), nf, &c->oom);
			continue;
		}
		for (int l = 0; l < DIFF_KEY_LEVELS; l++) {
			const char *key = meaning_key(c, 1, nf, l, kb, sizeof(kb));
			if (key)
				km_get(&c->km, key, nf, &c->oom);
		}
	}
}

prof *diff_build_by(const prof *base, const prof *cur, const diff_keyer *keyer, diff_stats *st, prof_error *err)
{
	diff_stats own;
	dctx c = { .base = base, .cur = cur, .k = keyer, .synth = DIFF_NAMED_ADDR, .st = st ? st : &own };
	memset(c.st, 0, sizeof(*c.st));
	smap sm = { 0 };
	c.r = prof_new();
	c.rb_base = diff_modules_rebuilt(base, cur, c.st);
	c.rb_cur = diff_modules_rebuilt(cur, base, NULL);
	c.bmod = malloc((base->modules.len ? base->modules.len : 1) * sizeof(*c.bmod));
	c.cur_to = malloc((cur->frames.len ? cur->frames.len : 1) * sizeof(*c.cur_to));
	c.map.off = malloc((base->frames.len + 1) * sizeof(*c.map.off));
	c.oom = !c.r || !c.rb_base || !c.rb_cur || !c.bmod || !c.cur_to || !c.map.off ||
		strix_init(&c.km.ix, cur->frames.len, km_key, &c.km) ||
		sm_init(&sm, cur->samples.len + base->samples.len);
	for (size_t i = 0; !c.oom && i < base->modules.len; i++)
		c.bmod[i] = PROF_NONE;
	if (!c.oom)
		add_cur(&c);
	for (uint32_t f = 0; !c.oom && f < base->frames.len; f++) {
		c.map.off[f] = (uint32_t)c.map.v.len;
		map_base_frame(&c, f);
		c.map.off[f + 1] = (uint32_t)c.map.v.len;
	}
	prof *r = c.r;
	c.oom = c.oom || add_samples(r, cur, NULL, c.cur_to, 0, &sm) || add_samples(r, base, &c.map, NULL, 1, &sm);
	if (!c.oom) {
		/* Drop what cancelled out exactly. */
		size_t k = 0;
		for (size_t i = 0; i < r->samples.len; i++) {
			const prof_sample *s = &r->samples.v[i];
			if (s->c.alloc_objs || s->c.alloc_bytes || s->c.free_objs || s->c.free_bytes)
				r->samples.v[k++] = *s;
		}
		r->samples.len = k;
		r->meta = cur->meta;
		r->meta.peak = (prof_peak){ 0 };   /* a difference has no moment of its own */
		r->meta.cmdline = str_copy(r, cur, cur->meta.cmdline);
	}
	free(c.map.off);
	free(c.map.v.v);
	free(c.rb_base);
	free(c.rb_cur);
	free(c.bmod);
	free(c.cur_to);
	km_free(&c.km);
	free(sm.slot);
	free(sm.tag);
	if (c.oom) {
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
		snprintf(buf + n, len - n, "%s%" PRIu64 " frame%s of BASE matched none of NEW (shown as in BASE)",
			 n ? "; " : "", st->unmatched, st->unmatched == 1 ? "" : "s");
	return 1;
}
