/* gen_v1 - writes a synthetic skynet v1 profile for benchmarks and tests:
 * gen_v1 OUT BUCKETS FUNCS DEPTH [SEED]. Stacks share root-side prefixes
 * like real call trees; sizes and counts vary. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/load.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: gen_v1 OUT BUCKETS FUNCS DEPTH [SEED]\n");
		return 2;
	}
	long nb = atol(argv[2]), nf = atol(argv[3]), depth = atol(argv[4]);
	if (argc > 5)
		rng ^= strtoull(argv[5], NULL, 0) * 0x9e3779b97f4a7c15ULL;
	if (nb < 1 || nf < 2 || depth < 1 || depth > 1000) {
		fprintf(stderr, "gen_v1: bad sizes\n");
		return 2;
	}
	prof *p = prof_new();
	char name[128];
	for (long i = 0; i < nf; i++) {
		uint64_t addr = 0x555500000000ULL + (uint64_t)i * 0x40 + 0x13;
		uint32_t f = prof_frame_intern(p, addr);
		int n = snprintf(name, sizeof(name), "./bin/app(func_%ld+0x13) [0x%llx]", i,
				 (unsigned long long)addr);
		p->frames.v[f].name = prof_str(p, name, (size_t)n);
	}
	uint32_t st[1000];
	for (long b = 0; b < nb; b++) {
		long d = depth / 2 + (long)(next() % (uint64_t)depth) + 1;
		if (d > 1000)
			d = 1000;
		/* Root side from a small set (shared paths), leaf side spread out. */
		for (long k = 0; k < d; k++) {
			long root_dist = d - 1 - k;
			uint64_t r = next();
			st[k] = root_dist < 4 ? (uint32_t)(r % 16 + (uint64_t)root_dist * 16) % (uint32_t)nf
					      : (uint32_t)(r % (uint64_t)nf);
		}
		uint32_t s = prof_stack_add(p, st, (uint32_t)d);
		uint64_t size = 16u << (next() % 8);
		uint64_t objs = next() % 64 + 1, freed = next() % (objs + 1);
		prof_sample_add(p, s, size, objs, objs * size, freed, freed * size);
	}
	prof_error err;
	if (prof_save(p, argv[1], PROF_FMT_V1, &err)) {
		fprintf(stderr, "gen_v1: %s\n", err.msg);
		return 1;
	}
	prof_free(p);
	return 0;
}
