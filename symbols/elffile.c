/* elffile.c - walking a binary's symbol tables with libelf. */
#include "symbols/elffile.h"

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

int elffile_walk(Elf *e, unsigned which, elffile_sym_fn fn, void *arg)
{
	static const struct { unsigned bit; Elf64_Word type; } tabs[] = {
		{ ELFFILE_DYNSYM, SHT_DYNSYM }, { ELFFILE_SYMTAB, SHT_SYMTAB } };
	for (size_t t = 0; t < sizeof(tabs) / sizeof(tabs[0]); t++) {
		if (!(which & tabs[t].bit))
			continue;
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != tabs[t].type || !sh.sh_entsize)
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t n = d ? sh.sh_size / sh.sh_entsize : 0;
			for (size_t i = 0; i < n; i++) {
				GElf_Sym s;
				if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
					continue;
				const char *name = elf_strptr(e, sh.sh_link, s.st_name);
				if (!name)
					continue;
				elf_symbol es = { name, s.st_value, s.st_size, s.st_value + (s.st_size ? s.st_size : 1),
						  (unsigned char)GELF_ST_TYPE(s.st_info), (unsigned char)GELF_ST_BIND(s.st_info) };
				if ((which & ELFFILE_CODE) &&
				    ((es.type != STT_FUNC && es.type != STT_GNU_IFUNC) || !es.value))
					continue;
				int r = fn(arg, &es);
				if (r)
					return r;
			}
		}
	}
	return 0;
}

static void layout_read(Elf *e, elffile_layout *lay)
{
	size_t nph = 0;
	int interp = 0, dynamic = 0, have0 = 0;
	lay->vaddr0 = 0;
	if (!elf_getphdrnum(e, &nph))
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph))
				continue;
			interp |= ph.p_type == PT_INTERP;
			dynamic |= ph.p_type == PT_DYNAMIC;
			if (ph.p_type == PT_LOAD && !have0) {
				have0 = 1;
				lay->vaddr0 = ph.p_vaddr - ph.p_offset;
			}
		}
	lay->is_static = !interp && !dynamic;
}

int elffile_syms(const char *path, unsigned which, elffile_layout *lay, elffile_sym_fn fn, void *arg)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(fd);
		return -1;
	}
	if (lay)
		layout_read(e, lay);
	int r = elffile_walk(e, which, fn, arg);
	elf_end(e);
	close(fd);
	return r;
}
