/* modules.c - the segment's module table: every ELF object the process has
 * mapped (path, build-id, base, size), from dl_iterate_phdr.  Append-only:
 * a dlclose'd library stays, marked unloaded, so its addresses still
 * resolve in a dump written after it is gone. */
#include "attach/hook/hook.h"

#include <elf.h>
#include <link.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#define MAX_MODULES 4096

static int mod_lock;
static unsigned char seen[MAX_MODULES];
static char exe_path[SEG_MOD_PATH];

typedef struct scan_ctx {
	seg_header *h;
	int first;
} scan_ctx;

static void hex_build_id(const ElfW(Phdr) *ph, uint64_t bias, char *out)
{
	out[0] = 0;
	if (ph->p_type != PT_NOTE)
		return;
	const unsigned char *p = (const unsigned char *)(uintptr_t)(bias + ph->p_vaddr);
	const unsigned char *end = p + ph->p_memsz;
	while (p + sizeof(ElfW(Nhdr)) <= end) {
		const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
		const unsigned char *desc = p + sizeof(*n) + ((n->n_namesz + 3) & ~3u);
		if (desc + n->n_descsz > end)
			return;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(p + sizeof(*n), "GNU", 4)) {
			static const char hx[] = "0123456789abcdef";
			uint32_t k = n->n_descsz > 20 ? 20 : n->n_descsz;
			for (uint32_t i = 0; i < k; i++) {
				out[2 * i] = hx[desc[i] >> 4];
				out[2 * i + 1] = hx[desc[i] & 15];
			}
			out[2 * k] = 0;
			return;
		}
		p = desc + ((n->n_descsz + 3) & ~3u);
	}
}

static int scan_one(struct dl_phdr_info *info, size_t sz, void *arg)
{
	(void)sz;
	scan_ctx *c = arg;
	seg_header *h = c->h;
	const char *name = info->dlpi_name;
	int first = c->first;
	c->first = 0;
	if (info->dlpi_addr && info->dlpi_addr == getauxval(AT_SYSINFO_EHDR))
		return 0;   /* the vdso: no file to read symbols from */
	if (!name || !*name) {
		if (!first)
			return 0;   /* the vdso and other unnamed objects */
		name = exe_path;   /* known once its base is: below */
	}
	uint64_t lo = UINT64_MAX, hi = 0, off = 0;
	char bid[SEG_MOD_BUILD_ID] = "";
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD) {
			uint64_t a = ph->p_vaddr & ~(uint64_t)(ph->p_align ? ph->p_align - 1 : 0);
			if (a < lo) {
				lo = a;
				off = ph->p_offset & ~(uint64_t)(ph->p_align ? ph->p_align - 1 : 0);
			}
			if (ph->p_vaddr + ph->p_memsz > hi)
				hi = ph->p_vaddr + ph->p_memsz;
		} else if (ph->p_type == PT_NOTE && !bid[0]) {
			hex_build_id(ph, info->dlpi_addr, bid);
		}
	}
	if (lo == UINT64_MAX)
		return 0;
	uint64_t base = info->dlpi_addr + lo, size = hi - lo;
	if (name == exe_path && !exe_path[0])
		procmaps_exe_path(base, exe_path, sizeof(exe_path));
	/* dlopen("./luaclib/x.so") leaves a relative name: the mapping's path is
	 * absolute, so a dump read from any directory finds the file. */
	static char abs_path[SEG_MOD_PATH];
	if (name[0] != '/' && !procmaps_path(base, abs_path, sizeof(abs_path)))
		name = abs_path;
	seg_module *mods = seg_region(h, SEG_R_MODULES);
	uint64_t n = h->module_count;
	for (uint64_t i = 0; i < n; i++) {
		if (mods[i].state == SEG_MOD_LOADED && mods[i].base == base && mods[i].size == size &&
		    !strncmp(mods[i].path, name, SEG_MOD_PATH - 1)) {
			if (i < MAX_MODULES)
				seen[i] = 1;
			return 0;
		}
	}
	if (n >= h->module_cap)
		return 0;
	seg_module *m = &mods[n];
	m->base = base;
	m->size = size;
	m->offset = off;
	m->bias = info->dlpi_addr;
	m->state = SEG_MOD_LOADED;
	memcpy(m->build_id, bid, sizeof(bid));
	strncpy(m->path, name, SEG_MOD_PATH - 1);
	m->path[SEG_MOD_PATH - 1] = 0;
	if (n < MAX_MODULES)
		seen[n] = 1;
	__atomic_store_n(&h->module_count, n + 1, __ATOMIC_RELEASE);
	return 0;
}

void modules_scan(seg_header *h, int try)
{
	if (!h)
		return;
	if (try) {
		if (__atomic_exchange_n(&mod_lock, 1, __ATOMIC_ACQUIRE))
			return;
	} else {
		while (__atomic_exchange_n(&mod_lock, 1, __ATOMIC_ACQUIRE))
			sched_yield();
	}
	memset(seen, 0, sizeof(seen));
	scan_ctx c = { .h = h, .first = 1 };
	dl_iterate_phdr(scan_one, &c);
	seg_module *mods = seg_region(h, SEG_R_MODULES);
	for (uint64_t i = 0; i < h->module_count && i < MAX_MODULES; i++)
		if (!seen[i] && mods[i].state == SEG_MOD_LOADED)
			mods[i].state = SEG_MOD_UNLOADED;
	__atomic_store_n(&mod_lock, 0, __ATOMIC_RELEASE);
}

typedef struct self_ctx {
	uintptr_t addr;
	uint64_t lo, hi;
	int found;
} self_ctx;

static int find_self(struct dl_phdr_info *info, size_t sz, void *arg)
{
	(void)sz;
	self_ctx *c = arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && c->addr >= a && c->addr < a + ph->p_memsz) {
			c->lo = a;
			c->hi = a + ph->p_memsz;
			c->found = 1;
			return 1;
		}
	}
	return 0;
}

int modules_self_range(const void *addr, uint64_t *lo, uint64_t *hi)
{
	self_ctx c = { .addr = (uintptr_t)addr };
	dl_iterate_phdr(find_self, &c);
	*lo = c.lo;
	*hi = c.hi;
	return c.found ? 0 : -1;
}

static unsigned long long seen_adds, seen_subs;

static int read_counts(struct dl_phdr_info *info, size_t sz, void *arg)
{
	unsigned long long *v = arg;
	if (sz >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		v[0] = info->dlpi_adds;
		v[1] = info->dlpi_subs;
	}
	return 1;
}

int modules_check(seg_header *h)
{
	unsigned long long v[2] = { 0, 0 };
	dl_iterate_phdr(read_counts, v);
	if (v[0] == __atomic_load_n(&seen_adds, __ATOMIC_RELAXED) &&
	    v[1] == __atomic_load_n(&seen_subs, __ATOMIC_RELAXED))
		return 0;
	modules_scan(h, 0);
	__atomic_store_n(&seen_adds, v[0], __ATOMIC_RELAXED);
	__atomic_store_n(&seen_subs, v[1], __ATOMIC_RELAXED);
	return 1;
}
