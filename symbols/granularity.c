/* granularity.c - node maps from symbols: one node per function, per
 * source line or per module, with inline frames expanded innermost first
 * (an allocation inside an inlined helper has the helper as its leaf, as
 * in pprof). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg.h"
#include "core/path.h"
#include "core/strix.h"
#include "symbols/sym_int.h"

static const char *gran_names[] = { "address", "function", "line", "module" };

int sym_gran_parse(const char *name)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(name, gran_names[i]))
			return i;
	return -1;
}

const char *sym_gran_name(enum sym_gran g)
{
	return (unsigned)g < 4 ? gran_names[g] : "?";
}

/* A frame with no symbol: its raw name, with the address when a v1 name
 * was cut at 80 bytes (two cut names may be equal). */
static const char *raw_label(const sym_info *si, char *buf, size_t len)
{
	if (strlen(si->raw) < 80 || strstr(si->raw, " [0x"))
		return si->raw;
	snprintf(buf, len, "%s [0x%" PRIx64 "]", si->raw, si->addr);
	return buf;
}

/* Function names seen in more than one module, to be told apart. */
typedef struct fn_ix {
	struct fn_entry {
		const char *name, *module;   /* borrowed from s */
		int ambiguous;
	} *v;
	size_t n, cap;
	strix ix;
} fn_ix;

static const char *fn_name(const void *ix, uint32_t id)
{
	return ((const fn_ix *)ix)->v[id].name;
}

static int fn_add(fn_ix *ix, const char *fn, const char *module)
{
	size_t at;
	uint32_t id = strix_find(&ix->ix, fn, strlen(fn), &at);
	if (id != STRIX_NONE) {
		struct fn_entry *e = &ix->v[id];
		if (module && e->module && strcmp(module, e->module))
			e->ambiguous = 1;
		return 0;
	}
	if (vec_grow((void **)&ix->v, &ix->cap, ix->n + 1, sizeof(*ix->v)))
		return -1;
	ix->v[ix->n] = (struct fn_entry){ fn, module, 0 };
	return strix_add(&ix->ix, at, (uint32_t)ix->n++);
}

static int fn_build(fn_ix *ix, const prof *p, sym *s)
{
	if (strix_init(&ix->ix, p->frames.len, fn_name, ix))
		return -1;
	for (uint32_t f = 0; f < p->frames.len; f++) {
		const sym_info *si = sym_frame(s, f);
		if (!si)
			return -1;
		for (uint32_t k = 0; k < si->nchain; k++)
			if (si->chain[k].func && fn_add(ix, si->chain[k].func, si->ident))
				return -1;
	}
	return 0;
}

static int fn_ambiguous(const fn_ix *ix, const char *fn)
{
	size_t at;
	uint32_t id = ix->n ? strix_find(&ix->ix, fn, strlen(fn), &at) : STRIX_NONE;
	return id != STRIX_NONE && ix->v[id].ambiguous;
}

static void fn_free(fn_ix *ix)
{
	free(ix->v);
	strix_free(&ix->ix);
}

static int push(prof_nodemap *m, const char *name, uint8_t flags)
{
	uint32_t id = nodemap_node(m, name, flags);
	if (id == UINT32_MAX)
		return -1;
	m->flags[id] |= flags; /* inlined somewhere: marked */
	return nodemap_push(m, id);
}

int sym_nodemap(prof_nodemap *m, const prof *p, sym *s, enum sym_gran g)
{
	if (!s)
		return nodemap_by_address(m, p);
	fn_ix ix = { 0 };
	if ((g == SYM_GRAN_FUNCTION || g == SYM_GRAN_LINE) && fn_build(&ix, p, s)) {
		fn_free(&ix);
		return -1;
	}
	if (nodemap_begin(m, (uint32_t)p->frames.len)) {
		fn_free(&ix);
		return -1;
	}
	char buf[4096], raw[512];
	int rc = 0;
	for (uint32_t f = 0; f < p->frames.len && !rc; f++) {
		const sym_info *si = sym_frame(s, f);
		if (!si) {
			rc = -1;
			break;
		}
		if (g == SYM_GRAN_MODULE) {
			rc = push(m, si->ident                     ? si->ident
				     : prof_frame_is_nostack(p, f)   ? PROF_NOSTACK_NAME
				     : prof_frame_is_truncated(p, f) ? PROF_TRUNCATED_NAME
								     : "[unknown]", 0);
		} else if (g == SYM_GRAN_ADDRESS) {
			const sym_loc *l = &si->chain[0];
			if (si->source == SYM_SRC_DWARF || si->source == SYM_SRC_ELF) {
				if (l->file)
					snprintf(buf, sizeof(buf), "0x%" PRIx64 " %s %s:%d", si->addr,
						 l->func ? l->func : "??", path_base(l->file), l->line);
				else
					snprintf(buf, sizeof(buf), "0x%" PRIx64 " %s", si->addr, l->func ? l->func : "??");
				rc = push(m, buf, 0);
			} else {
				rc = push(m, raw_label(si, raw, sizeof(raw)), 0);
			}
		} else {
			for (uint32_t k = 0; k < si->nchain && !rc; k++) {
				const sym_loc *l = &si->chain[k];
				uint8_t fl = l->inlined ? AGG_NODE_INLINE : 0;
				if (!l->func) {
					rc = push(m, raw_label(si, raw, sizeof(raw)), fl);
					continue;
				}
				int amb = fn_ambiguous(&ix, l->func) && si->ident;
				int n = snprintf(buf, sizeof(buf), "%s", l->func);
				if (amb)
					n += snprintf(buf + n, sizeof(buf) - (size_t)n, " (%s)", path_base(si->ident));
				if (g == SYM_GRAN_LINE && l->file && (size_t)n < sizeof(buf))
					snprintf(buf + n, sizeof(buf) - (size_t)n, " %s:%d", path_base(l->file), l->line);
				rc = push(m, buf, fl);
			}
		}
		nodemap_end_frame(m);
	}
	fn_free(&ix);
	if (rc)
		nodemap_free(m);
	return rc;
}

int sym_nodemap_agg(prof_nodemap *m, agg *a, const prof *p, sym *s, enum sym_gran g)
{
	if (sym_nodemap(m, p, s, g))
		return -1;
	if (agg_compute(a, p, m)) {
		nodemap_free(m);
		return -1;
	}
	return 0;
}
