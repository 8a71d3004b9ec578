/* locate.c - finding a profile's modules on this machine: the recorded
 * path, under --root, in --search-path directories, each candidate checked
 * against the recorded build-id (or, without one, an anchor symbol's
 * address); and the ELF helpers that check them. */
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/path.h"
#include "symbols/elffile.h"
#include "symbols/sym.h"
#include "symbols/sym_int.h"

/* ---- ELF helpers ------------------------------------------------------- */

/* The hex GNU build-id of an ELF file, or "" (buf holds >= 41 chars). */
static void elf_build_id_hex(Elf *elf, char *buf, size_t len)
{
	const void *id;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
	buf[0] = 0;
	for (ssize_t i = 0; i < n && (size_t)(2 * i + 3) <= len; i++)
		snprintf(buf + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
}

typedef struct sym_want {
	const char *name;
	size_t nlen;
	uint64_t value;
} sym_want;

static int sym_match(void *arg, const elf_symbol *s)
{
	sym_want *w = arg;
	if (strncmp(s->name, w->name, w->nlen) || s->name[w->nlen])
		return 0;
	w->value = s->value;
	return 1;
}

/* The value of a defined symbol called name in .symtab or .dynsym. */
int sym_elf_symbol_value(Elf *elf, const char *name, size_t nlen, uint64_t *value)
{
	sym_want w = { name, nlen, 0 };
	if (elffile_walk(elf, ELFFILE_SYMTAB | ELFFILE_DYNSYM, sym_match, &w) != 1)
		return -1;
	*value = w.value;
	return 0;
}

/* The page-aligned vaddr where file offset off is loaded. */
int sym_elf_offset_vaddr(Elf *elf, uint64_t off, uint64_t *vaddr)
{
	size_t n;
	if (elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		uint64_t pg = ph.p_offset & ~(uint64_t)0xfff;
		if (off >= pg && off < ph.p_offset + ph.p_filesz) {
			*vaddr = ((ph.p_vaddr & ~(uint64_t)0xfff) + (off - pg));
			return 0;
		}
	}
	return -1;
}

/* ---- finding a module's file here -------------------------------------- */

static int is_file(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* Opens path as ELF; 0 with fd/elf set, or -1. */
int sym_elf_open(const char *path, int *fd, Elf **elf)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -1;
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
		elf_end(*elf);
		close(*fd);
		return -1;
	}
	return 0;
}

/* Tries one candidate: a readable ELF whose build-id matches when known. */
static int try_candidate(smod *m, const char *cand, int *bad_id)
{
	if (!is_file(cand))
		return -1;
	int fd;
	Elf *elf;
	if (sym_elf_open(cand, &fd, &elf))
		return -1;
	char id[128];
	elf_build_id_hex(elf, id, sizeof(id));
	elf_end(elf);
	close(fd);
	if (m->build_id && *m->build_id && strcasecmp(id, m->build_id)) {
		*bad_id = 1;
		return -1;
	}
	m->local = strdup(cand);
	return m->local ? 0 : -1;
}

static int find_in_dirs(smod *m, const char *const *dirs, const char *rel, int *bad_id)
{
	char buf[4096];
	for (size_t i = 0; dirs && dirs[i]; i++) {
		if (rel) {
			snprintf(buf, sizeof(buf), "%s/%s", dirs[i], rel);
			if (!try_candidate(m, buf, bad_id))
				return 0;
		}
		snprintf(buf, sizeof(buf), "%s/%s", dirs[i], path_base(m->path));
		if (!try_candidate(m, buf, bad_id))
			return 0;
	}
	return -1;
}

/* Where the recorded path lives here: as is, under the profile's folder,
 * under each --root, then by file name in the profile's folder, the roots
 * and the search paths. Sets m->local, or m->why. */
void sym_module_locate(sym *s, smod *m)
{
	int bad_id = 0;
	const char *rel = m->path;
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	while (*rel == '/')
		rel++;
	char buf[4096];
	if (!try_candidate(m, m->path, &bad_id))
		return;
	if (s->profile_dir && m->path[0] != '/') {
		snprintf(buf, sizeof(buf), "%s/%s", s->profile_dir, rel);
		if (!try_candidate(m, buf, &bad_id))
			return;
	}
	if (!find_in_dirs(m, s->opts.roots, rel, &bad_id))
		return;
	if (s->profile_dir) {
		const char *d[] = { s->profile_dir, NULL };
		if (!find_in_dirs(m, d, NULL, &bad_id))
			return;
	}
	if (!find_in_dirs(m, s->opts.search_paths, NULL, &bad_id))
		return;
	m->why = bad_id ? "build-id differs" : "not found";
}
