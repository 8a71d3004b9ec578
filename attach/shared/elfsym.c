/* elfsym.c - function names from an ELF file's symbol table, without
 * malloc (the dump runs inside the host, maybe in a signal handler): the
 * file and a sorted symbol array live in mmap'd memory.  .symtab when the
 * file has one, else .dynsym. */
#include "attach/shared/elfsym.h"
#include "attach/shared/mapmem.h"
#include "core/v1name.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct esym {
	uint64_t value, size;
	const char *name;
	int ifunc;
} esym;

struct elfsym {
	const unsigned char *map;
	size_t map_len;
	esym *syms;
	size_t n, cap_bytes;
};

static int sym_less(const esym *a, const esym *b)
{
	return a->value < b->value || (a->value == b->value && a->size > b->size);
}

/* Heapsort: qsort may allocate. */
static void sift(esym *s, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && sym_less(&s[c], &s[c + 1]))
			c++;
		if (!sym_less(&s[i], &s[c]))
			return;
		esym t = s[i];
		s[i] = s[c];
		s[c] = t;
		i = c;
	}
}

static void sym_sort(esym *s, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(s, i, n);
	for (size_t k = n; k > 1; k--) {
		esym t = s[0];
		s[0] = s[k - 1];
		s[k - 1] = t;
		sift(s, 0, k - 1);
	}
}

static const Elf64_Shdr *find_table(const unsigned char *m, size_t len, const Elf64_Ehdr *eh, uint32_t type)
{
	for (uint32_t i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff + (size_t)i * sizeof(Elf64_Shdr));
		if (sh->sh_type == type && sh->sh_entsize == sizeof(Elf64_Sym) &&
		    sh->sh_offset <= len && sh->sh_size <= len - sh->sh_offset && sh->sh_link < eh->e_shnum)
			return sh;
	}
	return NULL;
}

struct elfsym *elfsym_open(const char *path)
{
	/* Non-blocking: a path from a hostile segment may name a FIFO. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return NULL;
	struct stat st;
	struct elfsym *e = NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return NULL;
	}
	size_t len = (size_t)st.st_size;
	const unsigned char *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > len ||
	    (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len - eh->e_shoff)
		goto fail;
	const Elf64_Shdr *tab = find_table(m, len, eh, SHT_SYMTAB);
	if (!tab)
		tab = find_table(m, len, eh, SHT_DYNSYM);
	if (!tab)
		goto fail;
	const Elf64_Shdr *strs = (const Elf64_Shdr *)(m + eh->e_shoff + (size_t)tab->sh_link * sizeof(Elf64_Shdr));
	if (strs->sh_offset > len || strs->sh_size > len - strs->sh_offset || !strs->sh_size)
		goto fail;
	e = hook_map(sizeof(*e));
	if (!e)
		goto fail;
	size_t nsym = tab->sh_size / sizeof(Elf64_Sym);
	e->cap_bytes = (nsym ? nsym : 1) * sizeof(esym);
	e->syms = hook_map(e->cap_bytes);
	if (!e->syms)
		goto fail;
	const char *strtab = (const char *)m + strs->sh_offset;
	/* The string table must end in NUL for names to be safe to print. */
	if (strtab[strs->sh_size - 1])
		goto fail;
	for (size_t i = 0; i < nsym; i++) {
		const Elf64_Sym *s = (const Elf64_Sym *)(m + tab->sh_offset) + i;
		int t = ELF64_ST_TYPE(s->st_info);
		if ((t != STT_FUNC && t != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF || !s->st_value ||
		    s->st_name >= strs->sh_size)
			continue;
		e->syms[e->n++] = (esym){ s->st_value, s->st_size, strtab + s->st_name, t == STT_GNU_IFUNC };
	}
	sym_sort(e->syms, e->n);
	e->map = m;
	e->map_len = len;
	return e;
fail:
	if (e) {
		if (e->syms)
			hook_unmap(e->syms, e->cap_bytes);
		hook_unmap(e, sizeof(*e));
	}
	munmap((void *)m, len);
	return NULL;
}

const char *elfsym_lookup(struct elfsym *e, uint64_t vaddr, uint64_t *off)
{
	size_t lo = 0, hi = e->n;
	while (lo < hi) {   /* first symbol with value > vaddr */
		size_t mid = lo + (hi - lo) / 2;
		if (e->syms[mid].value <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Among symbols starting at or below vaddr, take the nearest that covers it. */
	for (size_t i = lo; i-- > 0 && lo - i <= 8;) {
		const esym *s = &e->syms[i];
		if (vaddr < s->value + (s->size ? s->size : 1) || (!s->size && i == lo - 1)) {
			*off = vaddr - s->value;
			return s->name;
		}
	}
	return NULL;
}

const char *elfsym_at(struct elfsym *e, size_t i, uint64_t *value, uint64_t *size, int *ifunc)
{
	if (i >= e->n)
		return NULL;
	*value = e->syms[i].value;
	*size = e->syms[i].size;
	*ifunc = e->syms[i].ifunc;
	return e->syms[i].name;
}

void elfsym_close(struct elfsym *e)
{
	if (!e)
		return;
	munmap((void *)e->map, e->map_len);
	hook_unmap(e->syms, e->cap_bytes);
	hook_unmap(e, sizeof(*e));
}

int elfsym_name(struct elfsym *e, char *buf, size_t cap, const char *path, uint64_t addr,
		uint64_t bias, uint64_t base, uint64_t offset)
{
	/* addr - 1: a return address may lie just past the end of its function. */
	uint64_t soff = 0;
	const char *sym = e && addr ? elfsym_lookup(e, addr - 1 - bias, &soff) : NULL;
	size_t n = sym ? v1name_format(buf, cap, path, sym, strnlen(sym, ELFSYM_NAME_MAX), soff + 1, addr)
		       : v1name_format(buf, cap, path, NULL, 0, addr - base + offset, addr);
	return n < cap ? (int)n : (int)cap - 1;
}
