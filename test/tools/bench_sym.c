/* bench_sym.c - symbol resolution speed: N distinct addresses spread over
 * the .text of the given modules (placed as a native profile's module
 * table would place them), resolved cold (fresh resolver, DWARF read on
 * first use) and warm (cached).
 * usage: bench_sym N FILE:TEXT_VADDR:TEXT_SIZE... (hex vaddr/size) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/prof.h"
#include "symbols/sym.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_sym N FILE:TEXT_VADDR:TEXT_SIZE...\n");
		return 2;
	}
	long n = atol(argv[1]);
	int nm = argc - 2;
	prof *p = prof_new();
	if (!p)
		return 1;
	for (int i = 0; i < nm; i++) {
		char path[4096];
		unsigned long long va, sz;
		if (sscanf(argv[i + 2], "%4095[^:]:%llx:%llx", path, &va, &sz) != 3 || !sz) {
			fprintf(stderr, "bench_sym: bad module '%s'\n", argv[i + 2]);
			return 2;
		}
		uint64_t base = 0x100000000000ULL * (uint64_t)(i + 1);
		prof_module_add(p, path, NULL, base, va + sz, 0);
		long per = n / nm + (i < n % nm);
		/* Distinct return addresses, evenly over .text. */
		for (long k = 0; k < per; k++) {
			uint64_t a = base + va + 1 + (uint64_t)((double)k * (double)(sz - 1) / (double)per);
			if (prof_frame_intern(p, a) == PROF_NONE)
				return 1;
		}
	}
	if ((long)p->frames.len != n)
		fprintf(stderr, "bench_sym: only %zu distinct addresses\n", p->frames.len);
	sym_opts o = { 0 };
	double t0 = now();
	sym *s = sym_open(p, &o);
	if (!s)
		return 1;
	size_t by[4] = { 0 };
	for (uint32_t f = 0; f < p->frames.len; f++)
		by[sym_frame(s, f)->source]++;
	double t1 = now();
	for (uint32_t f = 0; f < p->frames.len; f++)
		if (!sym_frame(s, f))
			return 1;
	double t2 = now();
	printf("symbols: %zu distinct addresses in %d modules (dwarf %zu, elf %zu, none %zu)\n",
	       p->frames.len, nm, by[0], by[1], by[2] + by[3]);
	printf("  cold: %.3f s   (target < 1 s)\n", t1 - t0);
	printf("  warm: %.3f s   (cached)\n", t2 - t1);
	const sym_missing_module *mm;
	size_t nmiss = sym_missing(s, &mm);
	for (size_t i = 0; i < nmiss; i++)
		printf("  missing %s: %s\n", mm[i].path, mm[i].why);
	sym_close(s);
	prof_free(p);
	return 0;
}
