/* diffkey.c - what a frame means, for diffs across builds (core/diff.h's
 * keyer): each profile is read against its own binary (or its recorded
 * names, when that binary is gone or rebuilt), and frames are matched by
 * symbol + offset, then by the source lines of their inline chain. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/path.h"
#include "core/v1name.h"
#include "symbols/sym.h"
#include "symbols/sym_int.h"

typedef struct diffkey {
	sym *sy[2];              /* [side]: BASE, NEW; opened at first need */
	const prof *p[2];
	const sym_opts *so[2];
	int own[2];              /* sy[side] is ours to close */
	int oom;
} diffkey;

/* The symbols of a side, opened now if not yet (a diff within one build
 * of modules with tables needs none). */
static sym *side(diffkey *k, int i)
{
	if (!k->sy[i] && !k->oom) {
		k->sy[i] = sym_open(k->p[i], k->so[i]);
		k->own[i] = 1;
		k->oom = !k->sy[i];
	}
	return k->sy[i];
}

static const char *key_symbol(sym *s, uint32_t f, char *buf, size_t len)
{
	if (!s)
		return NULL;
	const char *nm;
	size_t nl;
	uint64_t off;
	if (sym_frame_symbol(s, f, &nm, &nl, &off))
		return NULL;
	snprintf(buf, len, "S:%.*s+0x%" PRIx64, (int)nl, nm, off);
	return buf;
}

/* Every level's function and file:line: only what debug info says. */
static const char *key_lines(sym *s, uint32_t f, char *buf, size_t len)
{
	const sym_info *si = s ? sym_frame(s, f) : NULL;
	if (!si || si->source != SYM_SRC_DWARF)
		return NULL;
	size_t n = (size_t)snprintf(buf, len, "L:");
	for (uint32_t i = 0; i < si->nchain && n < len; i++) {
		const sym_loc *l = &si->chain[i];
		n += (size_t)snprintf(buf + n, len - n, "%s@%s:%d;", l->func ? l->func : "??",
				      l->file ? path_base(l->file) : "??", l->line);
	}
	return n < len ? buf : NULL;
}

static const char *diffkey_key(void *ctx, int side_i, uint32_t f, int level, char *buf, size_t len)
{
	sym *s = side(ctx, side_i);
	return level == 0 ? key_symbol(s, f, buf, len) : key_lines(s, f, buf, len);
}

static size_t diffkey_labels(void *ctx, uint32_t f, const char **out, size_t max)
{
	sym *s = side(ctx, 0);
	const sym_info *si = s ? sym_frame(s, f) : NULL;
	size_t n = 0;
	for (uint32_t i = 0; si && si->source != SYM_SRC_RAW && i < si->nchain && n < max; i++)
		if (si->chain[i].func)
			out[n++] = si->chain[i].func;
	return n;
}

static int diffkey_readable(void *ctx, int side_i, uint32_t f)
{
	sym *s = side(ctx, side_i);
	const sym_info *si = s ? sym_frame(s, f) : NULL;
	return si && (si->source == SYM_SRC_DWARF || si->source == SYM_SRC_ELF);
}

/* The module of s named path, read here at a known bias. */
static const smod *module_read(const sym *s, const char *path, size_t len)
{
	for (size_t i = 0; i < s->nmods; i++)
		if (s->mods[i].dm && strlen(s->mods[i].path) == len && !memcmp(s->mods[i].path, path, len))
			return &s->mods[i];
	return NULL;
}

/* A BASE frame named "path(...)": the same file read for both at their
 * own biases moves it by the difference. */
static int diffkey_place(void *ctx, uint32_t f, uint64_t *addr)
{
	diffkey *k = ctx;
	const prof *p = k->p[0];
	const char *name = prof_strat(p, p->frames.v[f].name);
	v1name vn;
	if (!name || v1name_parse(name, V1NAME_STRICT, &vn) || !side(k, 0) || !side(k, 1))
		return -1;
	const smod *b = module_read(k->sy[0], vn.path, vn.path_len), *c = module_read(k->sy[1], vn.path, vn.path_len);
	if (!b || !c || !b->local || !c->local || strcmp(b->local, c->local))
		return -1;
	*addr = p->frames.v[f].addr - b->bias + c->bias;
	return 0;
}

prof *sym_diff_build(const prof *base, const sym_opts *base_so, const prof *cur, sym *cur_sy, const sym_opts *cur_so,
		     diff_stats *st, prof_error *err)
{
	diffkey k = { { NULL, cur_sy }, { base, cur }, { base_so, cur_so }, { 0, 0 }, 0 };
	diff_keyer keyer = { diffkey_key, diffkey_labels, diffkey_place, diffkey_readable, &k };
	prof *d = diff_build_by(base, cur, &keyer, st, err);
	for (int i = 0; i < 2; i++)
		if (k.own[i])
			sym_close(k.sy[i]);
	if (d && k.oom) {
		prof_free(d);
		d = NULL;
		prof_errorf(err, "diff: out of memory");
	}
	return d;
}
