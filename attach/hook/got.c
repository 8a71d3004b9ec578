/* got.c - where the program's calls do not reach the hook by symbol
 * interposition, its GOT slots are pointed at the hook: a hook loaded into a
 * running process (mprof-tui --inject dlopens it), whose program is already
 * bound to its allocator, and names the hook does not export (mallocx,
 * tc_malloc).  Each slot of such a name in every loaded module (but the
 * hook, libc, the loader, the vdso and the allocator providing malloc, whose
 * own calls stay its own) is patched, and again in modules loaded later
 * (dlopen's slots lead through got_dlopen when injected; under preload the
 * hook rescans when the loader's object count changes); each slot's old
 * value is kept so mprof_detach puts it back.  The hook forwards every call
 * to the definition the program's own lookup reaches (hook_fn.real), so a
 * block is always freed by the allocator that made it, before and after
 * detach.  Memory is mmap'd; a spinlock orders patchers and the detacher. */
#include "attach/hook/hook.h"
#include "core/path.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sched.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef struct got_slot {
	void **addr;
	void *orig;        /* the value before the hook's: restored on detach */
	uint64_t base;     /* the module's load address (dlpi_addr) */
} got_slot;

static got_slot *slots;   /* mmap'd, slots_cap entries */
static size_t nslots, slots_cap;
static int got_lock;
static int got_on;        /* patched and not detached */
static int got_dl;        /* dlopen's slots are patched too */
static uint64_t self_base, provider_base;

static void *got_dlopen(const char *file, int mode);

static void lock(void)
{
	while (__atomic_exchange_n(&got_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void unlock(void)
{
	__atomic_store_n(&got_lock, 0, __ATOMIC_RELEASE);
}

/* The hook's replacement for the symbol name, or NULL. */
static void *target_of(const char *name)
{
	if (!strcmp(name, "dlopen"))
		return got_dl ? (void *)got_dlopen : NULL;
	for (const hook_fn *e = hook_c_fns; e->name; e++)
		if (e->got && e->real && !strcmp(e->name, name))
			return e->wrapper;
	for (const hook_fn *e = hook_ext_fns; e->name; e++)
		if (e->got && e->real && !strcmp(e->name, name))
			return e->wrapper;
	for (const hook_fn *e = hook_proc_fns; e->name; e++)   /* kept at detach: not in target_of_ptr */
		if (e->got && e->real && !strcmp(e->name, name))
			return e->wrapper;
	return NULL;
}

/* The hook, libc, the loader, the allocator providing malloc: never patched. */
static int skip_module(struct dl_phdr_info *info)
{
	if (info->dlpi_addr == self_base)
		return 1;
	/* The executable (no name) is patched even when it defines malloc. */
	if (provider_base && info->dlpi_addr == provider_base && info->dlpi_name && info->dlpi_name[0])
		return 1;
	if (info->dlpi_addr && info->dlpi_addr == getauxval(AT_SYSINFO_EHDR))
		return 1;
	const char *b = path_base(info->dlpi_name ? info->dlpi_name : "");
	return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5) || !strncmp(b, "ld-linux", 8) ||
	       !strncmp(b, "ld-musl", 7) || strstr(b, "libmprof");
}

static int slots_add(void **addr, void *orig, uint64_t base)
{
	if (nslots == slots_cap) {
		size_t cap = slots_cap ? slots_cap * 2 : 256;
		got_slot *n = hook_map(cap * sizeof(*n));
		if (!n)
			return -1;
		if (slots) {
			memcpy(n, slots, nslots * sizeof(*n));
			hook_unmap(slots, slots_cap * sizeof(*n));
		}
		slots = n;
		slots_cap = cap;
	}
	slots[nslots++] = (got_slot){ addr, orig, base };
	return 0;
}

/* The page range the loader made read-only after relocation (RELRO). */
typedef struct relro {
	uint64_t lo, hi;
} relro;

static relro relro_of(struct dl_phdr_info *info)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_GNU_RELRO) {
			uint64_t a = info->dlpi_addr + ph->p_vaddr;
			return (relro){ a & ~(pg - 1), (a + ph->p_memsz) & ~(pg - 1) };
		}
	}
	return (relro){ 0, 0 };
}

/* Writes v into the slot, lifting RELRO's protection for the moment. */
static int slot_write(void **addr, void *v, relro r)
{
	uint64_t a = (uint64_t)(uintptr_t)addr;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	int ro = a >= r.lo && a < r.hi;
	void *page = (void *)(uintptr_t)(a & ~(pg - 1));
	if (ro && mprotect(page, pg, PROT_READ | PROT_WRITE))
		return -1;
	__atomic_store_n(addr, v, __ATOMIC_RELEASE);
	if (ro)
		mprotect(page, pg, PROT_READ);
	return 0;
}

/* The address a dynamic entry points at: glibc relocates d_ptr in place,
 * other loaders may not. */
static uint64_t dyn_ptr(struct dl_phdr_info *info, uint64_t p)
{
	return p < info->dlpi_addr ? p + info->dlpi_addr : p;
}

static void patch_table(struct dl_phdr_info *info, const ElfW(Rela) *rel, size_t n, const ElfW(Sym) *sym,
			const char *str, size_t strsz, relro r, int *count)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t type = ELF64_R_TYPE(rel[i].r_info);
		uint32_t s = ELF64_R_SYM(rel[i].r_info);
		if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT && type != R_X86_64_64) || !s)
			continue;
		if (type == R_X86_64_64 && rel[i].r_addend)
			continue;
		if (sym[s].st_name >= strsz)
			continue;
		void *fn = target_of(str + sym[s].st_name);
		if (!fn)
			continue;
		void **addr = (void **)(uintptr_t)(info->dlpi_addr + rel[i].r_offset);
		void *old = __atomic_load_n(addr, __ATOMIC_ACQUIRE);
		if (old == fn)
			continue;   /* done by an earlier scan */
		if (slots_add(addr, old, info->dlpi_addr) || slot_write(addr, fn, r)) {
			if (nslots && slots[nslots - 1].addr == addr)
				nslots--;
			continue;
		}
		(*count)++;
	}
}

static int patch_module(struct dl_phdr_info *info, size_t sz, void *arg)
{
	(void)sz;
	int *count = arg;
	if (skip_module(info))
		return 0;
	const ElfW(Dyn) *dyn = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(uintptr_t)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	if (!dyn)
		return 0;
	uint64_t jmprel = 0, pltsz = 0, rela = 0, relasz = 0, symtab = 0, strtab = 0, strsz = 0;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_JMPREL: jmprel = dyn_ptr(info, dyn->d_un.d_ptr); break;
		case DT_PLTRELSZ: pltsz = dyn->d_un.d_val; break;
		case DT_RELA: rela = dyn_ptr(info, dyn->d_un.d_ptr); break;
		case DT_RELASZ: relasz = dyn->d_un.d_val; break;
		case DT_SYMTAB: symtab = dyn_ptr(info, dyn->d_un.d_ptr); break;
		case DT_STRTAB: strtab = dyn_ptr(info, dyn->d_un.d_ptr); break;
		case DT_STRSZ: strsz = dyn->d_un.d_val; break;
		}
	}
	if (!symtab || !strtab)
		return 0;
	relro r = relro_of(info);
	const ElfW(Sym) *sym = (const ElfW(Sym) *)(uintptr_t)symtab;
	const char *str = (const char *)(uintptr_t)strtab;
	if (jmprel)
		patch_table(info, (const ElfW(Rela) *)(uintptr_t)jmprel, pltsz / sizeof(ElfW(Rela)), sym, str,
			    strsz, r, count);
	if (rela)
		patch_table(info, (const ElfW(Rela) *)(uintptr_t)rela, relasz / sizeof(ElfW(Rela)), sym, str,
			    strsz, r, count);
	return 0;
}

int got_slots_only(void)
{
	return hook_c_fns[HF_MALLOC].got;
}

int got_patch_all(int with_dlopen)
{
	Dl_info di;
	if (!self_base && dladdr((void *)got_patch_all, &di))
		self_base = (uint64_t)(uintptr_t)di.dli_fbase;
	void *m = hook_c_fns[HF_MALLOC].real;
	if (!provider_base && m && dladdr(m, &di))
		provider_base = (uint64_t)(uintptr_t)di.dli_fbase;
	int count = 0;
	lock();
	got_on = 1;
	got_dl = with_dlopen;
	dl_iterate_phdr(patch_module, &count);
	unlock();
	return count;
}

/* Puts back the slots of one module still loaded (dl_iterate_phdr holds the
 * loader's lock: it cannot be unloaded meanwhile). */
static int restore_module(struct dl_phdr_info *info, size_t sz, void *arg)
{
	(void)sz;
	int *count = arg;
	relro r = relro_of(info);
	for (size_t i = 0; i < nslots; i++) {
		got_slot *s = &slots[i];
		if (!s->addr || s->base != info->dlpi_addr || skip_module(info))
			continue;
		void *cur = __atomic_load_n(s->addr, __ATOMIC_ACQUIRE);
		if (cur != s->orig && (cur == (void *)got_dlopen || target_of_ptr(cur)))
			if (!slot_write(s->addr, s->orig, r))
				(*count)++;
		s->addr = NULL;
	}
	return 0;
}

int got_restore_all(void)
{
	int count = 0;
	lock();
	got_on = 0;
	dl_iterate_phdr(restore_module, &count);
	nslots = 0;   /* slots of modules gone since are forgotten */
	unlock();
	return count;
}

/* 1 when p is one of the hook's replacements. */
int target_of_ptr(const void *p)
{
	for (const hook_fn *e = hook_c_fns; e->name; e++)
		if (e->wrapper == p)
			return 1;
	for (const hook_fn *e = hook_ext_fns; e->name; e++)
		if (e->wrapper == p)
			return 1;
	return 0;
}

/* Modules a patched dlopen brings in get their slots patched too. */
static void *got_dlopen(const char *file, int mode)
{
	void *h = dlopen(file, mode);
	if (h && __atomic_load_n(&got_on, __ATOMIC_ACQUIRE))
		got_patch_all(1);
	return h;
}

/* mprof-tui --detach calls this in the target (ptrace): the program's calls
 * go straight to libc again, its patched entry points hold their own bytes
 * again; what was recorded stays in the segment.  Returns the slots and
 * entries restored, or -1 when the hook was not loaded late. */
EXPORT int mprof_detach(void)
{
	seg_header *h = hook_seg;
	if (!h || !(h->flags & SEG_FLAG_LATE))
		return -1;
	int n = got_restore_all() + allocators_restore();
	epoch_detached(h);
	__atomic_or_fetch(&h->flags, SEG_FLAG_DETACHED, __ATOMIC_RELEASE);
	return n;
}

/* mprof-tui --inject on a detached process: a new epoch (what the hook
 * saw before may have been freed meanwhile), then patch again. */
EXPORT int mprof_attach(void)
{
	seg_header *h = hook_seg;
	if (!h || !(h->flags & SEG_FLAG_LATE))
		return -1;
	if (h->flags & SEG_FLAG_DETACHED)
		epoch_begin(h);
	int n = got_patch_all(1) + allocators_repatch();
	__atomic_and_fetch(&h->flags, ~(uint32_t)SEG_FLAG_DETACHED, __ATOMIC_RELEASE);
	return n;
}
