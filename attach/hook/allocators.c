/* allocators.c - the allocators that symbol interposition and GOT slots do
 * not reach: found in every loaded module, the executable included, from
 * their symbols (allocfam.c says which), and hooked at their entry points
 * (entry.c), all of an allocator's functions or none.  Done once at start:
 * under LD_PRELOAD before the program's own code runs, when injected with
 * the program's threads stopped at a safe point (mprof-tui checks that no
 * thread is inside the code to be patched).  Each allocator keeps its
 * blocks under its own tag in the live table (entry_wrap.c); the one whose
 * functions include the program's malloc shares tag 0 with the interposed
 * and GOT paths, so a block is found whichever way it is freed.  The segment's
 * allocator table says what was found and how each is reached.  Modules
 * loaded later (dlopen) are not patched. */
#include "attach/hook/hook.h"
#include "core/path.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#define MAX_MODS 512

typedef struct mod {
	char path[SEG_MOD_PATH];
	uint64_t bias, lo, hi;   /* load bias; its code, [lo, hi) */
	int is_exe;
} mod;

typedef struct alloc {
	entry_alloc ea;
	int kind, mod, how, flags;
	char prefix[24];
	int first, n;            /* its functions' slots */
	int quiet;               /* refused, but nothing to say on stderr */
	char note[200];
} alloc;

/* A function to patch, before it has a slot. */
typedef struct cand {
	uint64_t addr, size;
	int mod;
	const af_member *m;
	char name[64];
} cand;

static mod mods[MAX_MODS];
static int nmods;
static alloc allocs[SEG_ALLOC_CAP];
static int nallocs, nslots;
static cand cands[ENTRY_MAX];
static seg_header *seg;
static int lock_;

static void lock(void)
{
	while (__atomic_exchange_n(&lock_, 1, __ATOMIC_ACQUIRE))
		;
}

static void unlock(void)
{
	__atomic_store_n(&lock_, 0, __ATOMIC_RELEASE);
}

/* ---- the modules ----------------------------------------------------------- */

static int mod_add(struct dl_phdr_info *info, size_t sz, void *arg)
{
	(void)sz;
	int *first = arg, is_exe = *first;
	*first = 0;
	Dl_info self;
	const char *b = path_base(info->dlpi_name ? info->dlpi_name : "");
	if (nmods == MAX_MODS || (info->dlpi_addr && info->dlpi_addr == getauxval(AT_SYSINFO_EHDR)) ||
	    !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5) || !strncmp(b, "ld-linux", 8) ||
	    (dladdr((void *)mod_add, &self) && (uint64_t)(uintptr_t)self.dli_fbase == info->dlpi_addr))
		return 0;
	mod *m = &mods[nmods];
	if (is_exe) {
		m->path[0] = 0;   /* from its mapping, once its code's address is known: below */
	} else if (info->dlpi_name && info->dlpi_name[0] == '/') {
		snprintf(m->path, sizeof(m->path), "%s", info->dlpi_name);
	} else {
		return 0;
	}
	m->lo = UINT64_MAX;
	m->hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uint64_t a = info->dlpi_addr + ph->p_vaddr;
		m->lo = a < m->lo ? a : m->lo;
		m->hi = a + ph->p_memsz > m->hi ? a + ph->p_memsz : m->hi;
	}
	m->bias = info->dlpi_addr;
	m->is_exe = is_exe;
	if (is_exe && m->lo < m->hi)
		procmaps_exe_path(m->lo, m->path, sizeof(m->path));
	if (m->path[0] && m->lo < m->hi)
		nmods++;
	return 0;
}

static int in_mod(const mod *m, uint64_t a)
{
	return a >= m->lo && a < m->hi;
}

static int has_fn(void *arg, const char *name)
{
	struct elfsym *e = arg;
	uint64_t v, s;
	int ifunc;
	const char *n;
	for (size_t i = 0; (n = elfsym_at(e, i, &v, &s, &ifunc)); i++)
		if (!strcmp(n, name))
			return 1;
	return 0;
}

/* Adds the function at addr to the candidates unless an alias put it there. */
static int cand_add(int *nc, uint64_t addr, uint64_t size, int mi, const af_member *m, const char *name)
{
	for (int k = 0; k < *nc; k++)
		if (cands[k].addr == addr)
			return 0;
	if (*nc == ENTRY_MAX)
		return -1;
	cands[*nc] = (cand){ addr, size, mi, m, "" };
	snprintf(cands[*nc].name, sizeof(cands[0].name), "%s", name);
	(*nc)++;
	return 0;
}

/* ---- patching ---------------------------------------------------------------- */

static const char *kind_name(int kind)
{
	static const char *const n[] = { "?", "malloc", "jemalloc", "tcmalloc", "mimalloc", "own malloc", "MPROF_FUNCS" };
	return kind > 0 && kind <= SEG_AK_USER ? n[kind] : "?";
}

static char slot_name[ENTRY_MAX][64];   /* each patched function's name, for messages */

/* Prepares a's nc candidates' trampolines and wrappers, all or none; a->how
 * and a->note say which.  The jumps are written by alloc_apply, once every
 * trampoline is executable. */
static void alloc_prepare(alloc *a, int nc)
{
	char why[160];
	a->first = nslots;
	a->n = 0;
	if (nslots + nc > ENTRY_MAX) {
		a->how = SEG_HOW_REFUSED;
		snprintf(a->note, sizeof(a->note), "more than %d functions to patch in all", ENTRY_MAX);
		return;
	}
	for (int k = 0; k < nc; k++) {
		const cand *c = &cands[k];
		const mod *m = &mods[c->mod];
		void *t = entry_prepare(nslots + k, c->addr, c->size, m->lo, m->hi, m->is_exe,
					entry_wrappers[nslots + k], why, sizeof(why));
		if (!t) {
			a->how = SEG_HOW_REFUSED;
			snprintf(a->note, sizeof(a->note), "%.60s: %.130s", c->name, why);
			return;
		}
		entry_fns[nslots + k] = (entry_fn){ t, &a->ea, c->m->role, c->m->a0, c->m->a1, 0 };
		memcpy(slot_name[nslots + k], c->name, sizeof(slot_name[0]));
	}
	a->how = SEG_HOW_ENTRY;
	a->n = nc;
	nslots += nc;
	snprintf(a->note, sizeof(a->note), "%d functions (%.60s%s)", nc, cands[0].name, nc > 1 ? ", ..." : "");
}

/* Writes the jumps of a prepared allocator, all or none. */
static void alloc_apply(alloc *a)
{
	for (int i = a->first; i < a->first + a->n; i++)
		if (entry_apply(i)) {
			a->how = SEG_HOW_REFUSED;
			snprintf(a->note, sizeof(a->note), "%.60s: its code cannot be written", slot_name[i]);
			while (i-- > a->first)
				entry_restore(i);
			a->n = 0;
			return;
		}
}

static int tags;

static alloc *alloc_new(int kind, const char *prefix, int mi)
{
	if (nallocs == SEG_ALLOC_CAP - 1)   /* one entry is the program's malloc */
		return NULL;
	alloc *a = &allocs[nallocs++];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->mod = mi;
	snprintf(a->prefix, sizeof(a->prefix), "%s", prefix);
	a->ea.user = kind == SEG_AK_USER;
	return a;
}

/* Tag 0 (the program's malloc, however reached) for the allocator one of
 * whose functions is the program's malloc; its own for any other, even in
 * the same module: under a malloc that wraps je_malloc with a 16-byte
 * header, malloc(0)'s pointer (past the header) is where the next block
 * of a direct je_malloc starts, and one key held both. */
static void alloc_tag(alloc *a, int provides)
{
	if (provides)
		a->flags = SEG_AF_PROVIDER;
	else
		a->ea.key = (uint64_t)++tags << ENTRY_TAG_SHIFT;
}

/* The allocators of module mi (af_finish), each with its functions. */
static void scan_module(int mi, uint64_t malloc_at, const char *skip)
{
	mod *m = &mods[mi];
	struct elfsym *e = elfsym_open(m->path);
	if (!e)
		return;
	af_scan sc;
	memset(&sc, 0, sizeof(sc));
	uint64_t v, s;
	int ifunc;
	const char *n;
	for (size_t i = 0; (n = elfsym_at(e, i, &v, &s, &ifunc)); i++)
		af_note(&sc, n);
	af_found f[AF_MAX_PREFIX + 3];
	int nf = af_finish(&sc, m->is_exe, has_fn, e, f, (int)(sizeof(f) / sizeof(f[0])));
	for (int k = 0; k < nf; k++) {
		alloc *a = alloc_new(f[k].kind, f[k].prefix, mi);
		if (!a)
			break;
		int nc = 0, full = 0, provides = 0;
		for (size_t i = 0; (n = elfsym_at(e, i, &v, &s, &ifunc)); i++) {
			int j = ifunc ? -1 : af_member_of(f[k].kind, f[k].prefix, n);
			if (j >= 0) {
				full |= cand_add(&nc, m->bias + v, s, mi, &af_members(f[k].kind)[j], n);
				provides |= m->bias + v == malloc_at;
			}
		}
		alloc_tag(a, provides);
		if (skip) {
			a->how = SEG_HOW_REFUSED;
			snprintf(a->note, sizeof(a->note), "%s", skip);
		} else if (full) {
			a->how = SEG_HOW_REFUSED;
			snprintf(a->note, sizeof(a->note), "more than %d functions", ENTRY_MAX);
		} else {
			alloc_prepare(a, nc);
		}
	}
	elfsym_close(e);
}

/* The functions MPROF_FUNCS names, each in the first module defining it. */
static void scan_user(const char *spec, const char *skip)
{
	static af_user u[AF_USER_MAX];
	char why[160];
	int nu = af_user_parse(spec, u, AF_USER_MAX, why, sizeof(why));
	if (nu < 0) {
		hook_say("MPROF_FUNCS: ", why, "; none of them is hooked");
		return;
	}
	int nc = 0, first_mod = -1;
	for (int mi = 0; mi < nmods; mi++) {
		struct elfsym *e = elfsym_open(mods[mi].path);
		uint64_t v, s;
		int ifunc;
		const char *n;
		for (size_t i = 0; e && (n = elfsym_at(e, i, &v, &s, &ifunc)); i++)
			for (int j = 0; j < nu; j++)
				if (u[j].name[0] && !ifunc && !strcmp(n, u[j].name)) {
					cand_add(&nc, mods[mi].bias + v, s, mi, &u[j].m, n);
					u[j].name[0] = 0;   /* the first definition only */
					first_mod = first_mod < 0 ? mi : first_mod;
				}
		elfsym_close(e);
	}
	/* Names no module defines are said in the table only: every program
	 * a hooked script runs inherits MPROF_FUNCS. */
	char missing[120] = "";
	for (int j = 0; j < nu; j++)
		if (u[j].name[0])
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), "%s%.60s",
				 missing[0] ? ", " : "", u[j].name);
	alloc *a = alloc_new(SEG_AK_USER, "", first_mod < 0 ? 0 : first_mod);
	if (!a || !nmods)
		return;
	alloc_tag(a, 0);
	if (!nc || skip) {
		a->how = SEG_HOW_REFUSED;
		snprintf(a->note, sizeof(a->note), "%s%s", nc ? skip : "no loaded module defines ", nc ? "" : missing);
		a->quiet = !nc;
	} else {
		alloc_prepare(a, nc);
		if (missing[0] && a->how == SEG_HOW_ENTRY)
			snprintf(a->note + strlen(a->note), sizeof(a->note) - strlen(a->note), "; not found: %s", missing);
	}
}

/* ---- the segment's table ------------------------------------------------------ */

static void table_put(seg_alloc *t, int kind, int how, int flags, int nfuncs, const char *prefix,
		      const char *note, const char *path)
{
	memset(t, 0, sizeof(*t));
	t->kind = (uint32_t)kind;
	t->how = (uint32_t)how;
	t->flags = (uint32_t)flags;
	t->nfuncs = (uint32_t)nfuncs;
	snprintf(t->prefix, sizeof(t->prefix), "%s", prefix);
	snprintf(t->note, sizeof(t->note), "%s", note);
	snprintf(t->path, sizeof(t->path), "%s", path);
}

/* The program's malloc: which module provides it and how calls reach it. */
static void table_provider(seg_alloc *t, void *malloc_fn)
{
	Dl_info di;
	char path[SEG_MOD_PATH] = "";
	int kind = SEG_AK_SYSTEM;
	for (int i = 0; i < nmods; i++)
		if (in_mod(&mods[i], (uint64_t)(uintptr_t)malloc_fn)) {
			memcpy(path, mods[i].path, sizeof(path));
			kind = mods[i].is_exe ? SEG_AK_OWN : kind;
			for (int k = 0; k < nallocs; k++)
				if (allocs[k].mod == i && (allocs[k].flags & SEG_AF_PROVIDER))
					kind = allocs[k].kind;
		}
	if (!path[0] && malloc_fn && dladdr(malloc_fn, &di) && di.dli_fname)
		snprintf(path, sizeof(path), "%s", di.dli_fname);
	const char *b = path_base(path);
	if (!strncmp(b, "libjemalloc", 11))
		kind = SEG_AK_JEMALLOC;
	else if (!strncmp(b, "libtcmalloc", 11))
		kind = SEG_AK_TCMALLOC;
	else if (!strncmp(b, "libmimalloc", 11))
		kind = SEG_AK_MIMALLOC;
	table_put(t, kind, got_slots_only() ? SEG_HOW_GOT : SEG_HOW_INTERPOSED, SEG_AF_PROVIDER, 0, "",
		  got_slots_only() ? "the program's malloc family, through its callers' GOT slots"
			     : "the program's malloc family, by symbol interposition", path);
}

static void table_write(void)
{
	if (!seg || !seg->alloc_off)
		return;
	seg_allocs *h = (seg_allocs *)((char *)seg + seg->alloc_off);
	seg_alloc *t = (seg_alloc *)(h + 1);
	table_provider(&t[0], hook_c_fns[HF_MALLOC].real);
	for (int k = 0; k < nallocs; k++) {
		alloc *a = &allocs[k];
		table_put(&t[k + 1], a->kind, a->how, a->flags, a->n, a->prefix, a->note, mods[a->mod].path);
	}
	__atomic_store_n(&h->count, (uint32_t)nallocs + 1, __ATOMIC_RELEASE);
}

int allocators_start(seg_header *h)
{
	lock();
	seg = h;
	int first = 1, patch = (int)hook_env_num("MPROF_ENTRY", 1, 0, 1);
	nmods = 0;
	dl_iterate_phdr(mod_add, &first);
	uint64_t malloc_at = (uint64_t)(uintptr_t)hook_c_fns[HF_MALLOC].real;
	int ready = patch && !entry_begin();
	const char *skip = ready ? NULL : patch ? "the disassembler (capstone) could not start" : "not patched: MPROF_ENTRY=0";
	for (int i = 0; i < nmods; i++)
		scan_module(i, malloc_at, skip);
	const char *spec = getenv("MPROF_FUNCS");
	if (spec && *spec)
		scan_user(spec, skip);
	if (ready)
		entry_end();   /* the trampolines executable from here on */
	for (int k = 0; k < nallocs; k++)
		if (allocs[k].how == SEG_HOW_ENTRY)
			alloc_apply(&allocs[k]);
	for (int k = 0; k < nallocs; k++)
		if (allocs[k].how == SEG_HOW_REFUSED && patch && !allocs[k].quiet) {
			char what[300];
			snprintf(what, sizeof(what), "%s%s%s in %s: not hooked: ", kind_name(allocs[k].kind),
				 allocs[k].prefix[0] ? " " : "", allocs[k].prefix, mods[allocs[k].mod].path);
			hook_say(what, allocs[k].note, "");
		}
	table_write();
	unlock();
	return nslots;
}

/* Every patched allocator's entries: put back (restore) or patched again. */
static int all_entries(int restore)
{
	lock();
	int n = 0;
	seg_allocs *h = seg && seg->alloc_off ? (seg_allocs *)((char *)seg + seg->alloc_off) : NULL;
	for (int k = 0; k < nallocs; k++) {
		alloc *a = &allocs[k];
		if (a->how != SEG_HOW_ENTRY)
			continue;
		for (int i = a->first; i < a->first + a->n; i++)
			n += !(restore ? entry_restore(i) : entry_apply(i));
		if (restore)
			a->flags |= SEG_AF_RESTORED;
		else
			a->flags &= ~SEG_AF_RESTORED;
		if (h)
			__atomic_store_n(&((seg_alloc *)(h + 1))[k + 1].flags, (uint32_t)a->flags, __ATOMIC_RELEASE);
	}
	unlock();
	return n;
}

int allocators_restore(void)
{
	return all_entries(1);
}

int allocators_repatch(void)
{
	return all_entries(0);
}
