/* recording_decode.c - a recording's compressed runs and compact events
 * (core/recfmt.h) turned back into rec_event arrays: the decoder every
 * reader of events goes through, and a cursor that keeps the last run and
 * chunk it decoded. Nothing is trusted: every varint, reference and length
 * is checked. */
#include "core/recording_int.h"
#include "core/vec.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* A frame that never ended (the writer was killed, or its disk was full):
 * decoded as far as its whole blocks go. */
static int unzstd_cut(ZSTD_DCtx *dc, const uint8_t *p, size_t len, uint8_t **raw, size_t *cap, size_t *rawlen,
		      char *why, size_t whylen)
{
	ZSTD_DCtx_reset(dc, ZSTD_reset_session_only);
	ZSTD_inBuffer in = { p, len, 0 };
	size_t n = 0;
	for (;;) {
		if (n == *cap && (n >= REC_ZSTD_MAX || vec_grow((void **)raw, cap, n + (1u << 20), 1))) {
			snprintf(why, whylen, n >= REC_ZSTD_MAX ? "compressed chunk: more than %u bytes" : "out of memory",
				 REC_ZSTD_MAX);
			return -1;
		}
		ZSTD_outBuffer out = { *raw, *cap < REC_ZSTD_MAX ? *cap : REC_ZSTD_MAX, n };
		size_t rc = ZSTD_decompressStream(dc, &out, &in);
		n = out.pos;
		/* An error is where the bytes written stop making sense: the end. */
		if (ZSTD_isError(rc) || !rc || (in.pos == in.size && out.pos < out.size))
			break;
	}
	*rawlen = n;
	return 0;
}

int rec_unzstd(void **dctx, const uint8_t *p, size_t len, int cut, uint8_t **raw, size_t *cap, size_t *rawlen,
	       char *why, size_t whylen)
{
	uint32_t hd[2];
	if (len < 8) {
		snprintf(why, whylen, "compressed chunk of %zu bytes", len);
		return -1;
	}
	memcpy(hd, p, 8);
	if (!*dctx && !(*dctx = ZSTD_createDCtx())) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	if (cut)
		return unzstd_cut(*dctx, p + 8, len - 8, raw, cap, rawlen, why, whylen);
	/* A streamed frame (version 5) says no content size: raw_len does. */
	unsigned long long fs = ZSTD_getFrameContentSize(p + 8, len - 8);
	if (hd[0] > REC_ZSTD_MAX || (fs != hd[0] && fs != ZSTD_CONTENTSIZE_UNKNOWN)) {
		snprintf(why, whylen, "compressed chunk: %u bytes said, the zstd frame holds %lld", hd[0],
			 fs == ZSTD_CONTENTSIZE_ERROR ? -1LL : (long long)fs);
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
		      size_t prior, rec_dstate *st, char *why, size_t whylen, size_t *at)
{
	const uint8_t *q = p, *end = p + len;
	uint64_t tus = st->tus, v, age = st->age;
	int age_delta = version >= REC_VERSION_AGE_DELTA;
	int64_t stack = st->stack;
	uint32_t tid = st->tid;
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
		/* In the run: prior events before out. Bounded before the pointer is made. */
		const rec_event *a = x <= i + prior ? out + ((ptrdiff_t)i - (ptrdiff_t)x) : NULL;
		if (!a || a->kind != REC_EV_ALLOC)
			DBAD("event %u: free refers to event %llu back, not an allocation in its chunk", i,
			     (unsigned long long)x);
		e->kind = REC_EV_FREE;
		e->stack = a->stack;
		e->size = a->size;
		e->ref = first + i - x + 1;
	}
	*st = (rec_dstate){ tus, age, stack, tid };
	*at = (size_t)(q - p);
	return 0;
}

const rec_event *rec_cursor_chunk(rec_cursor *k, const rec_file *f, size_t c)
{
	if (k->cf == f && k->c == c)
		return k->ev + k->nev - f->ch[c].count;
	size_t run = c;
	while (run && f->ch[run].cont)   /* the parser saw each part follow its run in one frame */
		run--;
	const rec_chref *ch = &f->ch[c];
	const uint8_t *base = f->map;
	size_t blen = f->len;
	char why[160];
	if (ch->zoff != UINT64_MAX) {
		if (!(k->zf == f && k->zoff == ch->zoff)) {
			uint32_t zl;
			memcpy(&zl, f->map + ch->zoff - 4, 4);
			int cut = zl > f->len - ch->zoff;   /* a frame that never ended, read as the parser did */
			k->zf = NULL;
			k->cf = NULL;
			if (rec_unzstd(&k->dctx, f->map + ch->zoff, cut ? f->len - ch->zoff : zl, cut, &k->raw, &k->rawcap,
				       &k->rawlen, why, sizeof(why)))
				return NULL;
			k->zf = f;
			k->zoff = ch->zoff;
		}
		base = k->raw;
		blen = k->rawlen;
	}
	/* A run is decoded from its first chunk, or on from the last one asked. */
	size_t j = run;
	if (k->cf == f && k->run == run && k->c < c) {
		j = k->c + 1;
	} else {
		k->nev = 0;
		k->st = (rec_dstate){ 0 };
	}
	k->cf = NULL;
	for (; j <= c; j++) {
		const rec_chref *h = &f->ch[j];
		size_t at;
		if (h->off > blen || h->len > blen - h->off ||
		    vec_grow((void **)&k->ev, &k->evcap, k->nev + (h->count ? h->count : 1), sizeof(rec_event)) ||
		    rec_decode_events(base + h->off, h->len, h->count, h->first, f->fh.version, k->ev + k->nev, k->nev,
				      &k->st, why, sizeof(why), &at))
			return NULL;
		k->nev += h->count;
	}
	k->cf = f;
	k->run = run;
	k->c = c;
	return k->ev + k->nev - ch->count;
}

void rec_cursor_free(rec_cursor *k)
{
	ZSTD_freeDCtx(k->dctx);
	free(k->raw);
	free(k->ev);
	memset(k, 0, sizeof(*k));
}
