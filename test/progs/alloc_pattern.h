/* alloc_pattern.h - the byte pattern alloc_check and alloc_check_cxx write
 * into every block and check before it is freed: derived from the block's
 * address and size, so a block handed out twice, or overwritten, or mixed
 * up with another, no longer matches.  C and C++. */
#ifndef ALLOC_PATTERN_H
#define ALLOC_PATTERN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t pattern_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* The seed of the block at addr of n bytes. */
static inline uint64_t pattern_seed(uintptr_t addr, size_t n)
{
	return pattern_mix((uint64_t)addr * 0x9e3779b97f4a7c15ULL ^ (uint64_t)n ^ 0x5bd1e995ULL);
}

/* Word j of the pattern of a block seeded with seed. */
static inline uint64_t pattern_word(uint64_t seed, size_t j)
{
	return pattern_mix(seed + (uint64_t)j * 0x9e3779b97f4a7c15ULL);
}

static inline void pattern_fill(unsigned char *p, size_t n, uint64_t seed)
{
	size_t j = 0;
	for (; (j + 1) * 8 <= n; j++) {
		uint64_t w = pattern_word(seed, j);
		memcpy(p + j * 8, &w, 8);
	}
	if (j * 8 < n) {
		uint64_t w = pattern_word(seed, j);
		memcpy(p + j * 8, &w, n - j * 8);
	}
}

#endif
