/* recording_decode.c - a recording's compressed runs and compact events
 * (core/recfmt.h) turned back into rec_event arrays: the decoder every
 * reader of events goes through, and a cursor that keeps the last run and
 * chunk it decoded. Nothing is trusted: every varint, reference and length
 * is checked. */
#include "core/recording_int.h"
#include "core/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

int rec_unzstd(void **dctx, const uint8_t *p, size_t len, uint8_t **raw, size_t *cap, size_t *rawlen, char *why,
	       size_t whylen)
{
	uint32_t hd[2];
	if (len < 8) {
		snprintf(why, whylen, "compressed chunk of %zu bytes", len);
		return -1;
	}
	memcpy(hd, p, 8);
	unsigned long long fs = ZSTD_getFrameContentSize(p + 8, len - 8);
	if (hd[0] > REC_ZSTD_MAX || fs != hd[0]) {
		snprintf(why, whylen, "compressed chunk: %u bytes said, the zstd frame holds %lld", hd[0],
			 fs == ZSTD_CONTENTSIZE_ERROR ? -1LL : (long long)fs);
		return -1;
	}
	if (!*dctx && !(*dctx = ZSTD_createDCtx())) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	if (vec_grow((void **)raw, cap, hd[0] ? hd[0] : 1, 1)) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	size_t n = ZSTD_decompressDCtx(*dctx, *raw, hd[0], p + 8, len - 8);
	if (ZSTD_isError(n) || n != hd[0]) {
		snprintf(why, whylen, "corrupt zstd frame: %s", ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short");
		return -1;
	}
	*rawlen = n;
	return 0;
}

#define DBAD(...) do { snprintf(why, whylen, __VA_ARGS__); *at = (size_t)(q - p); return -1; } while (0)

int rec_decode_events(const uint8_t *p, size_t len, uint32_t count, uint64_t first, uint32_t version, rec_event *out,
		      char *why, size_t whylen, size_t *at)
{
	const uint8_t *q = p, *end = p + len;
	uint64_t tus = 0, v, age = 0;
	int age_delta = version >= REC_VERSION_AGE_DELTA;
	int64_t stack = 0;
	uint32_t tid = 0;
	if (count > len)
		DBAD("%u events cannot fit in %zu bytes", count, len);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t tag;
		const uint8_t *ev0 = q;
		if (!(q = varint_get(q, end, &tag)))
			DBAD("event %u: bad or cut varint", i);
		if (tag & 4) {
			if (!(q = varint_get(q, end, &v)))
				DBAD("event %u: bad or cut varint", i);
			int64_t d = unzigzag(v);
			if ((d < 0 && (uint64_t)-d > tus) || (d > 0 && (uint64_t)d > UINT64_MAX / 1000 - tus)) {
				q = ev0;
				DBAD("event %u: time out of range", i);
			}
			tus += (uint64_t)d;
		}
		if (tag & 2) {
			if (!(q = varint_get(q, end, &v)) || v > UINT32_MAX)
				DBAD("event %u: bad thread id", i);
			tid = (uint32_t)v;
		}
		rec_event *e = &out[i];
		uint64_t x = tag >> 3;
		e->time_ns = tus * 1000;
		e->tid = tid;
		e->ref = 0;
		if (!(tag & 1) || !x) {   /* an allocation, or a free that says all */
			if ((tag & 1) && !(q = varint_get(q, end, &x)))
				DBAD("event %u: bad or cut varint", i);
			int64_t d = unzigzag(x);
			if (d > (int64_t)UINT32_MAX || d < -(int64_t)UINT32_MAX || stack + d < 0 || stack + d > (int64_t)UINT32_MAX)
				DBAD("event %u: stack id out of range", i);
			stack += d;
			e->stack = (uint32_t)stack;
			if (!(q = varint_get(q, end, &e->size)))
				DBAD("event %u: bad or cut varint", i);
			e->kind = tag & 1 ? REC_EV_FREE : REC_EV_ALLOC;
			if (tag & 1) {
				if (!(q = varint_get(q, end, &v)))
					DBAD("event %u: bad or cut varint", i);
				if (v > first + i)
					DBAD("event %u: free refers to an allocation %llu events back, before the run began", i,
					     (unsigned long long)v);
				e->ref = v ? first + i - v + 1 : 0;
			}
			continue;
		}
		if (age_delta) {   /* x - 1: zigzag(this age - the last one) */
			int64_t a;
			if (__builtin_add_overflow((int64_t)age, unzigzag(x - 1), &a) || a <= 0)
				DBAD("event %u: free refers to an allocation %lld events back", i, (long long)a);
			x = age = (uint64_t)a;
		}
		if (x > i || out[i - x].kind != REC_EV_ALLOC)
			DBAD("event %u: free refers to event %llu back, not an allocation in its chunk", i,
			     (unsigned long long)x);
		e->kind = REC_EV_FREE;
		e->stack = out[i - x].stack;
		e->size = out[i - x].size;
		e->ref = first + i - x + 1;
	}
	*at = (size_t)(q - p);
	return 0;
}

const rec_event *rec_cursor_chunk(rec_cursor *k, const rec_file *f, size_t c)
{
	if (k->cf == f && k->c == c)
		return k->ev;
	const rec_chref *ch = &f->ch[c];
	const uint8_t *base = f->map;
	size_t blen = f->len;
	char why[160];
	if (ch->zoff != UINT64_MAX) {
		if (!(k->zf == f && k->zoff == ch->zoff)) {
			uint32_t zl;
			memcpy(&zl, f->map + ch->zoff - 4, 4);
			k->zf = NULL;
			if (rec_unzstd(&k->dctx, f->map + ch->zoff, zl, &k->raw, &k->rawcap, &k->rawlen, why, sizeof(why)))
				return NULL;
			k->zf = f;
			k->zoff = ch->zoff;
		}
		base = k->raw;
		blen = k->rawlen;
	}
	if (ch->off > blen || ch->len > blen - ch->off)
		return NULL;
	k->cf = NULL;
	size_t at;
	if (vec_grow((void **)&k->ev, &k->evcap, ch->count ? ch->count : 1, sizeof(rec_event)) ||
	    rec_decode_events(base + ch->off, ch->len, ch->count, ch->first, f->fh.version, k->ev, why, sizeof(why), &at))
		return NULL;
	k->cf = f;
	k->c = c;
	return k->ev;
}

void rec_cursor_free(rec_cursor *k)
{
	ZSTD_freeDCtx(k->dctx);
	free(k->raw);
	free(k->ev);
	memset(k, 0, sizeof(*k));
}
