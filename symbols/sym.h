/* sym.h - addresses to module, function (C++ demangled), file:line and the
 * whole inline chain, addr2line-style, over the modules a profile names.
 * The only door to elfutils: nothing outside symbols/ includes its headers.
 * Lookups are lazy and cached per address, so opening costs only the
 * module table.
 *
 * symbols/: sym.c (the resolver and its cache), locate.c (finding a
 * module's file and debug info, build-id checks), index.c (DWARF function
 * and inline index), granularity.c (node maps: address, line, function,
 * module), nodeloc.c and source.c (a node's source lines), diffkey.c
 * (what a frame means, for diffs across builds), elffile.c (ELF symbol
 * tables for attach/), stackunw.c (a sampled user stack unwound, for
 * attach/faults/). */
#ifndef MPROF_SYM_H
#define MPROF_SYM_H

#include <stddef.h>
#include <stdint.h>

#include "core/agg.h"
#include "core/diff.h"
#include "core/export.h"
#include "core/prof.h"

typedef struct sym sym;

typedef struct sym_opts {
	const char *const *roots;        /* --root DIRs, NULL-terminated or NULL */
	const char *const *search_paths; /* --search-path DIRs, likewise */
	const char *const *source_dirs;  /* --source-dir DIRs, likewise */
	const char *profile_path;        /* the profile's file: its folder is searched */
	long pid;                        /* > 0: also report /proc/PID/maps */
	int no_symbols;                  /* resolve nothing: raw names only */
} sym_opts;

/* Where a resolution came from, best first. */
enum sym_source {
	SYM_SRC_DWARF,    /* debug info: function, file:line, inline chain */
	SYM_SRC_ELF,      /* .symtab / .dynsym: function only */
	SYM_SRC_RECORDED, /* the symbol in the recorded name, module not found */
	SYM_SRC_RAW,      /* nothing: the recorded name or the hex address */
};

/* One level of an inline chain: the function and the place in it. */
typedef struct sym_loc {
	const char *func;  /* demangled; NULL when unknown */
	const char *file;  /* NULL when unknown */
	int line;          /* 0 when unknown */
	int inlined;       /* this function was inlined into the next level */
} sym_loc;

/* A resolved address. Strings and the chain are owned by the sym and live
 * until sym_close. */
typedef struct sym_info {
	uint64_t addr;        /* as asked */
	int is_return;        /* pc-1 was looked up */
	const char *module;   /* recorded module path, or NULL when unknown */
	const char *ident;    /* the module rows name it by: module, or for a
			       * diff's BASE build the NEW module it stands for */
	const char *local;    /* the module's file read here, or NULL */
	uint64_t offset;      /* address in the module's file (pc - bias) */
	const char *raw;      /* recorded name, or "0x<addr>" */
	enum sym_source source;
	uint32_t nchain;      /* levels in chain; >= 1 */
	const sym_loc *chain; /* innermost first; chain[nchain-1] is the real
			       * (out-of-line) function holding the pc */
} sym_info;

/* Opens a resolver over p's modules: the module table, the paths in v1
 * names, and /proc/PID/maps when o->pid > 0. p must outlive the sym.
 * Returns NULL only on ENOMEM; unreadable modules are listed by
 * sym_missing instead. Free with sym_close. */
sym *sym_open(const prof *p, const sym_opts *o);
void sym_close(sym *s);

/* Resolves addr (a return address when is_return: pc-1 is looked up).
 * Never NULL except on ENOMEM; the result is cached and owned by s. */
const sym_info *sym_resolve(sym *s, uint64_t addr, int is_return);
/* The same for frame f of the profile (every recorded frame is a return
 * address, the way backtrace() and unwinders report them). */
const sym_info *sym_frame(sym *s, uint32_t frame);

/* Modules the profile names that could not be read here, each once, with
 * the reason ("not found", "build-id differs", "base unknown"). */
typedef struct sym_missing_module {
	const char *path;
	const char *why;
} sym_missing_module;
size_t sym_missing(sym *s, const sym_missing_module **list);
/* How many modules were found and read (0: nothing resolves here). */
size_t sym_modules_found(const sym *s);

/* The ELF symbol holding frame's address and the address's offset in it
 * (mangled, as "sym+0xoff" names record it): from the recorded name, else
 * the module's symbol table. *name is not NUL-terminated (*len bytes) and
 * lives as long as s. 0, or -1 when neither knows it. */
int sym_frame_symbol(sym *s, uint32_t frame, const char **name, size_t *len, uint64_t *off);

/* A row label for an address: "func" (DWARF/ELF/recorded symbol) or the raw
 * name. Owned by s. */
const char *sym_func_name(const sym_info *si);

/* The inline chain as `addr2line -C -f -i` prints it: per level a line
 * with the function and a line with file:line ("??:0" when unknown).
 * Writes at most len bytes (NUL-terminated); returns the full length. */
size_t sym_chain_text(const sym_info *si, char *buf, size_t len);

/* Per source line of one file, pprof `list`-style: flat is the metric of
 * samples whose innermost location is on that line, cum of samples with
 * any location (inline callers and outer frames too) on it, once per
 * stack. Lines are 1-based; vals[0] unused. */
typedef struct sym_line_vals {
	int64_t flat[AGG_NMETRIC];
	int64_t cum[AGG_NMETRIC];
} sym_line_vals;
/* Fills *vals (caller frees with free()) with nlines+1 entries for p (s's
 * profile, or one holding a prefix of its frames at the same indices: a
 * diff of it), nlines being the highest line any location of file has.
 * Resolves every frame of p. Returns nlines (0 if none), or -1 on ENOMEM. */
long sym_source_lines(sym *s, const prof *p, const char *file, sym_line_vals **vals);
/* The lines of file as a node map over p (as above): one node per line
 * some location is on, named by its number ("123"); a frame maps to the
 * lines of file in its inline chain, innermost first, and to nothing when
 * it has none. Free with nodemap_free. 0 or -1 (ENOMEM). */
int sym_source_map(sym *s, const prof *p, const char *file, prof_nodemap *m);
/* The local path of a source file named by debug info: file itself when
 * readable, else under each --source-dir (whole path, then shorter
 * tails down to the file name). Writes into buf; NULL if none. */
const char *sym_source_path(const sym *s, const char *file, char *buf, size_t len);

/* export_lines' get over a sym (ctx): frame's inline chain, innermost first. */
size_t sym_export_lines(void *ctx, uint32_t frame, export_line *out, size_t cap);
/* The same for a resolved address (si may be NULL): 0 when unresolved. */
size_t sym_info_lines(const sym_info *si, export_line *out, size_t cap);

/* NEW - BASE (core/diff.h) with frames of modules built differently
 * matched by meaning: each side read against its own binary or recorded
 * names (base_so, and cur_sy or cur_so: cur_sy, when given, is used and
 * not closed). NULL with err filled on ENOMEM. */
prof *sym_diff_build(const prof *base, const sym_opts *base_so, const prof *cur, sym *cur_sy, const sym_opts *cur_so,
		     diff_stats *st, prof_error *err);

/* Granularity of a node map built from symbols. */
enum sym_gran { SYM_GRAN_ADDRESS, SYM_GRAN_FUNCTION, SYM_GRAN_LINE, SYM_GRAN_MODULE };
/* Parses "address", "function", "line", "module"; -1 if none. */
int sym_gran_parse(const char *name);
const char *sym_gran_name(enum sym_gran g);
/* Builds m (free with nodemap_free) for p at granularity g: inline frames
 * expand into their chain, innermost first, the inlined ones marked
 * AGG_NODE_INLINE. SYM_GRAN_ADDRESS names frames by resolved function and
 * location ("func file:line [0xaddr]"); s NULL gives raw names. 0 or -1. */
int sym_nodemap(prof_nodemap *m, const prof *p, sym *s, enum sym_gran g);
/* The map at g and p aggregated over it: what every mode and report opens
 * with.  0, or -1 (out of memory) with neither left allocated. */
int sym_nodemap_agg(prof_nodemap *m, agg *a, const prof *p, sym *s, enum sym_gran g);

#endif
