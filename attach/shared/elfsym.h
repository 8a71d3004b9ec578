/* elfsym.h - a module's ELF symbol table read without malloc (mmap'd memory
 * only): the hook names the code in its dumps with it, mprof-tui names the
 * frames of a segment's modules before symbols/ is asked. */
#ifndef MPROF_ELFSYM_H
#define MPROF_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

#include "attach/shared/segment.h"
#include "core/v1name.h"

/* elfsym.c: names of pcs in a module "path(sym+0xoff) [0xaddr]"; see there. */
struct elfsym;
struct elfsym *elfsym_open(const char *path);
/* The symbol holding ELF vaddr; NULL if none; *off gets vaddr - sym start. */
const char *elfsym_lookup(struct elfsym *e, uint64_t vaddr, uint64_t *off);
void elfsym_close(struct elfsym *e);
/* The i-th function symbol by address (its name; NULL past the end): ELF
 * vaddr, size, and whether it is an ifunc resolver. */
const char *elfsym_at(struct elfsym *e, size_t i, uint64_t *value, uint64_t *size, int *ifunc);
/* Writes "path(sym+0xoff) [0xaddr]" (or "path(+0xoff) [0xaddr]" with no
 * symbol, offset from the file start) into buf with core/v1name.h's
 * formatter; returns the length written. */
#define ELFSYM_NAME_MAX 256
/* Room for any name of a segment module: path, symbol, the rest. */
#define ELFSYM_NAME_BUF (SEG_MOD_PATH + ELFSYM_NAME_MAX + V1NAME_FIXED_LEN)
int elfsym_name(struct elfsym *e, char *buf, size_t cap, const char *path, uint64_t addr,
		uint64_t bias, uint64_t base, uint64_t offset);

#endif
