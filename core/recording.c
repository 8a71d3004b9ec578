/* recording.c - a recording directory opened for time travel (see
 * recording.h). Each file is mapped read-only and parsed by a thread of
 * its own from the checkpoint it starts with; nothing in a file is trusted:
 * every length, count and id is checked against the mapping. */
#include "core/recording.h"
#include "core/agg.h"
#include "core/snapdiff.h"
#include "core/v1name.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define REC_MAX_IDS (1u << 26)     /* stack ids beyond are refused as corrupt */
#define REC_MAX_DEPTH 4096
#define REC_MAX_BUCKETS (1u << 25)  /* 100 ms buckets: 38 days of run */
#define REC_CK_EVENTS (1u << 20)   /* a checkpoint at least every this many events ... */
#define REC_CK_PER_STACK 64        /* ... and this many per stack (their memory stays under a byte an event) */

#include "core/recording_int.h"

/* ---- parsing one file (a thread each) ------------------------------------- */

typedef struct parse_st {
	mp_counts *c;
	size_t n, cap;
	size_t max_ids;    /* ids are dense and every file declares its stacks: a few per 16 bytes at most */
	int64_t inuse;
	uint64_t ev, tmax, last_ck;
} parse_st;

static int st_fit(parse_st *s, uint32_t id)
{
	if (id < s->n)
		return 0;
	if (id >= s->max_ids)
		return -1;
	if (vec_grow((void **)&s->c, &s->cap, (size_t)id + 1, sizeof(mp_counts)))
		return -1;
	memset(s->c + s->n, 0, ((size_t)id + 1 - s->n) * sizeof(mp_counts));
	s->n = (size_t)id + 1;
	return 0;
}

static int ck_push(rec_file *f, const parse_st *s)
{
	rec_ck k = { s->ev, s->tmax, s->inuse, NULL, s->n };
	k.c = malloc((s->n ? s->n : 1) * sizeof(mp_counts));
	if (!k.c)
		return -1;
	if (s->n)
		memcpy(k.c, s->c, s->n * sizeof(mp_counts));
	if (PUSH(f->ck, f->nck, f->capck, k)) {
		free(k.c);
		return -1;
	}
	return 0;
}

/* The bucket of time t, added (carrying the value in use) if new. */
static rec_bucket *bucket(rec_file *f, uint64_t t, const parse_st *s)
{
	int64_t k = (int64_t)(t / REC_BUCKET_NS);
	if (!f->ntl)
		f->tl_first = k;
	if (k < f->tl_first)
		k = f->tl_first;
	size_t i = (size_t)(k - f->tl_first);
	if (i >= REC_MAX_BUCKETS)
		return NULL;   /* a time jump of weeks: corrupt, not a real run */
	if (i >= f->ntl) {
		if (vec_grow((void **)&f->tl, &f->captl, i + 1, sizeof(rec_bucket)))
			return NULL;
		for (size_t j = f->ntl; j <= i; j++)
			f->tl[j] = (rec_bucket){ s->inuse, s->ev };
		f->ntl = i + 1;
	}
	return &f->tl[i];
}

void rec_apply(mp_counts *c, const rec_event *e, uint64_t pos, uint64_t rate, int dither, int64_t *inuse)
{
	uint64_t o, b;
	rec_weight_at(e->size, rate, e->kind == REC_EV_FREE && e->ref ? e->ref - 1 : pos, dither, &o, &b);
	if (e->kind == REC_EV_FREE) {
		c->free_objs += o;
		c->free_bytes += b;
		*inuse = (int64_t)((uint64_t)*inuse - b);   /* wraps on hostile input, never UB */
	} else {
		c->alloc_objs += o;
		c->alloc_bytes += b;
		agg_add(inuse, (int64_t)b);
	}
}

/* A chunk's place for messages: its file offset, or its ZSTD chunk's and
 * the byte in that chunk's content. */
typedef struct parse_ctx {
	rec_file *f;
	parse_st s;
	int have_ck;
	uint64_t rate;
	uint64_t zoff;             /* the ZSTD payload being walked, UINT64_MAX: none */
	int cut;                   /* it runs past the end of the file (read as far as it goes) */
	int run_open;              /* an EVENTS chunk was read in this frame: the next may continue its run */
	size_t run_n;              /* the run's events so far, in ev */
	rec_dstate run_st;         /* its stream's state */
	void *dctx;
	uint8_t *raw;              /* owned */
	size_t rawcap, rawlen;
	rec_event *ev;             /* owned */
	size_t evcap;
	char where[96];
} parse_ctx;

static const char *at(parse_ctx *x, size_t off)
{
	if (x->zoff == UINT64_MAX)
		snprintf(x->where, sizeof(x->where), "offset %zu", off);
	else
		snprintf(x->where, sizeof(x->where), "offset %llu: compressed content byte %zu",
			 (unsigned long long)x->zoff - 8, off);
	return x->where;
}

#define BAD(...) do { snprintf(f->err, sizeof(f->err), __VA_ARGS__); return -1; } while (0)

/* The file's own checkpoint, first, when its events begin. */
static int first_ck(parse_ctx *x)
{
	rec_file *f = x->f;
	parse_st *s = &x->s;
	if (f->nck)
		return 0;
	if (!bucket(f, s->tmax, s) || ck_push(f, s))
		return -1;
	s->last_ck = s->ev;
	f->peak = s->inuse;
	f->peak_ev = s->ev;
	f->peak_time = s->tmax;
	return 0;
}

static int parse_events(parse_ctx *x, const uint8_t *p, uint32_t len, size_t pay)
{
	rec_file *f = x->f;
	parse_st *s = &x->s;
	uint32_t count;
	if (!x->have_ck)
		BAD("%s: %s: events before the checkpoint", f->path, at(x, pay - 8));
	if (len < 8)
		BAD("%s: %s: event chunk of %u bytes", f->path, at(x, pay - 8), len);
	memcpy(&count, p, 4);
	if (count > len - 8)
		BAD("%s: %s: %u events do not fit in %u bytes", f->path, at(x, pay - 8), count, len);
	if (first_ck(x))
		BAD("%s: out of memory", f->path);
	char why[160];
	size_t bad;
	uint32_t cont;   /* version 5: it continues the run of the frame's EVENTS chunk before it */
	memcpy(&cont, p + 4, 4);
	cont = f->fh.version >= REC_VERSION_STREAM && (cont & REC_EV_CONT);
	if (cont && !x->run_open)
		BAD("%s: %s: an event chunk continues none", f->path, at(x, pay - 8));
	if (!cont) {
		x->run_n = 0;
		x->run_st = (rec_dstate){ 0 };
	}
	if (vec_grow((void **)&x->ev, &x->evcap, x->run_n + (count ? count : 1), sizeof(rec_event)))
		BAD("%s: out of memory", f->path);
	rec_event *ev = x->ev + x->run_n;
	if (rec_decode_events(p + 8, len - 8, count, s->ev, f->fh.version, ev, x->run_n, &x->run_st, why, sizeof(why),
			      &bad))
		BAD("%.4000s: %s: %s", f->path, at(x, pay + 8 + bad), why);
	x->run_n += count;
	x->run_open = 1;
	rec_chref r = { x->zoff, pay + 8, s->ev, count, len - 8, cont };
	if (PUSH(f->ch, f->nch, f->capch, r))
		BAD("%s: out of memory", f->path);
	for (uint32_t k = 0; k < count; k++) {
		const rec_event *e = &ev[k];
		if (st_fit(s, e->stack))
			BAD("%s: %s: event %u: stack id %u out of bounds", f->path, at(x, pay + 8), k, e->stack);
		/* The buckets up to this event's carry the value before it. */
		uint64_t nt = e->time_ns > s->tmax ? e->time_ns : s->tmax;
		if (!bucket(f, nt, s))
			BAD("%s: %s: event %u: time %llu ns beyond the run's span, or out of memory", f->path,
			    at(x, pay + 8), k, (unsigned long long)nt);
		rec_apply(&s->c[e->stack], e, s->ev, x->rate, f->fh.version >= REC_VERSION_DITHER, &s->inuse);
		s->ev++;
		s->tmax = nt;
		rec_bucket *b = bucket(f, nt, s);
		if (s->inuse > b->peak) {
			b->peak = s->inuse;
			b->peak_ev = s->ev;
		}
		if (s->inuse > f->peak) {
			f->peak = s->inuse;
			f->peak_ev = s->ev;
			f->peak_time = s->tmax;
		}
		if (s->ev - s->last_ck >= REC_CK_EVENTS && s->ev - s->last_ck >= REC_CK_PER_STACK * s->n) {
			if (ck_push(f, s))
				BAD("%s: out of memory", f->path);
			s->last_ck = s->ev;
		}
	}
	return 0;
}

static int parse_chunks(parse_ctx *x, const uint8_t *base, size_t len);

static int parse_chunk(parse_ctx *x, const rec_chunk *c, const uint8_t *p, size_t off)
{
	rec_file *f = x->f;
	parse_st *s = &x->s;
	size_t pay = off + sizeof(*c);
	switch (c->type) {
	case REC_C_MODULE: {
		rec_module m;
		if (c->len < sizeof(m))
			BAD("%s: %s: module chunk of %u bytes", f->path, at(x, off), c->len);
		memcpy(&m, p, sizeof(m));
		if (PUSH(f->mods, f->nmods, f->capmods, m))
			BAD("%s: out of memory", f->path);
		break;
	}
	case REC_C_STACKS: {
		uint32_t count;
		if (c->len < 8)
			BAD("%s: %s: stack chunk of %u bytes", f->path, at(x, off), c->len);
		memcpy(&count, p, 4);
		size_t q = 8;
		for (uint32_t k = 0; k < count; k++) {
			uint32_t hd[2];
			if (c->len - q < 8)
				BAD("%s: %s: stack %u of %u past the chunk's end", f->path, at(x, pay + q), k, count);
			memcpy(hd, p + q, 8);
			if (hd[1] > REC_MAX_DEPTH || (c->len - q - 8) / 8 < hd[1] || hd[0] >= x->s.max_ids)   /* as events' ids */
				BAD("%s: %s: stack id %u depth %u out of bounds", f->path, at(x, pay + q), hd[0], hd[1]);
			rec_stref r = { hd[0], hd[1], f->npcs };
			if (PUSH(f->st, f->nst, f->capst, r) ||
			    vec_grow((void **)&f->pcs, &f->cappcs, f->npcs + hd[1], sizeof(uint64_t)))
				BAD("%s: out of memory", f->path);
			if (hd[1])   /* pcs may still be NULL */
				memcpy(f->pcs + f->npcs, p + q + 8, (size_t)hd[1] * 8);
			f->npcs += hd[1];
			q += 8 + (size_t)hd[1] * 8;
		}
		break;
	}
	case REC_C_CHECKPOINT: {
		rec_checkpoint k;
		if (c->len < sizeof(k) || x->have_ck)
			BAD("%s: %s: %s checkpoint", f->path, at(x, off), x->have_ck ? "second" : "short");
		memcpy(&k, p, sizeof(k));
		x->have_ck = 1;
		s->ev = f->first_ev = k.events;
		s->tmax = f->t0 = k.time_ns;
		f->lost = k.lost;
		break;
	}
	case REC_C_COUNTS:
		if (!x->have_ck || f->nch)
			BAD("%s: %s: counters outside the file's checkpoint", f->path, at(x, off));
		for (size_t q = 0; q + sizeof(rec_counts) <= c->len; q += sizeof(rec_counts)) {
			rec_counts rc;
			memcpy(&rc, p + q, sizeof(rc));
			if (st_fit(s, rc.id))
				BAD("%s: %s: stack id %u out of bounds", f->path, at(x, pay + q), rc.id);
			s->c[rc.id] = rc.c;
			agg_add(&s->inuse, (int64_t)(rc.c.alloc_bytes - rc.c.free_bytes));
		}
		break;
	case REC_C_EVENTS:
		return parse_events(x, p, c->len, pay);
	case REC_C_ZSTD: {
		char why[160];
		if (x->zoff != UINT64_MAX)
			BAD("%s: %s: a compressed chunk inside a compressed chunk", f->path, at(x, off));
		if (rec_unzstd(&x->dctx, p, c->len, x->cut, &x->raw, &x->rawcap, &x->rawlen, why, sizeof(why)))
			BAD("%.4000s: %s: %s", f->path, at(x, off), why);
		x->zoff = pay;
		x->run_open = 0;   /* a run is within one frame */
		int rc = parse_chunks(x, x->raw, x->rawlen);
		x->zoff = UINT64_MAX;
		x->run_open = 0;
		return rc;
	}
	case REC_C_WAIT: {
		rec_wait w;
		if (c->len >= sizeof(w)) {
			memcpy(&w, p, sizeof(w));
			rec_waitpt pt = { w.time_ns, w.waits, w.wait_ns, w.max_ns };
			if (PUSH(f->waits, f->nwaits, f->capwaits, pt))
				BAD("%s: out of memory", f->path);
		}
		break;
	}
	case REC_C_GAP: {
		rec_gap g;
		if (c->len >= sizeof(g)) {
			memcpy(&g, p, sizeof(g));
			f->lost += g.lost;
		}
		break;
	}
	case REC_C_END: {   /* the heap stayed as it was until the file was closed */
		rec_end e = { 0 };
		f->closed = 1;
		if (c->len >= 24) {
			memcpy(&e, p, 24);
			f->end_how = (uint32_t)e.how;
		}
		if (c->len >= 16 && f->nck) {
			memcpy(&e, p, 16);
			if (e.time_ns > s->tmax && e.time_ns - s->tmax < 86400ull * 1000000000 && !bucket(f, e.time_ns, s))
				BAD("%s: out of memory", f->path);
			if (e.time_ns > f->t_end)
				f->t_end = e.time_ns;
		}
		break;
	}
	default:   /* chunk types of later versions: skipped */
		break;
	}
	return 0;
}

/* Walks the chunks of base (the mapping after the header, or a ZSTD
 * chunk's content); a cut chunk ends the file. */
static int parse_chunks(parse_ctx *x, const uint8_t *base, size_t len)
{
	size_t off = x->zoff == UINT64_MAX ? x->f->fh.header_size : 0;
	while (off < len) {
		rec_chunk c;
		if (len - off < sizeof(c) || (memcpy(&c, base + off, sizeof(c)), c.len > len - off - sizeof(c))) {
			if (x->zoff != UINT64_MAX && !x->cut) {
				rec_file *f = x->f;
				BAD("%s: %s: chunk past the end of its compressed content", f->path, at(x, off));
			}
			x->f->truncated = 1;   /* cut short: the writer was killed, or could not write */
			/* A frame that never ended: its whole blocks, and the chunks whole in them. */
			if (x->zoff == UINT64_MAX && c.type == REC_C_ZSTD && len - off >= sizeof(c) + 8) {
				x->cut = 1;
				size_t left = len - off - sizeof(c);
				c.len = left < UINT32_MAX ? (uint32_t)left : UINT32_MAX;
				return parse_chunk(x, &c, base + off + sizeof(c), off);
			}
			break;
		}
		if (parse_chunk(x, &c, base + off + sizeof(c), off))
			return -1;
		off += sizeof(c) + c.len;
	}
	return 0;
}

static void *parse_file(void *arg)
{
	rec_file *f = arg;
	parse_ctx x = { .f = f, .zoff = UINT64_MAX };
	parse_st *s = &x.s;
	s->max_ids = f->len / 4 + 1024 < REC_MAX_IDS ? f->len / 4 + 1024 : REC_MAX_IDS;
	if (f->len < REC_HEADER_V4_SIZE) {
		snprintf(f->err, sizeof(f->err), "%s: offset 0: %zu bytes, too short for a recording header", f->path, f->len);
		return NULL;
	}
	memcpy(&f->fh, f->map, f->len < sizeof(f->fh) ? f->len : sizeof(f->fh));
	size_t hmin = f->fh.version >= REC_VERSION_STREAM ? sizeof(rec_file_header) : REC_HEADER_V4_SIZE;
	if (memcmp(f->fh.magic, REC_MAGIC, 8))
		snprintf(f->err, sizeof(f->err), "%s: offset 0: not an mprof recording (bad magic)", f->path);
	else if (f->fh.version < REC_VERSION_MIN)
		snprintf(f->err, sizeof(f->err),
			 "%s: offset 8: recording version %u, written by an earlier mprof: this one reads versions %u to %u",
			 f->path, f->fh.version, REC_VERSION_MIN, REC_VERSION);
	else if (f->fh.version > REC_VERSION || f->fh.header_size < hmin ||
		 f->fh.header_size > f->len || f->fh.header_size % 8)
		snprintf(f->err, sizeof(f->err), "%s: offset 8: recording version %u (header %u bytes) not supported",
			 f->path, f->fh.version, f->fh.header_size);
	if (f->err[0])
		return NULL;
	f->fh.cmdline[sizeof(f->fh.cmdline) - 1] = 0;
	if (hmin < sizeof(rec_file_header))
		memset(f->fh.stopped, 0, sizeof(f->fh.stopped));   /* not in this version's header */
	f->fh.stopped[sizeof(f->fh.stopped) - 1] = 0;
	x.rate = f->fh.sample_rate;
	if (parse_chunks(&x, f->map, f->len))
		goto out;
	if (!x.have_ck) {
		snprintf(f->err, sizeof(f->err), "%s: offset %u: no checkpoint: the file is unusable", f->path,
			 f->fh.header_size);
		goto out;
	}
	if (!f->nck) {   /* no events at all */
		if (!bucket(f, s->tmax, s) || ck_push(f, s)) {
			snprintf(f->err, sizeof(f->err), "%s: out of memory", f->path);
			goto out;
		}
		f->peak = s->inuse;
		f->peak_ev = s->ev;
		f->peak_time = s->tmax;
	}
	f->nev = s->ev - f->first_ev;
	f->t1 = s->tmax;
out:
	free(s->c);
	free(x.raw);
	free(x.ev);
	ZSTD_freeDCtx(x.dctx);
	return NULL;
}

/* ---- opening the directory ------------------------------------------------ */

static void file_free(rec_file *f)
{
	if (f->map)
		munmap((void *)f->map, f->len);
	for (size_t i = 0; i < f->nck; i++)
		free(f->ck[i].c);
	free(f->ck);
	free(f->ch);
	free(f->st);
	free(f->mods);
	free(f->pcs);
	free(f->tl);
	free(f->waits);
}

void rec_close(recording *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nf; i++)
		file_free(&r->f[i]);
	free(r->f);
	free(r->tl);
	free(r->waits);
	free(r->sample_of);
	free(r->id_of);
	free(r->cur);
	if (r->cursor)
		rec_cursor_free(r->cursor);
	free(r->cursor);
	prof_free(r->p);
	free(r);
}

static int stref_cmp(const void *a, const void *b)
{
	const rec_stref *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Frames get the names a dump's have where the hook found no symbol,
 * "path(+0xoff) [0xaddr]", so that one the symbolizer cannot resolve still
 * says where it is (and the symbolizer knows its file). */
static int name_frames(prof *p)
{
	for (size_t i = 0; i < p->frames.len; i++) {
		uint64_t a = p->frames.v[i].addr;
		uint32_t mi = prof_module_find(p, a);
		if (mi == PROF_NONE && prof_frame_name_truncated(p, (uint32_t)i))
			return -1;
		if (p->frames.v[i].name != PROF_NONE || mi == PROF_NONE)
			continue;
		const prof_module *m = &p->modules.v[mi];
		const char *path = prof_strat(p, m->path);
		char buf[4096 + V1NAME_FIXED_LEN];
		size_t n = v1name_format(buf, sizeof(buf), path && path[0] ? path : NULL, NULL, 0, a - m->base + m->offset, a);
		uint32_t s = prof_str(p, buf, n < sizeof(buf) ? n : sizeof(buf) - 1);
		if (s == PROF_NONE)
			return -1;
		p->frames.v[i].name = s;
	}
	return 0;
}

/* The profile: modules of the newest file, every stack any file defines. */
static int build_prof(recording *r)
{
	prof *p = r->p = prof_new();
	if (!p)
		return -1;
	const rec_file *last = &r->f[r->nf - 1];
	p->meta.format = PROF_FMT_NATIVE;
	p->meta.pid = r->pid;
	p->meta.time = r->start_time_ns / 1000000000;
	p->meta.scale = 1.0;
	p->meta.dropped = r->lost;
	size_t cl = strnlen(last->fh.cmdline, sizeof(last->fh.cmdline));
	if (cl && (p->meta.cmdline = prof_str(p, last->fh.cmdline, cl)) == PROF_NONE)
		return -1;
	for (size_t i = 0; i < last->nmods; i++) {
		rec_module m;
		m = last->mods[i];
		m.path[sizeof(m.path) - 1] = 0;
		m.build_id[sizeof(m.build_id) - 1] = 0;
		if (prof_module_add(p, m.path, m.build_id[0] ? m.build_id : NULL, m.base, m.size, m.offset) == PROF_NONE)
			return -1;
	}
	size_t total = 0;
	for (size_t i = 0; i < r->nf; i++)
		total += r->f[i].nst;
	rec_stref *all = malloc((total ? total : 1) * sizeof(*all));
	if (!all)
		return -1;
	size_t n = 0;
	uint32_t maxid = 0;
	for (size_t i = r->nf; i-- > 0;)   /* newest first: qsort is not stable, dedupe keeps any */
		for (size_t k = 0; k < r->f[i].nst; k++) {
			rec_stref s = r->f[i].st[k];
			s.off = s.off * 64 + i;   /* which file, packed (offsets < 2^57) */
			all[n++] = s;
			if (s.id > maxid)
				maxid = s.id;
		}
	qsort(all, n, sizeof(*all), stref_cmp);
	size_t nids = 1 + (size_t)maxid;
	for (size_t i = 0; i < r->nf; i++)
		for (size_t k = 0; k < r->f[i].nck; k++)
			if (r->f[i].ck[k].n > nids)
				nids = r->f[i].ck[k].n;
	r->nids = nids;
	r->sample_of = malloc(nids * sizeof(uint32_t));
	r->cur = calloc(nids, sizeof(mp_counts));
	r->id_of = malloc((n ? n : 1) * sizeof(uint32_t));
	if (!r->sample_of || !r->cur || !r->id_of) {
		free(all);
		return -1;
	}
	for (size_t i = 0; i < nids; i++)
		r->sample_of[i] = PROF_NONE;
	for (size_t k = 0; k < n; k++) {
		if (k && all[k].id == all[k - 1].id)
			continue;
		const rec_file *f = &r->f[all[k].off % 64];
		const uint64_t *pcs = f->pcs ? f->pcs + all[k].off / 64 : NULL;   /* NULL: every stack has depth 0 */
		uint32_t *dst = prof_stack_begin(p, all[k].depth);
		if (!dst)
			goto nomem;
		for (uint32_t d = 0; d < all[k].depth; d++) {   /* interning frames leaves dst in place */
			if ((dst[d] = prof_frame_intern(p, pcs[d])) == PROF_NONE)
				goto nomem;
		}
		uint32_t sid = prof_stack_commit(p, all[k].depth);
		if (sid == PROF_NONE || prof_sample_add(p, sid, 0, 0, 0, 0, 0))
			goto nomem;
		r->sample_of[all[k].id] = (uint32_t)(p->samples.len - 1);
		r->id_of[p->samples.len - 1] = all[k].id;
	}
	free(all);
	return name_frames(p);
nomem:
	free(all);
	return -1;
}

static int merge(recording *r)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t capw = 0;
	r->first_ev = r->f[0].first_ev;
	r->first_time = r->f[0].t0;
	r->peak = INT64_MIN;
	for (size_t i = 0; i < r->nf; i++) {
		rec_file *f = &r->f[i];
		if (f->tl_first < lo)
			lo = f->tl_first;
		if (f->tl_first + (int64_t)f->ntl - 1 > hi)
			hi = f->tl_first + (int64_t)f->ntl - 1;
		if (f->peak > r->peak) {
			r->peak = f->peak;
			r->peak_ev = f->peak_ev;
			r->peak_time = f->peak_time;
		}
		r->end_ev = f->first_ev + f->nev;
		r->end_time = f->t1 > f->t_end ? f->t1 : f->t_end;   /* the run ends when it was closed */
		r->lost = f->lost;   /* cumulative in each checkpoint */
		r->truncated += (uint64_t)f->truncated;
		for (size_t k = 0; k < f->nwaits; k++) {
			if (PUSH(r->waits, r->nwaits, capw, f->waits[k]))
				return -1;
			r->wait_count += f->waits[k].waits;
			r->wait_ns += f->waits[k].wait_ns;
			if (f->waits[k].max_ns > r->wait_max_ns)
				r->wait_max_ns = f->waits[k].max_ns;
		}
	}
	r->first_bucket = lo;
	r->ntl = (size_t)(hi - lo + 1);
	r->tl = malloc(r->ntl * sizeof(rec_bucket));
	if (!r->tl)
		return -1;
	for (size_t i = 0; i < r->ntl; i++)
		r->tl[i] = (rec_bucket){ INT64_MIN, 0 };
	for (size_t i = 0; i < r->nf; i++) {
		rec_file *f = &r->f[i];
		for (size_t k = 0; k < f->ntl; k++) {
			rec_bucket *b = &r->tl[f->tl_first - lo + (int64_t)k];
			if (f->tl[k].peak > b->peak)
				*b = f->tl[k];
		}
	}
	/* Buckets no file covers (a gap between files) carry the value before. */
	for (size_t i = 0; i < r->ntl; i++)
		if (r->tl[i].peak == INT64_MIN)
			r->tl[i] = i ? r->tl[i - 1] : (rec_bucket){ 0, r->first_ev };
	return 0;
}

recording *rec_open(const char *dir, int threads, prof_error *err)
{
	rec_name *names = NULL;
	size_t nn = 0;
	int single = 0;
	if (rec_find_files(dir, &names, &nn, &single, err))
		return NULL;
	/* The process with the most bytes recorded. */
	int best = names[0].pid;
	off_t best_sz = -1, sz = 0;
	for (size_t i = 0; i < nn; i++) {
		sz = (i && names[i].pid == names[i - 1].pid) ? sz + names[i].size : names[i].size;
		if (sz > best_sz) {
			best_sz = sz;
			best = names[i].pid;
		}
	}
	recording *r = calloc(1, sizeof(*r));
	if (!r) {
		free(names);
		prof_errorf(err, "%s: out of memory", dir);
		return NULL;
	}
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	r->pid = best;
	for (size_t i = 0; i < nn; i++)
		if (names[i].pid == best)
			r->nf++;
		else
			r->other_pids++;
	r->f = calloc(r->nf, sizeof(rec_file));
	if (!r->f)
		goto nomem;
	size_t k = 0;
	for (size_t i = 0; i < nn; i++) {
		if (names[i].pid != best)
			continue;
		rec_file *f = &r->f[k++];
		if (single)
			snprintf(f->path, sizeof(f->path), "%s", dir);
		else
			snprintf(f->path, sizeof(f->path), "%s/" REC_NAME_FMT, dir, best, names[i].seq);
		int fd = open(f->path, O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st)) {
			snprintf(f->err, sizeof(f->err), "%s: %s", f->path, strerror(errno));
			if (fd >= 0)
				close(fd);
			continue;
		}
		f->len = (size_t)st.st_size;
		f->map = f->len ? mmap(NULL, f->len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
		close(fd);
		if (f->map == MAP_FAILED) {
			f->map = NULL;
			snprintf(f->err, sizeof(f->err), "%s: cannot map: %s", f->path, strerror(errno));
		}
	}
	free(names);
	names = NULL;
	/* A thread per file, at most `threads` at once. */
	if (threads <= 0)
		threads = 16;
	if (threads > 64)
		threads = 64;
	for (size_t i = 0, n; i < r->nf; i += n) {
		pthread_t th[64];
		int started[64] = { 0 };
		n = r->nf - i < (size_t)threads ? r->nf - i : (size_t)threads;
		for (size_t j = 0; j < n; j++)
			if (!r->f[i + j].err[0])
				started[j] = !pthread_create(&th[j], NULL, parse_file, &r->f[i + j]);
		for (size_t j = 0; j < n; j++) {
			if (started[j])
				pthread_join(th[j], NULL);
			else if (!r->f[i + j].err[0])
				parse_file(&r->f[i + j]);
		}
	}
	/* Unusable files are dropped; the first one's reason is the error if none is left. */
	char first_err[4400] = "";
	size_t keep = 0;
	for (size_t i = 0; i < r->nf; i++) {
		if (r->f[i].err[0]) {
			if (!first_err[0])
				snprintf(first_err, sizeof(first_err), "%s", r->f[i].err);
			file_free(&r->f[i]);
			continue;
		}
		r->f[keep++] = r->f[i];
	}
	r->nf = keep;
	if (!keep) {
		prof_errorf(err, "%s", first_err);
		rec_close(r);
		return NULL;
	}
	r->sample_rate = r->f[0].fh.sample_rate;
	r->dither = r->f[0].fh.version >= REC_VERSION_DITHER;
	r->start_time_ns = r->f[0].fh.start_time_ns;
	if (merge(r) || build_prof(r) || !(r->cursor = calloc(1, sizeof(rec_cursor))))
		goto nomem;
	r->cur_file = SIZE_MAX;
	if (rec_seek(r, r->end_ev))
		goto nomem;
	return r;
nomem:
	free(names);
	rec_close(r);
	prof_errorf(err, "%s: out of memory", dir);
	return NULL;
}
