/* pbuf.h - a minimal protocol-buffers wire decoder (varints, fixed, length-
 * delimited) for the pprof reader. Bounds-checked; a malformed message sets
 * bad and stops. No allocation. */
#ifndef MPROF_PBUF_H
#define MPROF_PBUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct pbuf {
	const uint8_t *d;
	size_t len, off;
	int bad;
} pbuf;

/* One field: number, wire type, and its value (varint/fixed) or bytes. */
typedef struct pfield {
	uint32_t num;
	int wt;
	uint64_t v;
	const uint8_t *b;
	size_t blen;
	size_t at;          /* offset of the field's tag in the message */
} pfield;

static inline pbuf pbuf_of(const uint8_t *d, size_t len)
{
	pbuf b = { d, len, 0, 0 };
	return b;
}

static inline uint64_t pbuf_varint(pbuf *b)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (b->off >= b->len) {
			b->bad = 1;
			return 0;
		}
		uint8_t c = b->d[b->off++];
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	b->bad = 1;
	return 0;
}

/* The next field, or 0 at the end of the message or on a malformed one. */
static inline int pbuf_next(pbuf *b, pfield *f)
{
	if (b->bad || b->off >= b->len)
		return 0;
	f->at = b->off;
	uint64_t tag = pbuf_varint(b);
	f->num = (uint32_t)(tag >> 3);
	f->wt = (int)(tag & 7);
	f->b = NULL;
	f->blen = 0;
	f->v = 0;
	if (b->bad || f->num == 0 || tag >> 32)
		goto bad;
	switch (f->wt) {
	case 0:
		f->v = pbuf_varint(b);
		break;
	case 1:
	case 5: {
		size_t n = f->wt == 1 ? 8 : 4;
		if (b->len - b->off < n)
			goto bad;
		for (size_t i = n; i-- > 0;)
			f->v = f->v << 8 | b->d[b->off + i];
		b->off += n;
		break;
	}
	case 2: {
		uint64_t n = pbuf_varint(b);
		if (b->bad || n > b->len - b->off)
			goto bad;
		f->b = b->d + b->off;
		f->blen = (size_t)n;
		b->off += (size_t)n;
		break;
	}
	default:
		goto bad;
	}
	return !b->bad;
bad:
	b->bad = 1;
	b->off = f->at;
	return 0;
}

#endif
