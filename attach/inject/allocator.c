/* allocator.c - which allocator a running process uses, read from outside
 * before anything is injected: the module whose malloc the program's own
 * symbol lookup reaches.  The loader's link map (r_debug, found through the
 * executable's DT_DEBUG) lists the modules in lookup order: executable,
 * preloads, needed libraries, then what was dlopened.  The first that
 * defines malloc in its dynamic symbols provides it; free must come from the
 * same module, else the process mixes allocators and is refused. */
#include "attach/inject/allocator.h"
#include "symbols/elffile.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_MODULES 4096

static int mem_read(int fd, uint64_t addr, void *buf, size_t n)
{
	return pread(fd, buf, n, (off_t)addr) == (ssize_t)n ? 0 : -1;
}

static void mem_str(int fd, uint64_t addr, char *buf, size_t cap)
{
	ssize_t n = addr ? pread(fd, buf, cap - 1, (off_t)addr) : -1;
	buf[n > 0 ? (size_t)n : 0] = 0;
	buf[strnlen(buf, cap - 1)] = 0;
}

static int defines_sym(void *arg, const elf_symbol *s)
{
	int *r = arg;
	if (s->bind != STB_GLOBAL && s->bind != STB_WEAK)
		return 0;
	if (!strcmp(s->name, "malloc"))
		*r |= 1;
	else if (!strcmp(s->name, "free"))
		*r |= 2;
	return 0;
}

/* Bit 0: path defines malloc; bit 1: free (global or weak functions of its
 * dynamic symbol table).  -1 when it cannot be read. */
static int defines(const char *path)
{
	int r = 0;
	return elffile_syms(path, ELFFILE_DYNSYM | ELFFILE_CODE, NULL, defines_sym, &r) ? -1 : r;
}

/* The executable's r_debug: auxv's AT_PHDR gives its program headers,
 * PT_DYNAMIC its dynamic section, DT_DEBUG the loader's r_debug. */
static uint64_t find_r_debug(int pid, int mem)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	uint64_t av[512];
	ssize_t n = read(fd, av, sizeof(av));
	close(fd);
	uint64_t phdr = 0, phnum = 0;
	for (ssize_t i = 0; i + 1 < n / 8; i += 2) {
		if (av[i] == AT_PHDR)
			phdr = av[i + 1];
		else if (av[i] == AT_PHNUM)
			phnum = av[i + 1];
	}
	if (!phdr || !phnum || phnum > 256)
		return 0;
	Elf64_Phdr ph[256];
	if (mem_read(mem, phdr, ph, phnum * sizeof(*ph)))
		return 0;
	uint64_t bias = 0, dyn = 0;
	int have_bias = 0;
	for (uint64_t i = 0; i < phnum; i++)
		if (ph[i].p_type == PT_PHDR) {
			bias = phdr - ph[i].p_vaddr;
			have_bias = 1;
		}
	for (uint64_t i = 0; i < phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC && have_bias)
			dyn = bias + ph[i].p_vaddr;
	for (int i = 0; dyn && i < 1024; i++) {
		Elf64_Dyn d;
		if (mem_read(mem, dyn + (uint64_t)i * sizeof(d), &d, sizeof(d)) || d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_DEBUG)
			return d.d_un.d_ptr;
	}
	return 0;
}

int allocator_identify(int pid, char *out, size_t cap, prof_error *err)
{
	char path[4200];
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	int mem = open(path, O_RDONLY | O_CLOEXEC);
	if (mem < 0) {
		prof_errorf(err, "process %d: cannot read its memory to find its allocator", pid);
		return -1;
	}
	uint64_t rd = find_r_debug(pid, mem);
	struct r_debug r;
	if (!rd || mem_read(mem, rd, &r, sizeof(r)) || !r.r_map) {
		close(mem);
		prof_errorf(err, "process %d: its allocator cannot be identified (no loader link map: the executable has no DT_DEBUG); it is left untouched", pid);
		return -1;
	}
	char malloc_mod[4096] = "", free_mod[4096] = "";
	uint64_t lm = (uint64_t)(uintptr_t)r.r_map;
	for (int i = 0; lm && i < MAX_MODULES && !(malloc_mod[0] && free_mod[0]); i++) {
		struct link_map m;
		if (mem_read(mem, lm, &m, sizeof(m)))
			break;
		char name[4096];
		mem_str(mem, (uint64_t)(uintptr_t)m.l_name, name, sizeof(name));
		if (!name[0] && i == 0) {
			char exe[64];
			snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
			ssize_t k = readlink(exe, name, sizeof(name) - 1);
			name[k > 0 ? (size_t)k : 0] = 0;
		}
		lm = (uint64_t)(uintptr_t)m.l_next;
		if (name[0] != '/')
			continue;   /* the vdso, or a name with no file */
		int d = defines(name);
		if (d < 0) {   /* another mount namespace: through the process's root */
			snprintf(path, sizeof(path), "/proc/%d/root%s", pid, name);
			d = defines(path);
		}
		if (d > 0 && (d & 1) && !malloc_mod[0])
			snprintf(malloc_mod, sizeof(malloc_mod), "%s", name);
		if (d > 0 && (d & 2) && !free_mod[0])
			snprintf(free_mod, sizeof(free_mod), "%s", name);
	}
	close(mem);
	if (!malloc_mod[0] || !free_mod[0]) {
		prof_errorf(err, "process %d: its allocator cannot be identified (no loaded module defines %s); it is left untouched", pid, malloc_mod[0] ? "free" : "malloc");
		return -1;
	}
	if (strcmp(malloc_mod, free_mod)) {
		prof_errorf(err, "process %d: its allocator cannot be identified (malloc comes from %s, free from %s); it is left untouched", pid, malloc_mod, free_mod);
		return -1;
	}
	snprintf(out, cap, "%s", malloc_mod);
	return 0;
}
