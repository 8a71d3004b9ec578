/* hash.h - the one 64-bit mixer behind every hash table of mprof, the
 * hook's lock-free ones included.  Header-only: libmprof.so uses it too. */
#ifndef MPROF_HASH_H
#define MPROF_HASH_H

#include <stdint.h>

/* A bijection (MurmurHash3's finalizer, first round): every input bit
 * reaches the low bits, which power-of-two tables use, and the high ones. */
static inline uint64_t hash_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

#endif
