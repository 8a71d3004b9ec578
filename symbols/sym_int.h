/* sym_int.h - the resolver's insides, shared by the files of symbols/
 * only (elfutils types stay behind this line). */
#ifndef MPROF_SYM_INT_H
#define MPROF_SYM_INT_H

#include <elfutils/libdwfl.h>

#include "core/u64map.h"
#include "symbols/sym.h"

/* A module the profile names. */
typedef struct smod {
	const char *path;        /* as recorded (arena) */
	char *local;             /* the file read here (malloc'd), or NULL */
	const char *build_id;    /* hex, from the module table, or NULL */
	const char *ident;       /* the path rows name it by (a diff's BASE
				  * build: its NEW peer's), or NULL: path */
	const char *why;         /* why it is missing */
	uint64_t base, base_off; /* module table: mapping of file offset base_off */
	uint64_t bias;           /* load address of vaddr 0 */
	const char *anchor_sym;  /* a "(sym+0xoff)" name, when no "(+0xoff)" one */
	uint64_t anchor_addr, anchor_off;
	int have_base, have_bias;
	Dwfl_Module *dm;
} smod;

/* Addresses that are not frames (or not as return addresses), resolved. */
typedef struct sym_cache {
	u64map by_addr[2];       /* [is_return]: addr -> index in info */
	sym_info **info;
	size_t n, cap;
} sym_cache;

typedef struct sym_frame_ent {
	sym_info *info;          /* resolved lazily */
	uint32_t mod;            /* 1 + index in mods from the v1 name, or 0 */
} sym_frame_ent;

struct sym {
	const prof *p;
	sym_opts opts;           /* lists point at the copies below */
	char **roots, **search, **srcdirs;
	char *profile_dir;
	Dwfl *dwfl;
	smod *mods;
	size_t nmods, capmods, nfound;
	int peers;               /* some module has an ident */
	sym_missing_module *missing;
	size_t nmissing, capmissing;
	sym_frame_ent *frames;   /* per profile frame */
	sym_cache cache;         /* other addresses */
	void *arena;
	struct sym_ixmap *ix;    /* index.c: per-CU ranges, sorted symbols */
};

/* Arena memory, freed at sym_close. */
void *sym_arena_alloc(sym *s, size_t n);
char *sym_arena_strndup(sym *s, const char *str, size_t n);

/* index.c: the function and inline-instance DIEs holding pc (a DWARF
 * address), innermost first, as dwarf_getscopes + dwarf_getscopes_die
 * would give them; returns how many (<= max). */
int sym_fn_scopes(sym *s, Dwfl_Module *dm, Dwarf_Die *cu, uint64_t pc, Dwarf_Die *out, int max);
/* The ELF symbol (.symtab, else .dynsym) holding pc, or NULL; its
 * address in *start when start is not NULL. */
const char *sym_elf_name(sym *s, Dwfl_Module *dm, uint64_t pc, uint64_t *start);
void sym_index_free(sym *s);

/* locate.c: opens path for libelf (*fd, *elf; 0 or -1). */
int sym_elf_open(const char *path, int *fd, Elf **elf);
/* The ELF address of file offset off (0 or -1). */
int sym_elf_offset_vaddr(Elf *elf, uint64_t off, uint64_t *vaddr);
/* The value of the symbol name (nlen bytes) in .symtab or .dynsym (0 or -1). */
int sym_elf_symbol_value(Elf *elf, const char *name, size_t nlen, uint64_t *value);
/* Finds m's file here (m->local), checking its build-id or anchor. */
void sym_module_locate(sym *s, smod *m);

#endif
