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
	sym *sy[2];              /* [side]: BASE, NEW */
} diffkey;

static const char *key_symbol(sym *s, uint32_t f, char *buf, size_t len)
{
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
	const sym_info *si = sym_frame(s, f);
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

static const char *diffkey_key(void *ctx, int side, uint32_t f, int level, char *buf, size_t len)
{
	sym *s = ((diffkey *)ctx)->sy[side];
	return level == 0 ? key_symbol(s, f, buf, len) : key_lines(s, f, buf, len);
}

static size_t diffkey_labels(void *ctx, uint32_t f, const char **out, size_t max)
{
	const sym_info *si = sym_frame(((diffkey *)ctx)->sy[0], f);
	size_t n = 0;
	for (uint32_t i = 0; si && si->source != SYM_SRC_RAW && i < si->nchain && n < max; i++)
		if (si->chain[i].func)
			out[n++] = si->chain[i].func;
	return n;
}

static int diffkey_readable(void *ctx, int side, uint32_t f)
{
	const sym_info *si = sym_frame(((diffkey *)ctx)->sy[side], f);
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
	const prof *p = k->sy[0]->p;
	const char *name = prof_strat(p, p->frames.v[f].name);
	v1name vn;
	if (!name || v1name_parse(name, V1NAME_STRICT, &vn))
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
	diffkey k = { { sym_open(base, base_so), cur_sy ? cur_sy : sym_open(cur, cur_so) } };
	prof *d = NULL;
	if (!k.sy[0] || !k.sy[1]) {
		prof_errorf(err, "diff: out of memory");
	} else {
		diff_keyer keyer = { diffkey_key, diffkey_labels, diffkey_place, diffkey_readable, &k };
		d = diff_build_by(base, cur, &keyer, st, err);
	}
	sym_close(k.sy[0]);
	if (!cur_sy)
		sym_close(k.sy[1]);
	return d;
}
