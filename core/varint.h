/* varint.h - LEB128 varints (7 bits a byte, low first, at most 10 bytes)
 * and zigzag signed deltas: the recording format (recfmt.h) and the
 * segment's event ring (attach/shared/segment.h) both encode with these. */
#ifndef MPROF_VARINT_H
#define MPROF_VARINT_H

#include <stdint.h>

static inline uint8_t *varint_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Reads a varint at *p (before end); NULL when cut or longer than 10 bytes. */
static inline const uint8_t *varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	for (unsigned sh = 0; p < end && sh < 70; sh += 7) {
		uint8_t b = *p++;
		x |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80)) {
			*v = x;
			return p;
		}
	}
	return NULL;
}

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

#endif
