/* elffile.h - a binary's ELF symbols and load layout, read with libelf:
 * for attach/ (which allocator a process uses, the injection's safe
 * point) and for symbols/ itself (anchoring recorded names). */
#ifndef MPROF_SYMBOLS_ELFFILE_H
#define MPROF_SYMBOLS_ELFFILE_H

#include <stdint.h>

typedef struct Elf Elf;

/* One defined symbol; name lives as long as the open file (the callback). */
typedef struct elf_symbol {
	const char *name;
	uint64_t value, size;
	uint64_t end;              /* value + size; value + 1 for a symbol without a size */
	unsigned char type, bind;  /* STT_*, STB_* */
} elf_symbol;

/* Which tables to walk, and (ELFFILE_CODE) only the functions that have an
 * address (STT_FUNC or STT_GNU_IFUNC, value != 0). */
#define ELFFILE_DYNSYM 1
#define ELFFILE_SYMTAB 2
#define ELFFILE_CODE 4

/* Returns nonzero to stop the walk (the walk then returns that value). */
typedef int (*elffile_sym_fn)(void *arg, const elf_symbol *s);

/* Calls fn on every defined symbol (st_shndx != SHN_UNDEF) of the tables
 * in which, .dynsym first.  0 at the end, or what fn returned to stop. */
int elffile_walk(Elf *e, unsigned which, elffile_sym_fn fn, void *arg);

/* The load layout: vaddr0 = vaddr - offset of the first PT_LOAD (load
 * address = file address - vaddr0 + where that segment is mapped), and
 * whether the file is statically linked (no PT_INTERP, no PT_DYNAMIC). */
typedef struct elffile_layout {
	uint64_t vaddr0;
	int is_static;
} elffile_layout;

/* elffile_walk over the file at path; lay (may be NULL) gets its layout.
 * -1 when the file cannot be opened or is not ELF. */
int elffile_syms(const char *path, unsigned which, elffile_layout *lay, elffile_sym_fn fn, void *arg);

#endif
