/* v1name.h - backtrace_symbols-style frame names, skynet-mprof's .pro v1
 * names: "path(sym+0xoff) [0xaddr]", "path(+0xoff) [0xaddr]", "[0xaddr]".
 * One parser and one formatter. Neither allocates: libmprof.so formats
 * names inside its host, maybe from a signal handler. */
#ifndef MPROF_V1NAME_H
#define MPROF_V1NAME_H

#include <stddef.h>
#include <stdint.h>

/* How strictly a name is read (see v1name_parse). */
enum v1name_mode {
	V1NAME_STRICT,   /* glibc's exact shape, or a prefix of it cut at the v1 limit */
	V1NAME_LOOSE,    /* "path(anything)", then " [0xaddr]" (maybe cut) or nothing */
};

/* Which parts a parsed name has (v1name.parts). */
#define V1NAME_OFF  1u   /* a whole offset: sign, "0x", hex digits, ')' */
#define V1NAME_ADDR 2u   /* a whole " [0xaddr]" to the end of the name */
#define V1NAME_CUT  4u   /* the name ends inside its shape (cut at the v1 limit) */

/* A name taken apart: spans point into the name. */
typedef struct v1name {
	const char *path, *sym, *off_hex, *addr_hex;
	size_t path_len, sym_len, off_len, addr_len;
	size_t head_len;   /* bytes of "path(...)" with its ')', 0 when there is none */
	uint64_t off;      /* negated for a '-' sign, as glibc writes a pc before its symbol */
	uint64_t addr;
	char sign;         /* '+' or '-', 0 when there is none */
	unsigned parts;    /* V1NAME_OFF, V1NAME_ADDR, V1NAME_CUT */
} v1name;

/* 0 when name is "path(...)" in mode's rules, -1 otherwise (out is then
 * meaningless). A name without a path ("[0xaddr]") names no module: -1.
 * STRICT: only glibc's exact shape counts: the symbol is [A-Za-z0-9_.$@]*,
 * the offset is there, then " [0xaddr]" to the end; a name of
 * PRO_V1_NAME_MAX bytes or more may stop anywhere after the '(' (it was
 * cut), and a symbol that reaches the cut has an unknown end (sym_len 0).
 * Go names such as "strings.(*Builder).Grow" are functions, not paths.
 * LOOSE: anything between the name's last ')' and the '(' it closes
 * (parentheses nest; an offset is recognised at the end), then nothing,
 * " [0xaddr]", or a prefix of it at any length. In both modes an offset or
 * address that does not fit 64 bits is not one. */
int v1name_parse(const char *name, enum v1name_mode mode, v1name *out);

/* Writes "path(sym+0xoff) [0xaddr]", "path(+0xoff) [0xaddr]" when sym_len
 * is 0, or "[0xaddr]" when path is NULL, into buf: cut to cap - 1 bytes
 * and NUL-terminated (nothing written when cap is 0). Returns the whole
 * name's length, as snprintf does. */
size_t v1name_format(char *buf, size_t cap, const char *path, const char *sym, size_t sym_len, uint64_t off,
		     uint64_t addr);

/* What a formatted name adds to its path and symbol, NUL included. */
#define V1NAME_FIXED_LEN sizeof("(+0x) [0x]" "ffffffffffffffff" "ffffffffffffffff")

#endif
