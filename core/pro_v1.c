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

static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

#define DROP_EVERY (4u << 20)
#define V1_THREADS 2

/* One slice of the sample section, filled by one thread into pre-sized pools. */
typedef struct v1_chunk {
	prof *p;
	const prof_src *src;
	size_t off, end;        /* byte range of whole samples */
	size_t sample, frame;   /* first sample and pool index of the slice */
	struct v1_miss { uint64_t addr; size_t pos; } *miss;   /* owned, freed by the reader */
	size_t nmiss, capmiss;
	int oom;
} v1_chunk;

/* Fills one chunk; reads the frame index only (lookups are read-only so
 * threads can share it); pcs not in the table are queued in miss. */
static void *v1_fill(void *arg)
{
	v1_chunk *c = arg;
	prof *p = c->p;
	const uint8_t *d = c->src->data;
	size_t off = c->off, si = c->sample, fi = c->frame, dropped = off;
	while (off < c->end) {
		const uint8_t *h = d + off;
		uint32_t depth = be32(h + 16);
		uint32_t *dst = p->stack_frames.v + fi;
		const uint8_t *pc = h + 20;
		for (uint32_t i = 0; i < depth; i++, pc += 8) {
			uint64_t addr = be64(pc);
			uint32_t f = prof_frame_find(p, addr);
			if (f == PROF_NONE) {
				if (c->nmiss == c->capmiss) {
					size_t cap = c->capmiss ? c->capmiss * 2 : 64;
					void *nm = realloc(c->miss, cap * sizeof(*c->miss));
					if (!nm) {
						c->oom = 1;
						return NULL;
					}
					c->miss = nm;
					c->capmiss = cap;
				}
				c->miss[c->nmiss++] = (struct v1_miss){ addr, fi + i };
				f = 0;
			}
			dst[i] = f;
		}
		p->stacks.v[si] = (prof_stack){ .off = (uint32_t)fi, .depth = depth };
		uint32_t ao = be32(h), ab = be32(h + 4);
		/* v1 buckets are keyed by (stack, size): size = bytes / objects. */
		p->samples.v[si] = (prof_sample){
			.stack = (uint32_t)si, .size = ao ? ab / ao : 0,
			.c.alloc_objs = ao, .c.alloc_bytes = ab,
			.c.free_objs = be32(h + 8), .c.free_bytes = be32(h + 12),
		};
		si++;
		fi += depth;
		off += 20 + (size_t)depth * 8;
		if (off - dropped >= DROP_EVERY) {
			prof_src_drop(c->src, dropped, off);
			dropped = off;
		}
	}
	prof_src_drop(c->src, dropped, off);
	return NULL;
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
	/* Pass 1: walk the sample headers to validate every length and size
	 * the pools exactly; pass 2 fills them, in parallel chunks. */
	size_t start = off, nsamp = 0, nfr = 0, dropped = off;
	v1_chunk ch[V1_THREADS] = { { 0 } };
	int nch = 1;
	size_t split = len;
	int want = len - start > (8u << 20) ? V1_THREADS : 1;
	if (want > 1)
		split = start + (len - start) / 2;
	ch[0].off = start;
	while (off < len) {
		if (len - off < 20) {
			prof_errorf(err, "%s: offset %zu: sample header runs past the end", name, off);
			goto fail;
		}
		uint32_t depth = be32(d + off + 16);
		if ((uint64_t)depth * 8 > len - off - 20) {
			prof_errorf(err, "%s: offset %zu: sample depth %u runs past the end", name, off + 16, depth);
			goto fail;
		}
		if (off >= split && nch < want) {
			ch[nch] = (v1_chunk){ .off = off, .sample = nsamp, .frame = nfr };
			ch[nch - 1].end = off;
			nch++;
			split = len;
		}
		nsamp++;
		nfr += depth;
		off += 20 + (size_t)depth * 8;
		if (off - dropped >= DROP_EVERY) {
			prof_src_drop(src, dropped, off);
			dropped = off;
		}
	}
	ch[nch - 1].end = len;
	if (nfr > UINT32_MAX || nsamp >= PROF_NONE) {
		prof_errorf(err, "%s: offset %zu: too many samples or frames for one profile", name, start);
		goto fail;
	}
	if (prof_mem_check(src, start, (uint64_t)nsamp * (sizeof(prof_sample) + sizeof(prof_stack)) +
				       (uint64_t)nfr * sizeof(uint32_t), err))
		goto fail;
	if (prof_vec_reserve(p->samples, nsamp) || prof_vec_reserve(p->stacks, nsamp) ||
	    prof_vec_reserve(p->stack_frames, nfr))
		goto nomem;
	pthread_t tid[V1_THREADS];
	int started[V1_THREADS] = { 0 };
	for (int i = 0; i < nch; i++) {
		ch[i].p = p;
		ch[i].src = src;
		if (i > 0)
			started[i] = !pthread_create(&tid[i], NULL, v1_fill, &ch[i]);
	}
	for (int i = nch - 1; i >= 1; i--)
		if (!started[i])
			v1_fill(&ch[i]);
	v1_fill(&ch[0]);
	int oom = 0;
	for (int i = 0; i < nch; i++) {
		if (i > 0 && started[i])
			pthread_join(tid[i], NULL);
		oom |= ch[i].oom;
	}
	p->samples.len = p->stacks.len = nsamp;
	p->stack_frames.len = nfr;
	/* pcs missing from the function table become unnamed frames. */
	for (int i = 0; i < nch && !oom; i++)
		for (size_t k = 0; k < ch[i].nmiss; k++) {
			uint32_t f = prof_frame_intern(p, ch[i].miss[k].addr);
			if (f == PROF_NONE)
				oom = 1;
			else
				p->stack_frames.v[ch[i].miss[k].pos] = f;
		}
	for (int i = 0; i < nch; i++)
		free(ch[i].miss);
	if (oom)
		goto nomem;
	return 0;
nomem:
	prof_errorf(err, "%s: offset %zu: out of memory", name, off);
fail:
	return -1;
}
