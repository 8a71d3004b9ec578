/* resolve.c - which function each entry point forwards to: the definition
 * the program's own symbol lookup reaches without the hook (hook.h,
 * hook_fn).  Called at start and, for an entry not yet defined then (a C++
 * runtime loaded later), on first use. */
#include "attach/hook/hook.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>

/* A C++ operator no library in the global scope defines (a C program
 * that dlopened a C++ library locally): its C++ runtime's definition. */
static int name_loaded(struct dl_phdr_info *info, size_t sz, void *arg)
{
	(void)sz;
	const char *n = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
	n = n ? n + 1 : info->dlpi_name ? info->dlpi_name : "";
	return !strncmp(n, (const char *)arg, strlen((const char *)arg));
}

static void *cxx_runtime_sym(const char *name, const void *self)
{
	static const char *const libs[] = { "libstdc++.so.6", "libc++.so.1", NULL };
	static const char *const stems[] = { "libstdc++.so", "libc++.so", NULL };
	for (int i = 0; libs[i]; i++) {
		/* dlopen(RTLD_NOLOAD) of a library not loaded still searches the disk for it: look first. */
		if (!dl_iterate_phdr(name_loaded, (void *)stems[i]))
			continue;
		void *h = dlopen(libs[i], RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			continue;
		void *f = dlsym(h, name);
		dlclose(h);
		if (f && f != self)
			return f;
	}
	return NULL;
}

/* The loaded modules' names and load addresses, in lookup order. */
typedef struct mod_list {
	const char *name[256];
	uint64_t base[256];
	int n;
} mod_list;

static int mod_list_add(struct dl_phdr_info *info, size_t sz, void *arg)
{
	(void)sz;
	mod_list *l = arg;
	if (l->n < 256 && info->dlpi_name && info->dlpi_name[0]) {
		l->name[l->n] = info->dlpi_name;
		l->base[l->n++] = info->dlpi_addr;
	}
	return 0;
}

/* The first loaded library (in lookup order, the hook apart) that defines
 * name itself, or NULL. */
static void *first_definition(const char *name, const void *self)
{
	Dl_info di;
	uint64_t self_base = dladdr(self, &di) ? (uint64_t)(uintptr_t)di.dli_fbase : 0;
	mod_list l;
	l.n = 0;
	dl_iterate_phdr(mod_list_add, &l);
	for (int i = 0; i < l.n; i++) {
		if (l.base[i] == self_base)
			continue;
		void *h = dlopen(l.name[i], RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			continue;
		void *fn = dlsym(h, name);
		dlclose(h);
		if (fn && dladdr(fn, &di) && (uint64_t)(uintptr_t)di.dli_fbase == l.base[i] && fn != self)
			return fn;
	}
	return NULL;
}

/* 1 when fn is a definition of name, not a canonical PLT entry: an
 * executable built without -fPIE that takes a function's address (Debian's
 * python3) makes its PLT stub that function's address for everyone, dlsym
 * included, and the stub jumps through the GOT slot the hook patches. */
static int is_definition(void *fn, const char *name)
{
	Dl_info di;
	const ElfW(Sym) *sym = NULL;
	return dladdr1(fn, &di, (void **)&sym, RTLD_DL_SYMENT) && di.dli_sname && sym &&
	       sym->st_shndx != SHN_UNDEF && !strcmp(di.dli_sname, name);
}

void hook_fn_resolve(hook_fn *e)
{
	void *def = dlsym(RTLD_DEFAULT, e->name);
	if (def && def != e->wrapper && !is_definition(def, e->name))
		def = first_definition(e->name, e->wrapper);
	void *r = NULL;
	int got = 0;
	if (def && def != e->wrapper) {
		r = def;   /* the program's lookup does not reach the hook */
		got = 1;
	} else if (e->exported) {
		r = dlsym(RTLD_NEXT, e->name);
		if (r == e->wrapper)
			r = NULL;
		if (!r && e->name[0] == '_' && e->name[1] == 'Z')
			r = cxx_runtime_sym(e->name, e->wrapper);
	}
	e->got = got;
	__atomic_store_n(&e->real, r, __ATOMIC_RELEASE);
}

int hook_fn_resolve_all(void)
{
	int got = 0;
	for (hook_fn *e = hook_c_fns; e->name; e++) {
		hook_fn_resolve(e);
		got |= e->got && e->real;
	}
	for (hook_fn *e = hook_ext_fns; e->name; e++) {
		hook_fn_resolve(e);
		got |= e->got && e->real;
	}
	for (hook_fn *e = hook_proc_fns; e->name; e++)   /* not allocators: no bearing on got */
		hook_fn_resolve(e);
	return got;
}

void *hook_fn_same_provider(void *fn, void *malloc_fn)
{
	Dl_info a, b;
	if (!fn || !malloc_fn || !dladdr(malloc_fn, &a) || !dladdr(fn, &b) || a.dli_fbase != b.dli_fbase)
		return NULL;
	return fn;
}
