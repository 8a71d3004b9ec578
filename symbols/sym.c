/* sym.c - the resolver: finds the profile's modules on this machine,
 * reports them to libdwfl at their recorded load bias, and turns addresses
 * into function, file:line and inline chain the way eu-addr2line -f -i -C
 * does (elfutils src/addr2line.c is the model). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/v1name.h"
#include "symbols/sym.h"
#include "symbols/sym_int.h"

/* libstdc++'s demangler (linked with -lstdc++), as eu-addr2line -C uses. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

/* ---- arena: stable strings and chains, freed at sym_close ---------------- */

typedef struct arena_blk {
	struct arena_blk *next;
	size_t used, cap;
	max_align_t data[];
} arena_blk;

void *sym_arena_alloc(sym *s, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	arena_blk *b = s->arena;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = s->arena;
		b->used = 0;
		b->cap = cap;
		s->arena = b;
	}
	void *r = (char *)b->data + b->used;
	b->used += n;
	return r;
}

char *sym_arena_strndup(sym *s, const char *str, size_t n)
{
	char *r = sym_arena_alloc(s, n + 1);
	if (r) {
		memcpy(r, str, n);
		r[n] = 0;
	}
	return r;
}

static char *arena_strdup(sym *s, const char *str)
{
	return str ? sym_arena_strndup(s, str, strlen(str)) : NULL;
}

/* ---- module table ------------------------------------------------------ */

/* The module of that path (and build-id, when both are known: a diff
 * holds two builds of one path), added when new. */
static smod *module_get(sym *s, const char *path, size_t len, const char *build_id)
{
	for (size_t i = 0; i < s->nmods; i++)
		if (strlen(s->mods[i].path) == len && !memcmp(s->mods[i].path, path, len) &&
		    (!build_id || !s->mods[i].build_id || !strcmp(build_id, s->mods[i].build_id)))
			return &s->mods[i];
	if (s->nmods == s->capmods) {
		size_t cap = s->capmods ? s->capmods * 2 : 16;
		smod *nm = realloc(s->mods, cap * sizeof(*nm));
		if (!nm)
			return NULL;
		s->mods = nm;
		s->capmods = cap;
	}
	smod *m = &s->mods[s->nmods];
	memset(m, 0, sizeof(*m));
	m->path = sym_arena_strndup(s, path, len);
	if (!m->path)
		return NULL;
	s->nmods++;
	return m;
}

/* Computes the bias from the recorded facts and reports the module. */
static void module_report(sym *s, smod *m)
{
	int fd;
	Elf *elf;
	if (sym_elf_open(m->local, &fd, &elf)) {
		m->why = "not an ELF file";
		return;
	}
	GElf_Ehdr eh;
	int is_exec = gelf_getehdr(elf, &eh) && eh.e_type == ET_EXEC;
	if (is_exec) {
		m->bias = 0;
		m->have_bias = 1;
	} else if (m->have_base) {
		uint64_t va;
		if (!sym_elf_offset_vaddr(elf, m->base_off, &va)) {
			m->bias = m->base - va;
			m->have_bias = 1;
		}
	} else if (!m->have_bias && m->anchor_sym) {
		uint64_t v;
		if (!sym_elf_symbol_value(elf, m->anchor_sym, strlen(m->anchor_sym), &v)) {
			m->bias = m->anchor_addr - m->anchor_off - v;
			m->have_bias = 1;
		}
	}
	elf_end(elf);
	if (!m->have_bias) {
		close(fd);
		m->why = "load address unknown";
		return;
	}
	/* fd is consumed by libdwfl on success. */
	m->dm = dwfl_report_elf(s->dwfl, m->path, m->local, fd, m->bias, true);
	if (!m->dm) {
		close(fd);
		m->why = "overlaps another module";
		return;
	}
	void **ud;
	dwfl_module_info(m->dm, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = (void *)(uintptr_t)(m - s->mods + 1);
}

static const Dwfl_Callbacks file_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};
static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

static char **dup_list(const char *const *l)
{
	size_t n = 0;
	while (l && l[n])
		n++;
	char **r = calloc(n + 1, sizeof(*r));
	for (size_t i = 0; r && i < n; i++)
		if (!(r[i] = strdup(l[i])))
			return r;
	return r;
}

static void free_list(char **l)
{
	for (size_t i = 0; l && l[i]; i++)
		free(l[i]);
	free(l);
}

sym *sym_open(const prof *p, const sym_opts *o)
{
	sym *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->p = p;
	if (o)
		s->opts = *o;
	s->roots = dup_list(s->opts.roots);
	s->search = dup_list(s->opts.search_paths);
	s->srcdirs = dup_list(s->opts.source_dirs);
	s->opts.roots = (const char *const *)s->roots;
	s->opts.search_paths = (const char *const *)s->search;
	s->opts.source_dirs = (const char *const *)s->srcdirs;
	s->frames = calloc(p->frames.len ? p->frames.len : 1, sizeof(*s->frames));
	if (!s->roots || !s->search || !s->srcdirs || !s->frames) {
		sym_close(s);
		return NULL;
	}
	if (s->opts.profile_path) {
		const char *sl = strrchr(s->opts.profile_path, '/');
		s->profile_dir = sl ? strndup(s->opts.profile_path, (size_t)(sl - s->opts.profile_path) + (sl == s->opts.profile_path))
				    : strdup(".");
	}
	elf_version(EV_CURRENT);
	/* With no_symbols nothing is read: names and modules as recorded. */
	if (!s->opts.no_symbols)
		s->dwfl = dwfl_begin(s->opts.pid > 0 ? &proc_callbacks : &file_callbacks);
	if (s->dwfl)
		dwfl_report_begin(s->dwfl);
	/* (a) the module table, with build-ids and bases. */
	for (size_t i = 0; i < p->modules.len; i++) {
		const prof_module *pm = &p->modules.v[i];
		const char *path = prof_strat(p, pm->path);
		if (!path || !*path || *path == '[')
			continue;
		smod *m = module_get(s, path, strlen(path), prof_strat(p, pm->build_id));
		if (!m)
			continue;
		if (pm->build_id != PROF_NONE && !m->build_id)
			m->build_id = arena_strdup(s, prof_strat(p, pm->build_id));
		if (pm->peer && pm->peer <= p->modules.len && !m->ident) {
			m->ident = prof_strat(p, p->modules.v[pm->peer - 1].path);
			s->peers = 1;
		}
		if (!m->have_base) {
			m->base = pm->base;
			m->base_off = pm->offset;
			m->have_base = 1;
		}
	}
	/* (b) paths in v1 names; the bias is addr - off of a "(+0xoff)" name,
	 * or addr - off - value of the symbol of a "(sym+0xoff)" one. */
	for (uint32_t f = 0; f < p->frames.len; f++) {
		const char *name = prof_strat(p, p->frames.v[f].name);
		v1name vn;
		if (!name || v1name_parse(name, V1NAME_STRICT, &vn) || vn.path[0] == '[')
			continue;
		smod *m = module_get(s, vn.path, vn.path_len, NULL);
		if (!m)
			continue;
		s->frames[f].mod = (uint32_t)(m - s->mods) + 1;
		uint64_t addr = p->frames.v[f].addr;
		int has_off = (vn.parts & V1NAME_OFF) != 0;
		if (has_off && !vn.sym_len && !m->have_bias && !m->have_base) {
			m->bias = addr - vn.off;
			m->have_bias = 1;
		} else if (has_off && vn.sym_len && !m->anchor_sym) {
			m->anchor_sym = sym_arena_strndup(s, vn.sym, vn.sym_len);
			m->anchor_addr = addr;
			m->anchor_off = vn.off;
		}
	}
	if (!s->dwfl)
		return s;
	for (size_t i = 0; i < s->nmods; i++) {
		smod *m = &s->mods[i];
		sym_module_locate(s, m);
		if (m->local)
			module_report(s, m);
	}
	/* (c) a live process: its maps, found by libdwfl itself. */
	if (s->opts.pid > 0)
		dwfl_linux_proc_report(s->dwfl, (pid_t)s->opts.pid);
	dwfl_report_end(s->dwfl, NULL, NULL);
	for (size_t i = 0; i < s->nmods; i++) {
		smod *m = &s->mods[i];
		if (m->dm) {
			s->nfound++;
			continue;
		}
		if (s->nmissing == s->capmissing) {
			size_t cap = s->capmissing ? 2 * s->capmissing : 8;
			sym_missing_module *nm = realloc(s->missing, cap * sizeof(*nm));
			if (!nm)
				break;
			s->missing = nm;
			s->capmissing = cap;
		}
		s->missing[s->nmissing++] = (sym_missing_module){ m->path, m->why ? m->why : "not found" };
	}
	return s;
}

void sym_close(sym *s)
{
	if (!s)
		return;
	sym_index_free(s);
	if (s->dwfl)
		dwfl_end(s->dwfl);
	for (size_t i = 0; i < s->nmods; i++)
		free(s->mods[i].local);
	free(s->mods);
	free(s->missing);
	free(s->frames);
	u64map_free(&s->cache.by_addr[0]);
	u64map_free(&s->cache.by_addr[1]);
	free(s->cache.info);
	free(s->profile_dir);
	free_list(s->roots);
	free_list(s->search);
	free_list(s->srcdirs);
	for (arena_blk *b = s->arena, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	free(s);
}

size_t sym_missing(sym *s, const sym_missing_module **list)
{
	*list = s->missing;
	return s->nmissing;
}

size_t sym_modules_found(const sym *s)
{
	return s->nfound;
}

/* ---- resolution -------------------------------------------------------- */

/* A demangled copy of a _Z name (other names as they are), in the arena. */
static const char *demangle(sym *s, const char *name, size_t len)
{
	if (len > 2 && name[0] == '_' && name[1] == 'Z') {
		char tmp[1024];
		if (len < sizeof(tmp)) {
			memcpy(tmp, name, len);
			tmp[len] = 0;
			int st;
			char *d = __cxa_demangle(tmp, NULL, NULL, &st);
			if (d) {
				const char *r = arena_strdup(s, d);
				free(d);
				return r;
			}
		}
	}
	return sym_arena_strndup(s, name, len);
}

/* The name eu-addr2line prints for a function DIE: linkage name first. */
static const char *die_func_name(sym *s, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (!n)
		n = dwarf_diename(die);
	if (!n) {
		Dwarf_Die org;
		if (dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_abstract_origin, &a), &org))
			n = dwarf_diename(&org);
	}
	return n ? demangle(s, n, strlen(n)) : NULL;
}

static int die_udata(Dwarf_Die *die, unsigned name, Dwarf_Word *v)
{
	Dwarf_Attribute a;
	return dwarf_formudata(dwarf_attr(die, name, &a), v);
}

/* A relative file name joined to the unit's DW_AT_comp_dir, as
 * eu-addr2line prints it (arena copy when joined). */
static const char *cu_file(sym *s, Dwarf_Die *cu, const char *file)
{
	Dwarf_Attribute a;
	const char *dir;
	if (!file || file[0] == '/' || !(dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a))))
		return file;
	size_t dl = strlen(dir), fl = strlen(file);
	char *r = sym_arena_alloc(s, dl + fl + 2);
	if (!r)
		return file;
	memcpy(r, dir, dl);
	r[dl] = '/';
	memcpy(r + dl + 1, file, fl + 1);
	return r;
}

/* Fills si from DWARF: the scopes holding pc, innermost first; 0 or -1. */
static int resolve_dwarf(sym *s, Dwfl_Module *dm, Dwarf_Addr pc, sym_info *si)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(dm, pc, &bias);
	if (!cu)
		return -1;
	const char *file = NULL;
	int line = 0;
	Dwfl_Line *ln = dwfl_module_getsrc(dm, pc);
	if (ln)
		file = dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL);
	file = cu_file(s, cu, file);
	Dwarf_Die scopes[64];
	int n = sym_fn_scopes(s, dm, cu, pc - bias, scopes, 64);
	sym_loc lv[64];
	int k = 0;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	for (int i = 0; i < n; i++) {
		int t = dwarf_tag(&scopes[i]);
		lv[k++] = (sym_loc){ die_func_name(s, &scopes[i]), arena_strdup(s, file), line, 0 };
		if (t != DW_TAG_inlined_subroutine)
			break; /* the out-of-line function ends the chain */
		lv[k - 1].inlined = 1;
		/* The caller's place is this inline instance's call site. */
		Dwarf_Word cf = 0, cl = 0;
		file = NULL;
		line = 0;
		if (!die_udata(&scopes[i], DW_AT_call_file, &cf)) {
			if (!files)
				dwarf_getsrcfiles(cu, &files, &nfiles);
			if (files && cf < nfiles)
				file = cu_file(s, cu, dwarf_filesrc(files, cf, NULL, NULL));
		}
		if (!die_udata(&scopes[i], DW_AT_call_line, &cl))
			line = (int)cl;
	}
	/* ld.so reaches the program's allocator through inline functions named
	 * malloc, calloc, realloc and free (rtld-malloc.h): the allocation site
	 * is the caller's call of them, not the wrapper. */
	if (k > 1 && lv[0].inlined && lv[0].func &&
	    (!strcmp(lv[0].func, "malloc") || !strcmp(lv[0].func, "calloc") ||
	     !strcmp(lv[0].func, "realloc") || !strcmp(lv[0].func, "free"))) {
		memmove(lv, lv + 1, (size_t)(k - 1) * sizeof(*lv));
		k--;
	}
	if (k == 0) {
		if (!file)
			return -1;
		/* Line info without a function DIE: keep the place, ELF names it. */
		const char *nm = sym_elf_name(s, dm, pc, NULL);
		lv[k++] = (sym_loc){ nm ? demangle(s, nm, strlen(nm)) : NULL, arena_strdup(s, file), line, 0 };
	}
	sym_loc *c = sym_arena_alloc(s, (size_t)k * sizeof(*c));
	if (!c)
		return -1;
	memcpy(c, lv, (size_t)k * sizeof(*c));
	si->chain = c;
	si->nchain = (uint32_t)k;
	si->source = SYM_SRC_DWARF;
	return 0;
}

static int resolve_elf(sym *s, Dwfl_Module *dm, Dwarf_Addr pc, sym_info *si)
{
	const char *nm = sym_elf_name(s, dm, pc, NULL);
	if (!nm)
		return -1;
	sym_loc *c = sym_arena_alloc(s, sizeof(*c));
	if (!c)
		return -1;
	*c = (sym_loc){ demangle(s, nm, strlen(nm)), NULL, 0, 0 };
	si->chain = c;
	si->nchain = 1;
	si->source = SYM_SRC_ELF;
	return 0;
}

/* Without the module: the symbol of the recorded name, else nothing. */
static void resolve_raw(sym *s, const char *name, sym_info *si)
{
	sym_loc *c = sym_arena_alloc(s, sizeof(*c));
	if (!c)
		return;
	*c = (sym_loc){ NULL, NULL, 0, 0 };
	v1name vn;
	si->source = SYM_SRC_RAW;
	if (!name)
		;
	else if (!v1name_parse(name, V1NAME_STRICT, &vn)) {
		if (vn.sym_len) {
			c->func = demangle(s, vn.sym, vn.sym_len);
			si->source = SYM_SRC_RECORDED;
		}
	} else if (name[0] && name[0] != '[' && strncmp(name, "0x", 2)) {
		/* Formats that record function names (Go, folded stacks). */
		c->func = name;
		si->source = SYM_SRC_RECORDED;
	}
	si->chain = c;
	si->nchain = 1;
}

static sym_info *resolve(sym *s, uint64_t addr, int is_return, uint32_t frame)
{
	sym_info *si = sym_arena_alloc(s, sizeof(*si));
	if (!si)
		return NULL;
	memset(si, 0, sizeof(*si));
	si->addr = addr;
	const prof *p = s->p;
	if (frame == PROF_NONE)
		frame = prof_frame_find(p, addr);
	const char *name = frame != PROF_NONE ? prof_strat(p, p->frames.v[frame].name) : NULL;
	if (name) {
		si->raw = name;
	} else {
		char buf[32];
		snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
		si->raw = arena_strdup(s, buf);
	}
	uint64_t pc = addr - (is_return && addr ? 1 : 0);
	Dwfl_Module *dm = s->dwfl ? dwfl_addrmodule(s->dwfl, pc) : NULL;
	if (dm) {
		GElf_Addr bias = 0;
		if (dwfl_module_getelf(dm, &bias)) /* also sets the main file name */
			si->offset = pc - bias;
		const char *mainfile = NULL;
		si->module = dwfl_module_info(dm, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
		si->local = mainfile;
		if (!resolve_dwarf(s, dm, pc, si) || !resolve_elf(s, dm, pc, si))
			return si;
	} else {
		uint32_t mi = frame != PROF_NONE ? s->frames[frame].mod : 0;
		if (mi) {
			si->module = s->mods[mi - 1].path;
		} else {
			uint32_t pm = prof_module_find(p, addr);
			if (pm != PROF_NONE)
				si->module = prof_strat(p, p->modules.v[pm].path);
		}
	}
	resolve_raw(s, name, si);
	return si;
}

/* The path rows name si's module by (sym_info.ident). */
static const char *module_ident(const sym *s, const char *module)
{
	for (size_t i = 0; s->peers && module && i < s->nmods; i++)
		if (s->mods[i].ident && !strcmp(s->mods[i].path, module))
			return s->mods[i].ident;
	return module;
}

const sym_info *sym_resolve(sym *s, uint64_t addr, int is_return)
{
	is_return = !!is_return;
	uint32_t f = prof_frame_find(s->p, addr);
	if (f != PROF_NONE && is_return)
		return sym_frame(s, f);
	sym_cache *c = &s->cache;
	u64map *ix = &c->by_addr[is_return];
	if (!ix->vals && u64map_init(ix, 1024))
		return NULL;
	size_t at = u64map_slot(ix, addr);
	if (ix->vals[at] != U64MAP_NONE)
		return c->info[ix->vals[at]];
	if (c->n >= U64MAP_NONE || vec_grow((void **)&c->info, &c->cap, c->n + 1, sizeof(*c->info)))
		return NULL;
	sym_info *e = resolve(s, addr, is_return, f);
	if (!e || u64map_add_at(ix, at, addr, (uint32_t)c->n))
		return NULL;
	e->ident = module_ident(s, e->module);
	e->is_return = is_return;
	c->info[c->n++] = e;
	return e;
}

const sym_info *sym_frame(sym *s, uint32_t frame)
{
	if (frame >= s->p->frames.len)
		return NULL;
	sym_info *e = s->frames[frame].info;
	if (!e) {
		e = resolve(s, s->p->frames.v[frame].addr, 1, frame);
		if (e) {
			e->is_return = 1;
			e->ident = module_ident(s, e->module);
		}
		s->frames[frame].info = e;
	}
	return e;
}

const char *sym_func_name(const sym_info *si)
{
	return si->chain[0].func ? si->chain[0].func : si->raw;
}

size_t sym_chain_text(const sym_info *si, char *buf, size_t len)
{
	size_t n = 0;
	if (len)
		buf[0] = 0;
	for (uint32_t i = 0; i < si->nchain; i++) {
		const sym_loc *l = &si->chain[i];
		int w = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s\n%s:%d\n",
				 l->func ? l->func : "??", l->file ? l->file : "??", l->line);
		if (w > 0)
			n += (size_t)w;
	}
	return n;
}

int sym_frame_symbol(sym *s, uint32_t frame, const char **name, size_t *len, uint64_t *off)
{
	const prof *p = s->p;
	if (frame >= p->frames.len)
		return -1;
	uint64_t addr = p->frames.v[frame].addr;
	const char *rec = prof_strat(p, p->frames.v[frame].name);
	v1name vn;
	if (rec && !v1name_parse(rec, V1NAME_STRICT, &vn) && vn.sym_len && vn.sign == '+' &&
	    !(vn.parts & V1NAME_CUT)) {
		*name = vn.sym;
		*len = vn.sym_len;
		*off = vn.off;
		return 0;
	}
	/* A return address may lie just past its function: look up pc - 1. */
	Dwfl_Module *dm = s->dwfl && addr ? dwfl_addrmodule(s->dwfl, addr - 1) : NULL;
	uint64_t start = 0;
	const char *nm = dm ? sym_elf_name(s, dm, addr - 1, &start) : NULL;
	if (!nm)
		return -1;
	*name = nm;
	*len = strlen(nm);
	*off = addr - start;
	return 0;
}
