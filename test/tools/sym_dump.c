/* sym_dump.c - prints what the resolver says about every frame of a
 * profile, one line each, for the symbol tests to compare with
 * eu-addr2line:  0xADDR<TAB>MODULE<TAB>0xOFFSET<TAB>SOURCE<TAB>CHAIN<TAB>RAW<TAB>FILE
 * where CHAIN is "func@file:line" per inline level, innermost first,
 * joined by " | ". Then one "missing PATH: WHY" line per missing module.
 * With --lines SRC: "LINE FLAT CUM" (in-use bytes) per line of SRC that
 * has any, pprof list-style, instead.
 * With --text, FILE is MODULE:TEXT_VADDR:TEXT_SIZE:N (hex, N decimal): N
 * return addresses spread over the module's .text, no profile needed.
 * usage: sym_dump [--root DIR]... [--search-path DIR]... [--no-symbols]
 *                 [--lines SRC] [--text] FILE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load.h"
#include "symbols/sym.h"

static prof *text_prof(const char *spec, prof_error *err)
{
	char path[4096];
	unsigned long long va, sz;
	long n;
	prof *p = prof_new();
	if (!p || sscanf(spec, "%4095[^:]:%llx:%llx:%ld", path, &va, &sz, &n) != 4 || n <= 0 || !sz) {
		snprintf(err->msg, sizeof(err->msg), "%s: want MODULE:VADDR:SIZE:N", spec);
		prof_free(p);
		return NULL;
	}
	uint64_t base = 0x100000000000ULL;
	prof_module_add(p, path, NULL, base, va + sz, 0);
	for (long k = 0; k < n; k++)
		prof_frame_intern(p, base + va + 1 + (uint64_t)((double)k * (double)(sz - 1) / (double)n));
	return p;
}

int main(int argc, char **argv)
{
	const char *roots[16] = { 0 }, *search[16] = { 0 };
	int nr = 0, ns = 0, i;
	const char *lines = NULL;
	int text = 0;
	sym_opts o = { 0 };
	for (i = 1; i < argc - 1; i++) {
		if (!strcmp(argv[i], "--root") && nr < 15)
			roots[nr++] = argv[++i];
		else if (!strcmp(argv[i], "--search-path") && ns < 15)
			search[ns++] = argv[++i];
		else if (!strcmp(argv[i], "--text"))
			text = 1;
		else if (!strcmp(argv[i], "--lines"))
			lines = argv[++i];
		else if (!strcmp(argv[i], "--no-symbols"))
			o.no_symbols = 1;
		else
			break;
	}
	if (i != argc - 1) {
		fprintf(stderr, "usage: sym_dump [--root DIR] [--search-path DIR] [--no-symbols] FILE\n");
		return 2;
	}
	prof_error err;
	prof *p = text ? text_prof(argv[i], &err) : prof_load(argv[i], &err);
	if (!p) {
		fprintf(stderr, "sym_dump: %s\n", err.msg);
		return 2;
	}
	o.roots = roots;
	o.search_paths = search;
	o.profile_path = argv[i];
	sym *s = sym_open(p, &o);
	if (!s)
		return 1;
	if (lines) {
		sym_line_vals *v;
		long n = sym_source_lines(s, p, lines, &v);
		for (long l = 1; l <= n; l++)
			if (v[l].cum[AGG_INUSE_BYTES] || v[l].flat[AGG_INUSE_BYTES])
				printf("%ld %lld %lld\n", l, (long long)v[l].flat[AGG_INUSE_BYTES],
				       (long long)v[l].cum[AGG_INUSE_BYTES]);
		free(v);
		sym_close(s);
		prof_free(p);
		return n < 0;
	}
	static const char *src[] = { "dwarf", "elf", "recorded", "raw" };
	for (uint32_t f = 0; f < p->frames.len; f++) {
		const sym_info *si = sym_frame(s, f);
		printf("0x%llx\t%s\t0x%llx\t%s\t", (unsigned long long)si->addr, si->module ? si->module : "-",
		       (unsigned long long)si->offset, src[si->source]);
		for (uint32_t k = 0; k < si->nchain; k++)
			printf("%s%s@%s:%d", k ? " | " : "", si->chain[k].func ? si->chain[k].func : "??",
			       si->chain[k].file ? si->chain[k].file : "??", si->chain[k].line);
		printf("\t%s\t%s\n", si->raw, si->local ? si->local : "-");
	}
	const sym_missing_module *mm;
	size_t n = sym_missing(s, &mm);
	for (size_t k = 0; k < n; k++)
		printf("missing %s: %s\n", mm[k].path, mm[k].why);
	sym_close(s);
	prof_free(p);
	return 0;
}
