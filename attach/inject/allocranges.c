/* allocranges.c - the injection's view of the allocators the hook will
 * patch at their entry points (attach/shared/allocfam.c's rules, read from
 * the target's modules' symbol tables): each one's whole code counts as
 * allocator code for the safe point, so no thread is stopped inside it
 * (holding its lock, or with its pc in the bytes about to be rewritten)
 * when dlopen runs and the hook patches, nor when a detach puts the bytes
 * back.  The functions MPROF_FUNCS names count whole.  x86_64 only. */
#if defined(__x86_64__)
#include "attach/inject/inject_int.h"
#include "attach/shared/allocfam.h"
#include "attach/proc/procfs.h"
#include "core/path.h"
#include "core/vec.h"
#include "symbols/elffile.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct asym {
	uint64_t lo, hi;
	char *name;
	int global;
} asym;

typedef struct asym_list {
	asym *v;
	size_t n, cap;
	af_scan sc;
} asym_list;

static int asym_add(void *arg, const elf_symbol *s)
{
	asym_list *l = arg;
	if (vec_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return 1;
	char *name = strdup(s->name);
	if (!name)
		return 1;
	l->v[l->n++] = (asym){ s->value, s->end, name,
			       s->bind == STB_GLOBAL || s->bind == STB_WEAK };
	af_note(&l->sc, name);
	return 0;
}

static int asym_cmp(const void *a, const void *b)
{
	const asym *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int has_name(void *arg, const char *name)
{
	const asym_list *l = arg;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return 1;
	return 0;
}

/* The runs of f's code among the sorted symbols: from one of its symbols
 * to the last before a global symbol of someone else (static helpers in
 * between count as its own). */
static int add_runs(session *s, const asym_list *l, const af_found *f, uint64_t bias)
{
	uint64_t lo = 0, hi = 0;
	int open = 0;
	for (size_t i = 0; i < l->n; i++) {
		const asym *a = &l->v[i];
		if (af_code_of(f->kind, f->prefix, a->name)) {
			if (!open)
				lo = a->lo;
			open = 1;
			hi = a->hi > hi ? a->hi : hi;
		} else if (a->global && open && a->lo >= hi) {
			if (inj_range_add(s, lo + bias, hi + bias, R_ALLOC))
				return -1;
			open = 0;
			hi = 0;
		}
	}
	return open ? inj_range_add(s, lo + bias, hi + bias, R_ALLOC) : 0;
}

/* The named functions of spec that path defines, whole. */
static int add_user(session *s, const asym_list *l, const af_user *u, int nu, uint64_t bias)
{
	for (size_t i = 0; i < l->n; i++)
		for (int k = 0; k < nu; k++)
			if (!strcmp(l->v[i].name, u[k].name) && inj_range_add(s, l->v[i].lo + bias, l->v[i].hi + bias, R_ALLOC))
				return -1;
	return 0;
}

static int scan_module(session *s, const char *path, int is_exe, const af_user *u, int nu)
{
	asym_list l;
	memset(&l, 0, sizeof(l));
	elffile_layout lay;
	uint64_t bias;
	int rc = 0;
	char file[4200];
	if (elffile_syms(inj_file(s, path, file, sizeof(file)), ELFFILE_DYNSYM | ELFFILE_SYMTAB | ELFFILE_CODE, &lay, asym_add, &l) < 0 ||
	    inj_module_bias(s, path, lay.vaddr0, &bias))
		goto done;   /* unreadable: nothing the hook could read either */
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), asym_cmp);
	af_found f[AF_MAX_PREFIX + 3];
	int nf = af_finish(&l.sc, is_exe, has_name, &l, f, (int)(sizeof(f) / sizeof(f[0])));
	for (int k = 0; k < nf && !rc; k++)
		rc = add_runs(s, &l, &f[k], bias);
	if (!rc && nu)
		rc = add_user(s, &l, u, nu, bias);
done:
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i].name);
	free(l.v);
	return rc;
}

static int is_skipped(const char *path)
{
	const char *b = path_base(path);
	return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5) || !strncmp(b, "ld-linux", 8) ||
	       proc_is_hook_path(path) || !strncmp(b, "libjemalloc", 11) || !strncmp(b, "libtcmalloc", 11);
}

int inj_alloc_ranges(session *s, const char *exe)
{
	static af_user u[AF_USER_MAX];
	const char *spec = getenv("MPROF_FUNCS");
	char why[160];
	int nu = spec && *spec ? af_user_parse(spec, u, AF_USER_MAX, why, sizeof(why)) : 0;
	if (nu < 0)
		nu = 0;   /* the hook says why */
	for (size_t i = 0; i < s->nmaps; i++) {
		const vmap *m = &s->maps[i];
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = s->maps[j].exec && !strcmp(s->maps[j].path, m->path);
		if (!m->exec || m->path[0] != '/' || seen || is_skipped(m->path))
			continue;
		if (scan_module(s, m->path, !strcmp(m->path, exe), u, nu))
			return -1;
	}
	return 0;
}

#endif
