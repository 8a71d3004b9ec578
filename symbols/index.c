/* index.c - what makes lookups cheap: per compile unit, the address
 * ranges of every function and inline instance (one walk of the unit's
 * DIE tree instead of one per address, as dwarf_getscopes would), and per
 * module its ELF symbols sorted by address (dwfl_module_addrinfo scans
 * the table for every call). Built on first use, freed at sym_close. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/sym_int.h"

typedef struct fn_range {
	uint64_t lo, hi;       /* [lo, hi) in DWARF addresses */
	Dwarf_Die die;
	uint32_t parent;       /* enclosing function range, or UINT32_MAX */
} fn_range;

typedef struct cu_index {
	fn_range *v;
	uint64_t *maxhi;       /* max hi of v[0..i]: stops the backward scan */
	size_t n, cap;
} cu_index;

typedef struct elf_sym {
	uint64_t addr, size;
	const char *name;      /* owned by libdwfl's ELF */
	int global;
} elf_sym;

typedef struct sym_table {
	elf_sym *v;
	size_t n;
} sym_table;

/* (module, what) -> the index built for it, where what is a CU (by DIE
 * offset) or the module's symbols.  The u64 key is exact: the module's
 * number (in order of first use) above IX_OFF_BITS, below them the DIE
 * offset + 1, or 0 for the symbols. */
#define IX_OFF_BITS 44
#define IX_SYMTAB UINT64_MAX

typedef struct ix_entry {
	void *val;             /* cu_index or sym_table, NULL until built */
	int symtab;
} ix_entry;

struct sym_ixmap {
	u64map module;         /* Dwfl_Module address -> its number */
	u64map at;             /* key -> index in e */
	ix_entry *e;
	size_t n, cap;
};

/* The entry of (dm, what), empty when new; what is a DIE offset or
 * IX_SYMTAB.  NULL on ENOMEM, or past 2^20 modules or a 16 TiB offset. */
static ix_entry *ix_find(sym *s, const Dwfl_Module *dm, uint64_t what)
{
	struct sym_ixmap *m = s->ix;
	if (!m && !(m = s->ix = calloc(1, sizeof(*m))))
		return NULL;
	uint64_t mod = (uint64_t)(uintptr_t)dm;
	uint32_t num = u64map_get(&m->module, mod);
	if (num == U64MAP_NONE) {
		num = (uint32_t)m->module.used;
		if (num >= 1u << (64 - IX_OFF_BITS) || u64map_put(&m->module, mod, num))
			return NULL;
	}
	uint64_t low = what == IX_SYMTAB ? 0 : what + 1;
	if (low >> IX_OFF_BITS)
		return NULL;
	uint64_t key = (uint64_t)num << IX_OFF_BITS | low;
	if (!m->at.vals && u64map_init(&m->at, 128))
		return NULL;
	size_t at = u64map_slot(&m->at, key);
	if (m->at.vals[at] != U64MAP_NONE)
		return &m->e[m->at.vals[at]];
	if (m->n >= U64MAP_NONE || vec_grow((void **)&m->e, &m->cap, m->n + 1, sizeof(*m->e)) ||
	    u64map_add_at(&m->at, at, key, (uint32_t)m->n))
		return NULL;
	m->e[m->n] = (ix_entry){ NULL, what == IX_SYMTAB };
	return &m->e[m->n++];
}

static int is_fn(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

/* How many of the n entries (stride bytes apart, sorted by the u64 key at
 * offset off) have a key <= pc: a binary search. */
static size_t count_le(const void *v, size_t n, size_t stride, size_t off, uint64_t pc)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t key;
		memcpy(&key, (const char *)v + mid * stride + off, sizeof(key));
		if (key <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cu_add(cu_index *ix, uint64_t lo, uint64_t hi, Dwarf_Die *die, uint32_t parent)
{
	if (vec_grow((void **)&ix->v, &ix->cap, ix->n + 1, sizeof(*ix->v)))
		return -1;
	ix->v[ix->n++] = (fn_range){ lo, hi, *die, parent };
	return 0;
}

/* Walks the children of die; function DIEs with code become ranges. */
static int cu_walk(cu_index *ix, Dwarf_Die *die, uint32_t parent, int depth)
{
	Dwarf_Die c;
	if (depth > 64 || dwarf_child(die, &c) != 0)
		return 0;
	do {
		uint32_t me = parent;
		if (is_fn(dwarf_tag(&c))) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			uint32_t first = (uint32_t)ix->n;
			while ((off = dwarf_ranges(&c, off, &base, &lo, &hi)) > 0)
				if (hi > lo && cu_add(ix, lo, hi, &c, parent))
					return -1;
			if (ix->n == first)
				continue; /* abstract or declaration: no code here */
			me = first;
		}
		if (dwarf_haschildren(&c) > 0 && cu_walk(ix, &c, me, depth + 1))
			return -1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const fn_range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->parent < y->parent ? -1 : x->parent > y->parent;
}

static cu_index *cu_index_get(sym *s, Dwfl_Module *dm, Dwarf_Die *cu)
{
	ix_entry *sl = ix_find(s, dm, dwarf_dieoffset(cu));
	if (!sl)
		return NULL;
	if (sl->val)
		return sl->val;
	cu_index *ix = calloc(1, sizeof(*ix));
	if (!ix || cu_walk(ix, cu, UINT32_MAX, 0)) {
		if (ix)
			free(ix->v);
		free(ix);
		return NULL;
	}
	/* Sort by start, keeping parents: parent links are remapped through
	 * the permutation; ties keep walk order (outer first). */
	size_t n = ix->n;
	uint32_t *order = malloc((n ? n : 1) * sizeof(*order));
	fn_range *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	ix->maxhi = malloc((n ? n : 1) * sizeof(*ix->maxhi));
	if (!order || !tmp || !ix->maxhi) {
		free(order);
		free(tmp);
		free(ix->maxhi);
		free(ix->v);
		free(ix);
		return NULL;
	}
	memcpy(tmp, ix->v, n * sizeof(*tmp));
	for (size_t i = 0; i < n; i++)
		ix->v[i].parent = (uint32_t)i; /* the walk order, for the sort */
	qsort(ix->v, n, sizeof(*ix->v), range_cmp);
	for (size_t i = 0; i < n; i++)
		order[ix->v[i].parent] = (uint32_t)i;
	for (size_t i = 0; i < n; i++) {
		uint32_t op = tmp[ix->v[i].parent].parent;
		ix->v[i].parent = op == UINT32_MAX ? UINT32_MAX : order[op];
	}
	for (size_t i = 0; i < n; i++)
		ix->maxhi[i] = i && ix->maxhi[i - 1] > ix->v[i].hi ? ix->maxhi[i - 1] : ix->v[i].hi;
	free(order);
	free(tmp);
	sl->val = ix;
	return ix;
}

int sym_fn_scopes(sym *s, Dwfl_Module *dm, Dwarf_Die *cu, uint64_t pc, Dwarf_Die *out, int max)
{
	cu_index *ix = cu_index_get(s, dm, cu);
	if (!ix || !ix->n)
		return 0;
	/* Last range starting at or before pc. */
	size_t lo = count_le(ix->v, ix->n, sizeof(*ix->v), offsetof(fn_range, lo), pc);
	/* Ranges nest, so the containing one that starts last is innermost;
	 * on equal starts the later (inner) one comes first going back. */
	size_t i = lo;
	uint32_t in = UINT32_MAX;
	while (i-- > 0) {
		if (ix->maxhi[i] <= pc)
			break;
		if (ix->v[i].hi > pc) {
			in = (uint32_t)i;
			break;
		}
	}
	int k = 0;
	for (; in != UINT32_MAX && k < max; in = ix->v[in].parent)
		out[k++] = ix->v[in].die;
	return k;
}

static int sym_cmp(const void *a, const void *b)
{
	const elf_sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* At one address: sized before unsized, global before local. */
	if ((x->size > 0) != (y->size > 0))
		return x->size > 0 ? 1 : -1;
	return x->global - y->global;
}

static sym_table *symtab_get(sym *s, Dwfl_Module *dm)
{
	ix_entry *sl = ix_find(s, dm, IX_SYMTAB);
	if (!sl)
		return NULL;
	if (sl->val)
		return sl->val;
	sym_table *t = calloc(1, sizeof(*t));
	int n = dwfl_module_getsymtab(dm);
	if (!t)
		return NULL;
	if (n > 0 && !(t->v = malloc((size_t)n * sizeof(*t->v)))) {
		free(t);
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		GElf_Sym gs;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(dm, i, &gs, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(gs.st_info);
		if (!name || !*name || gs.st_shndx == SHN_UNDEF || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE))
			continue;
		t->v[t->n++] = (elf_sym){ addr, gs.st_size, name, GELF_ST_BIND(gs.st_info) != STB_LOCAL };
	}
	qsort(t->v, t->n, sizeof(*t->v), sym_cmp);
	sl->val = t;
	return t;
}

const char *sym_elf_name(sym *s, Dwfl_Module *dm, uint64_t pc, uint64_t *start)
{
	sym_table *t = symtab_get(s, dm);
	if (!t || !t->n)
		return NULL;
	size_t lo = count_le(t->v, t->n, sizeof(*t->v), offsetof(elf_sym, addr), pc);
	/* At the greatest address <= pc the best symbol sorts last: a sized
	 * one must hold pc; an unsized one is the nearest label. */
	if (!lo)
		return NULL;
	const elf_sym *e = &t->v[lo - 1];
	if (e->size && pc >= e->addr + e->size)
		return NULL;
	if (start)
		*start = e->addr;
	return e->name;
}

void sym_index_free(sym *s)
{
	struct sym_ixmap *m = s->ix;
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		if (!m->e[i].val)
			continue;
		if (m->e[i].symtab) {
			sym_table *t = m->e[i].val;
			free(t->v);
			free(t);
		} else {
			cu_index *c = m->e[i].val;
			free(c->v);
			free(c->maxhi);
			free(c);
		}
	}
	u64map_free(&m->module);
	u64map_free(&m->at);
	free(m->e);
	free(m);
	s->ix = NULL;
}
