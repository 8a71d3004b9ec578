/* pro_v1.c - skynet-mprof's .pro format (v1): the reader (pro_v1_write.c
 * writes it).
 * Big-endian; u32 body_len, u32 nfuncs, {u8 len, name, u64 id}*, then
 * samples {u32 alloc_objs, alloc_bytes, free_objs, free_bytes, depth,
 * depth x u64 pc} until EOF. man/mprof-pro.5 has the details. */
#include "core/load.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

#define DROP_EVERY (4u << 20)
/* Below this many bytes of samples one thread parses them all. */
#define V1_SPLIT_MIN (8u << 20)
/* How far past the middle the second thread looks for a record boundary. */
#define V1_RESYNC_WINDOW (64u << 10)
/* A boundary found by its look: this many records (or to the end) whose
 * pcs are all named, at least V1_RESYNC_PCS of them, none deeper than
 * V1_RESYNC_DEPTH. */
#define V1_RESYNC_CHAIN 8
#define V1_RESYNC_PCS 16
#define V1_RESYNC_DEPTH 4096
/* Places probed for the mean record (bytes, frames) before splitting, and how far from each. */
#define V1_PROBES 16
#define V1_PROBE_WINDOW (16u << 10)
/* Vectors this big get transparent huge pages: a page fault per 2 MiB, not per 4 KiB. */
#define V1_HUGE_MIN (4u << 20)

enum v1_err { V1_OK, V1_SHORT, V1_DEPTH, V1_FULL, V1_NOMEM, V1_TOOBIG, V1_TOOMANY };

/* One part of the sample section, parsed by one thread into a window of
 * the profile's vectors that it never grows (V1_FULL: the caller grows
 * them and resumes it). */
typedef struct v1_part {
	const prof *p;          /* the function table, read only while parts run */
	const prof_src *src;
	size_t off, limit;      /* records that start in [off, limit); off: where it stopped */
	prof_sample *smp;       /* its window: smp[ns], stk[ns], frm[nf] */
	prof_stack *stk;
	uint32_t *frm;
	size_t s0, f0;          /* the profile's index of smp[0] and frm[0] */
	size_t ns, nf, caps, capf;
	struct v1_miss { uint64_t addr; size_t pos; } *miss;   /* pcs not in the table */
	size_t nmiss, capmiss;
	enum v1_err err;        /* at off */
	uint32_t depth;         /* of the record at off, when it stopped on one */
	uint64_t need;          /* V1_TOOBIG: bytes asked for */
} v1_part;

/* Gives a big vector huge pages (advice only: failure changes nothing). */
static void v1_huge(void *v, size_t bytes)
{
	uintptr_t a = ((uintptr_t)v + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)v + bytes) & ~(uintptr_t)4095;
	if (bytes >= V1_HUGE_MIN && e > a)
		madvise((void *)a, e - a, MADV_HUGEPAGE);
}

/* Gives back the pages wholly inside bytes [from, to) of v: nothing is left there. */
static void v1_release(void *v, size_t from, size_t to)
{
	uintptr_t a = ((uintptr_t)v + from + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)v + to) & ~(uintptr_t)4095;
	if (e > a)
		madvise((void *)a, e - a, MADV_DONTNEED);
}

static int v1_grow(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t old = *cap;
	if (vec_grow(v, cap, need, elem))
		return -1;
	if (*cap != old)
		v1_huge(*v, *cap * elem);
	return 0;
}
#define v1_reserve(vec, n) v1_grow((void **)&(vec).v, &(vec).cap, (vec).len + (n), sizeof(*(vec).v))

static int v1_miss_add(v1_part *c, uint64_t addr, size_t pos)
{
	if (c->nmiss == c->capmiss && v1_grow((void **)&c->miss, &c->capmiss, c->nmiss + 1, sizeof(*c->miss)))
		return -1;
	c->miss[c->nmiss++] = (struct v1_miss){ addr, pos };
	return 0;
}

/* Parses the records that start in [c->off, c->limit) into its window,
 * stopping at the first bad one or one that does not fit; pcs not in the
 * table wait in c->miss (the table is shared, so no thread adds to it). */
static void *v1_parse(void *arg)
{
	v1_part *c = arg;
	const u64map *ix = &c->p->frame_index;
	const uint8_t *d = c->src->data;
	size_t len = c->src->len, off = c->off, dropped = off;
	while (off < c->limit) {
		if (len - off < 20) {
			c->err = V1_SHORT;
			break;
		}
		const uint8_t *h = d + off;
		uint32_t depth = be32(h + 16);
		c->depth = depth;
		if ((uint64_t)depth * 8 > len - off - 20) {
			c->err = V1_DEPTH;
			break;
		}
		if (c->ns == c->caps || depth > c->capf - c->nf) {
			c->err = V1_FULL;
			break;
		}
		uint32_t *dst = c->frm + c->nf;
		const uint8_t *pc = h + 20;
		for (uint32_t i = 0; i < depth; i++, pc += 8) {
			uint64_t addr = be64(pc);
			uint32_t f = u64map_get(ix, addr);
			if (f == PROF_NONE) {
				if (v1_miss_add(c, addr, c->f0 + c->nf + i)) {
					c->err = V1_NOMEM;
					goto out;
				}
				f = 0;
			}
			dst[i] = f;
		}
		c->stk[c->ns] = (prof_stack){ .off = (uint32_t)(c->f0 + c->nf), .depth = depth };
		uint32_t ao = be32(h), ab = be32(h + 4);
		/* v1 buckets are keyed by (stack, size): size = bytes / objects. */
		c->smp[c->ns] = (prof_sample){
			.stack = (uint32_t)(c->s0 + c->ns), .size = ao ? ab / ao : 0,
			.c.alloc_objs = ao, .c.alloc_bytes = ab,
			.c.free_objs = be32(h + 8), .c.free_bytes = be32(h + 12),
		};
		c->ns++;
		c->nf += depth;
		off += 20 + (size_t)depth * 8;
		if (off - dropped >= DROP_EVERY) {
			prof_src_drop(c->src, dropped, off);
			dropped = off;
		}
	}
out:
	prof_src_drop(c->src, dropped, off);
	c->off = off;
	return NULL;
}

/* Points c's window at the free room after p's samples. */
static void v1_window_tail(prof *p, v1_part *c)
{
	c->s0 = p->samples.len;
	c->f0 = p->stack_frames.len;
	c->smp = p->samples.v + c->s0;
	c->stk = p->stacks.v + c->s0;
	c->frm = p->stack_frames.v + c->f0;
	c->ns = c->nf = 0;
	c->caps = p->samples.cap < p->stacks.cap ? p->samples.cap - c->s0 : p->stacks.cap - c->s0;
	c->capf = p->stack_frames.cap - c->f0;
}

/* Parses the rest of c's range alone at the end of p, growing p's vectors
 * as it goes; c->err says why it stopped short. */
static void v1_resume(prof *p, v1_part *c)
{
	for (;;) {
		v1_window_tail(p, c);
		v1_parse(c);
		p->samples.len += c->ns;
		p->stacks.len += c->ns;
		p->stack_frames.len += c->nf;
		if (c->err != V1_FULL)
			return;
		if (p->samples.len >= PROF_NONE - 1 || p->stack_frames.len + c->depth > UINT32_MAX) {
			c->err = V1_TOOMANY;
			return;
		}
		/* Growing doubles a vector: refuse what the machine cannot hold. */
		uint64_t need = (uint64_t)p->samples.len * 2 * (sizeof(prof_sample) + sizeof(prof_stack)) +
				((uint64_t)p->stack_frames.len + c->depth) * 2 * sizeof(uint32_t);
		if (need > prof_mem_avail()) {
			c->err = V1_TOOBIG;
			c->need = need;
			return;
		}
		if (v1_reserve(p->samples, 1) || v1_reserve(p->stacks, 1) || v1_reserve(p->stack_frames, c->depth)) {
			c->err = V1_NOMEM;
			return;
		}
		c->err = V1_OK;
	}
}

/* Does a run of records start at o?  A guess (checked later by the part
 * before it arriving at o exactly); *bytes and *frames count the run. */
static int v1_looks_like_records(const prof *p, const uint8_t *d, size_t len, size_t o, size_t *bytes,
				 size_t *frames)
{
	size_t o0 = o, pcs = 0;
	int r;
	for (r = 0; r < V1_RESYNC_CHAIN && o < len; r++) {
		if (len - o < 20)
			return 0;
		uint32_t depth = be32(d + o + 16);
		if (depth > V1_RESYNC_DEPTH || (uint64_t)depth * 8 > len - o - 20)
			return 0;
		for (uint32_t i = 0; i < depth; i++)
			if (u64map_get(&p->frame_index, be64(d + o + 20 + 8 * (size_t)i)) == PROF_NONE)
				return 0;
		pcs += depth;
		o += 20 + (size_t)depth * 8;
	}
	*bytes = o - o0;
	*frames = pcs;
	return pcs >= V1_RESYNC_PCS ? r : 0;
}

/* The first offset in [from, from + window) that looks like a record
 * boundary, or SIZE_MAX; *recs, *bytes and *frames count its run. */
static size_t v1_resync(const prof *p, const uint8_t *d, size_t len, size_t from, size_t window,
			size_t *recs, size_t *bytes, size_t *frames)
{
	size_t end = len - from > window ? from + window : len;
	for (size_t o = from; o < end; o++)
		if ((*recs = (size_t)v1_looks_like_records(p, d, len, o, bytes, frames)))
			return o;
	return SIZE_MAX;
}

/* Room for the samples and frames of bytes of records, from the mean
 * record the probes saw, with an eighth to spare. */
static size_t v1_room_for(size_t bytes, size_t per, size_t probe_bytes)
{
	return (size_t)((double)bytes / (double)probe_bytes * (double)per * 1.125) + 256;
}

/* Two threads over [start, len): the first parses up to a boundary guessed
 * past the middle into the front of p's vectors, the second from there into
 * room left after an estimate of the first's output (records probed at
 * V1_PROBES places), then moves down behind it.  The join is taken only
 * when the first stops exactly at the guess with its output in its room;
 * else the first parses on alone.  Either way p is the serial result.
 * 0 when it did not start (too small, no boundary found, no memory). */
static int v1_two(prof *p, const prof_src *src, size_t start, v1_part *a, v1_part *b)
{
	const uint8_t *d = src->data;
	size_t len = src->len, recs = 0, bytes = 0, frames = 0, r, by, fr;
	for (int i = 0; i < V1_PROBES; i++) {
		size_t at = start + (len - start) / V1_PROBES * (size_t)i + (len - start) / (2 * V1_PROBES);
		if (v1_resync(p, d, len, at, V1_PROBE_WINDOW, &r, &by, &fr) != SIZE_MAX) {
			recs += r;
			bytes += by;
			frames += fr;
		}
	}
	size_t at = v1_resync(p, d, len, start + (len - start) / 2, V1_RESYNC_WINDOW, &r, &by, &fr);
	if (at == SIZE_MAX || recs < 4 * V1_RESYNC_CHAIN)
		return 0;
	size_t s0 = v1_room_for(at - start, recs, bytes), f0 = v1_room_for(at - start, frames, bytes);
	size_t s1 = v1_room_for(len - at, recs, bytes), f1 = v1_room_for(len - at, frames, bytes);
	if (s0 + s1 >= PROF_NONE - 1 || f0 + f1 > UINT32_MAX ||
	    (uint64_t)(s0 + s1) * (sizeof(prof_sample) + sizeof(prof_stack)) + (uint64_t)(f0 + f1) * 4 >
		    prof_mem_avail() / 2 ||
	    v1_reserve(p->samples, s0 + s1) || v1_reserve(p->stacks, s0 + s1) || v1_reserve(p->stack_frames, f0 + f1))
		return 0;
	v1_window_tail(p, a);
	a->limit = at;
	a->caps = s0;
	a->capf = f0;
	*b = (v1_part){ .p = p, .src = src, .off = at, .limit = len, .s0 = s0, .f0 = f0,
			.smp = p->samples.v + s0, .stk = p->stacks.v + s0, .frm = p->stack_frames.v + f0,
			.caps = s1, .capf = f1 };
	pthread_t tid;
	if (pthread_create(&tid, NULL, v1_parse, b))
		return 0;
	v1_parse(a);
	pthread_join(tid, NULL);
	p->samples.len = p->stacks.len = a->ns;
	p->stack_frames.len = a->nf;
	if (a->err || a->off != at) {
		b->nmiss = 0;   /* its work is dropped; a parses on over it */
		return 1;
	}
	/* Move b's output down behind a's, its indices with it. */
	size_t ds = s0 - a->ns, df = f0 - a->nf;
	for (size_t k = 0; k < b->ns; k++) {
		prof_sample sm = b->smp[k];
		sm.stack -= (uint32_t)ds;
		p->samples.v[a->ns + k] = sm;
		p->stacks.v[a->ns + k] = (prof_stack){ b->stk[k].off - (uint32_t)df, b->stk[k].depth };
	}
	memmove(p->stack_frames.v + a->nf, b->frm, b->nf * sizeof(uint32_t));
	for (size_t k = 0; k < b->nmiss; k++)
		b->miss[k].pos -= df;
	p->samples.len = p->stacks.len = a->ns + b->ns;
	p->stack_frames.len = a->nf + b->nf;
	/* The room the estimate left over holds nothing now. */
	v1_release(p->samples.v, p->samples.len * sizeof(prof_sample), (s0 + b->ns) * sizeof(prof_sample));
	v1_release(p->stacks.v, p->stacks.len * sizeof(prof_stack), (s0 + b->ns) * sizeof(prof_stack));
	v1_release(p->stack_frames.v, p->stack_frames.len * 4, (f0 + b->nf) * 4);
	return 2;
}

/* Says what stopped part c, in the words of the serial reader. */
static void v1_part_error(const v1_part *c, size_t start, prof_error *err)
{
	const char *name = c->src->name;
	switch (c->err) {
	case V1_SHORT:
		prof_errorf(err, "%s: offset %zu: sample header runs past the end", name, c->off);
		break;
	case V1_DEPTH:
		prof_errorf(err, "%s: offset %zu: sample depth %u runs past the end", name, c->off + 16, c->depth);
		break;
	case V1_TOOMANY:
		prof_errorf(err, "%s: offset %zu: too many samples or frames for one profile", name, start);
		break;
	case V1_TOOBIG:
		if (prof_mem_check(c->src, c->off, c->need, err))
			break;
		prof_errorf(err, "%s: offset %zu: out of memory", name, c->off);
		break;
	default:
		prof_errorf(err, "%s: offset %zu: out of memory", name, c->off);
		break;
	}
}

/* Sizes p's vectors for bytes of records of a usual depth (they grow when
 * deeper), never past half the free memory; 0, or -1 on ENOMEM. */
static int v1_presize(prof *p, size_t bytes)
{
	size_t n = bytes / 160 + 16;
	if ((uint64_t)n * (sizeof(prof_sample) + sizeof(prof_stack) + 16 * sizeof(uint32_t)) > prof_mem_avail() / 2)
		n = 16;
	return v1_reserve(p->samples, n) || v1_reserve(p->stacks, n) || v1_reserve(p->stack_frames, n * 16) ? -1 : 0;
}

/* MPROF_LOAD_THREADS=1 parses with one thread (tests compare the two). */
static int v1_threads_wanted(void)
{
	const char *e = getenv("MPROF_LOAD_THREADS");
	return e && !strcmp(e, "1") ? 1 : 2;
}

/* The sample section, [start, len), in one pass over its bytes: on two
 * threads when it is big (v1_two), else or then alone (v1_resume). */
static int v1_samples(prof *p, const prof_src *src, size_t start, prof_error *err)
{
	size_t len = src->len;
	v1_part a = { .p = p, .src = src, .off = start, .limit = len };
	v1_part b = { .p = p, .src = src };
	int two = 0, r = -1;
	if (len - start > V1_SPLIT_MIN && v1_threads_wanted() > 1)
		two = v1_two(p, src, start, &a, &b);
	if (!two && v1_presize(p, len - start)) {
		prof_errorf(err, "%s: offset %zu: out of memory", src->name, start);
		return -1;
	}
	if (two == 2) {
		if (b.err == V1_FULL) {
			b.err = V1_OK;
			v1_resume(p, &b);
		}
	} else if (!a.err || a.err == V1_FULL) {
		a.err = V1_OK;
		a.limit = len;
		v1_resume(p, &a);
	}
	if (a.err || (two == 2 && b.err)) {
		v1_part_error(a.err ? &a : &b, start, err);
		goto out;
	}
	/* pcs missing from the function table become unnamed frames, in file order. */
	v1_part *parts[2] = { &a, &b };
	for (int i = 0; i < 2; i++)
		for (size_t k = 0; k < parts[i]->nmiss; k++) {
			uint32_t f = prof_frame_intern(p, parts[i]->miss[k].addr);
			if (f == PROF_NONE) {
				prof_errorf(err, "%s: offset %zu: out of memory", src->name, len);
				goto out;
			}
			p->stack_frames.v[parts[i]->miss[k].pos] = f;
		}
	r = 0;
out:
	free(a.miss);
	free(b.miss);
	return r;
}

int pro_v1_read(prof *p, const prof_src *src, prof_error *err)
{
	const uint8_t *d = src->data;
	size_t len = src->len, off = 0;
	const char *name = src->name;

	p->meta.format = PROF_FMT_V1;
	if (len < 8) {
		prof_errorf(err, "%s: offset 0: file too short for a skynet-mprof header (%zu bytes)", name, len);
		return -1;
	}
	uint32_t body = be32(d);
	if ((uint64_t)body + 4 != len) {
		prof_errorf(err, "%s: offset 0: length field says %llu bytes, the file has %zu",
			    name, (unsigned long long)body + 4, len);
		return -1;
	}
	uint32_t nfuncs = be32(d + 4);
	off = 8;
	/* Each function entry takes at least 9 bytes: refuse absurd counts early. */
	if ((uint64_t)nfuncs * 9 > len - off) {
		prof_errorf(err, "%s: offset 4: %u functions cannot fit in %zu bytes", name, nfuncs, len - off);
		return -1;
	}
	for (uint32_t i = 0; i < nfuncs; i++) {
		if (len - off < 1) {
			prof_errorf(err, "%s: offset %zu: function %u runs past the end", name, off, i);
			return -1;
		}
		size_t nl = d[off];
		if (len - off - 1 < nl + 8) {
			prof_errorf(err, "%s: offset %zu: function %u (name of %zu bytes) runs past the end",
				    name, off, i, nl);
			return -1;
		}
		uint64_t id = be64(d + off + 1 + nl);
		uint32_t f = prof_frame_intern(p, id);
		uint32_t s = f == PROF_NONE ? PROF_NONE : prof_str(p, (const char *)d + off + 1, nl);
		if (s == PROF_NONE)
			goto nomem;
		p->frames.v[f].name = s;
		off += 1 + nl + 8;
	}
	return v1_samples(p, src, off, err);
nomem:
	prof_errorf(err, "%s: offset %zu: out of memory", name, off);
	return -1;
}
