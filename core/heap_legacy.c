/* heap_legacy.c - the legacy text heap profile, every variant pprof's
 * legacy parser reads (profile/legacy_profile.go) and gperftools' "growth":
 *   %warn ...                              (tcmalloc's notes, skipped)
 *   heap profile: N: N [N: N] @ KIND[/PERIOD]
 *   inuse_objs: inuse_bytes [alloc_objs: alloc_bytes] @ pc pc ...  leaf first
 *   #	0x4b5da4	main.leakBlocks+0x44	main.go:73   (Go: names a pc above)
 *   MAPPED_LIBRARIES: | --- Memory map: ---             the modules (maps.c)
 * KIND says how each line was sampled, and each line is un-sampled as pprof
 * does it (scaleHeapSample, truncated per line):
 *   heapprofile              gperftools' heap profiler, every allocation
 *   heap_v2/P, heapz_v2/P    tcmalloc's GetHeapSample: Poisson at period P
 *   heap/2P                  Go runtime/pprof debug=1: Poisson at P
 *   growthz, growth          stacks that grew the heap (gperftools writes
 *                            "growth", pprof reads "growthz"): as written
 *   fragmentationz           as written
 * A line without addresses counts as a "<no stack>" stack. Frames of
 * tcmalloc itself at the leaf (by module) are dropped, as pprof drops its
 * allocation functions by name; Go's runtime frames at the leaf (the pcs
 * without a "#" line) too. */
#include "core/foreign.h"

#include <stdlib.h>
#include <string.h>

#include "core/heap_scale.h"
#include "core/maps.h"

/* How a kind's lines were sampled. */
enum sampling { SAMPLED_NONE, SAMPLED_V2, SAMPLED_V2_HALF };

static const struct kind {
	const char *name;
	enum sampling how;
	enum prof_format fmt;
} kinds[] = {
	{ "heapprofile", SAMPLED_NONE, PROF_FMT_GPERF },
	{ "heap_v2", SAMPLED_V2, PROF_FMT_GPERF },
	{ "heapz_v2", SAMPLED_V2, PROF_FMT_GPERF },
	{ "heap", SAMPLED_V2_HALF, PROF_FMT_GOHEAP },
	{ "growthz", SAMPLED_NONE, PROF_FMT_GPERF },
	{ "growth", SAMPLED_NONE, PROF_FMT_GPERF },
	{ "fragmentationz", SAMPLED_NONE, PROF_FMT_GPERF },
};

/* The record being read: its pcs and the Go "#" lines that follow it. */
typedef struct rec {
	uint64_t *pc;
	size_t npc, cap;
	struct cmt { uint64_t addr; const char *s; size_t n; } *c;
	size_t nc, ccap;
	int64_t io, ib;         /* in use: objects, bytes (pprof allows < 0) */
	uint64_t ao, ab;        /* allocated: objects, bytes */
	int open;
} rec;

/* What the whole file says: un-sampling and where the samples end. */
typedef struct hdr {
	enum sampling how;
	uint64_t rate;          /* the Poisson period lines are scaled by; <= 1: none */
	int drop_tcmalloc;      /* modules known: tcmalloc's own leaf frames go */
} hdr;

static int rec_push_pc(rec *r, uint64_t pc)
{
	if (vec_grow((void **)&r->pc, &r->cap, r->npc + 1, sizeof(*r->pc)))
		return -1;
	r->pc[r->npc++] = pc;
	return 0;
}

static int rec_push_cmt(rec *r, uint64_t addr, const char *s, size_t n)
{
	if (vec_grow((void **)&r->c, &r->ccap, r->nc + 1, sizeof(*r->c)))
		return -1;
	r->c[r->nc++] = (struct cmt){ addr, s, n };
	return 0;
}

/* The "#" line naming pc (Go prints pc-1 of each return address). */
static const struct cmt *rec_cmt(const rec *r, uint64_t pc)
{
	for (size_t i = 0; i < r->nc; i++)
		if (r->c[i].addr + 1 == pc || r->c[i].addr == pc)
			return &r->c[i];
	return NULL;
}

static int is_tcmalloc(const prof *p, uint64_t pc)
{
	uint32_t m = prof_module_find(p, pc);
	return m != PROF_NONE && maps_module_is(p, m, "libtcmalloc");
}

/* The index of the first frame kept: the allocator's own leaf frames go,
 * unless nothing would be left. */
static size_t rec_first(const prof *p, const rec *r, const hdr *h)
{
	size_t first = 0;
	if (r->nc)
		while (first < r->npc && !rec_cmt(r, r->pc[first]))
			first++;
	else if (h->drop_tcmalloc)
		while (first < r->npc && is_tcmalloc(p, r->pc[first]))
			first++;
	return first == r->npc ? 0 : first;
}

/* The open record's stack: its frames, named by Go's "#" lines. */
static uint32_t rec_stack(prof *p, const rec *r, const hdr *h)
{
	if (!r->npc)
		return prof_stack_nostack(p);
	size_t first = rec_first(p, r, h);
	uint32_t depth = (uint32_t)(r->npc - first);
	uint32_t *dst = prof_stack_begin(p, depth);
	if (!dst)
		return PROF_NONE;
	for (uint32_t i = 0; i < depth; i++) {
		uint64_t pc = r->pc[first + i];
		uint32_t f = prof_frame_intern(p, pc);
		if (f == PROF_NONE)
			return PROF_NONE;
		dst[i] = f;
		const struct cmt *c = r->nc ? rec_cmt(r, pc) : NULL;
		if (c && c->n && p->frames.v[f].name == PROF_NONE) {
			uint32_t s = prof_str(p, c->s, c->n);
			if (s == PROF_NONE)
				return PROF_NONE;
			p->frames.v[f].name = s;
		}
	}
	return prof_stack_commit(p, depth);
}

/* pprof's scaleHeapSample on one pair of one sign: the magnitudes scale
 * alike (a zero count or size zeroes both); saturates at 2^63 - 1. */
static void unsample(int64_t *count, int64_t *bytes, uint64_t rate)
{
	int neg = *count < 0;
	uint64_t c = neg ? -(uint64_t)*count : (uint64_t)*count;
	uint64_t b = neg ? -(uint64_t)*bytes : (uint64_t)*bytes;
	heap_scale(&c, &b, rate);
	c = c > INT64_MAX ? INT64_MAX : c;
	b = b > INT64_MAX ? INT64_MAX : b;
	*count = neg ? -(int64_t)c : (int64_t)c;
	*bytes = neg ? -(int64_t)b : (int64_t)b;
}

/* Publishes the open record as a stack and a sample. */
static int rec_flush(prof *p, rec *r, const hdr *h)
{
	if (!r->open)
		return 0;
	r->open = 0;
	uint32_t st = rec_stack(p, r, h);
	if (st == PROF_NONE)
		return -1;
	/* pprof's block size: of the in-use pair when it has objects, before
	 * un-sampling. */
	int64_t io = r->io, ib = r->ib, ao = (int64_t)r->ao, ab = (int64_t)r->ab;
	uint64_t size = io && ib / io > 0 ? (uint64_t)(ib / io) : ao ? (uint64_t)(ab / ao) : 0;
	if (h->how != SAMPLED_NONE) {
		unsample(&io, &ib, h->rate);
		unsample(&ao, &ab, h->rate);
	}
	/* The model keeps alloc and free; free wraps when in use is negative
	 * or (scaled) above alloc, and inuse = alloc - free wraps back exactly. */
	return prof_sample_add(p, st, size, (uint64_t)ao, (uint64_t)ab, (uint64_t)ao - (uint64_t)io,
			       (uint64_t)ab - (uint64_t)ib);
}

/* "#\t0x4b5da4\tmain.leakBlocks+0x44\t/path/main.go:73": addr and name. */
static int parse_cmt(rec *r, tspan l)
{
	l.s++;   /* '#' */
	uint64_t addr;
	tspan_ws(&l);
	if (!tspan_starts(l, "0x") || !tspan_hex(&l, &addr))
		return 0;   /* "# runtime.MemStats" and its trailer */
	tspan_ws(&l);
	const char *s = l.s, *e = s;
	while (e < l.e && *e != '\t')
		e++;
	/* Strip the "+0x44" offset: the name is the function. */
	for (const char *q = e; q > s + 1; q--)
		if (q[-1] == 'x' && q[-2] == '0' && q - 3 >= s && q[-3] == '+') {
			e = q - 3;
			break;
		}
	return rec_push_cmt(r, addr, s, (size_t)(e - s));
}

/* A count as pprof reads it (strconv.ParseInt: 64-bit signed); negative
 * only where neg is given. 1 on success, -1 out of range, 0 no number. */
static int count_i64(tspan *l, int64_t *v, int allow_neg)
{
	uint64_t u;
	int neg = 0;
	if (!tspan_dec(l, &u, allow_neg ? &neg : NULL))
		return l->s < l->e && *l->s >= '0' && *l->s <= '9' ? -1 : 0;   /* stopped by overflow */
	if (u > (uint64_t)INT64_MAX)
		return -1;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 1;
}

/* "a: b [c: d]" into v (the first pair signed when neg is set);
 * 1, 0 malformed, -1 a count out of range. */
static int counts(tspan *l, int64_t v[4], int neg)
{
	int r;
	if ((r = count_i64(l, &v[0], neg)) <= 0 || !tspan_lit(l, ":") || (r = count_i64(l, &v[1], neg)) <= 0 ||
	    !tspan_lit(l, "[") || (r = count_i64(l, &v[2], 0)) <= 0 || !tspan_lit(l, ":") ||
	    (r = count_i64(l, &v[3], 0)) <= 0 || !tspan_lit(l, "]"))
		return r < 0 ? -1 : 0;
	return 1;
}

/* The header line: its kind and sampling period into h, the format into p. */
static int parse_header(prof *p, hdr *h, tspan l, unsigned long line, const char *name, prof_error *err)
{
	int64_t v[4];
	tspan w;
	int r = tspan_lit(&l, "heap profile:") ? counts(&l, v, 0) : 0;
	if (r < 0) {
		prof_errorf(err, "%s: line %lu: count out of range (above 2^63 - 1)", name, line);
		return -1;
	}
	if (!r || !tspan_lit(&l, "@") || !tspan_word(&l, &w)) {
		prof_errorf(err, "%s: line %lu: expected 'heap profile: N: N [N: N] @ KIND[/PERIOD]'", name, line);
		return -1;
	}
	const char *slash = memchr(w.s, '/', (size_t)(w.e - w.s));
	tspan k = { w.s, slash ? slash : w.e };
	const struct kind *kd = NULL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i].name) == (size_t)(k.e - k.s) && !memcmp(kinds[i].name, k.s, (size_t)(k.e - k.s)))
			kd = &kinds[i];
	if (!kd) {
		prof_errorf(err, "%s: line %lu: unknown heap profile kind '%.*s' (heapprofile, heap_v2, heapz_v2, "
			    "heap, growthz, growth, fragmentationz)", name, line, (int)(k.e - k.s), k.s);
		return -1;
	}
	if (!tspan_empty(l)) {
		tspan_ws(&l);
		prof_errorf(err, "%s: line %lu: unexpected '%.*s' after the kind", name, line,
			    (int)(l.e - l.s > 40 ? 40 : l.e - l.s), l.s);
		return -1;
	}
	uint64_t period = 0;
	if (slash) {
		tspan ps = { slash + 1, w.e };
		/* pprof takes no period ("heap_v2/" or "heap_v2") as 0: no scaling. */
		if (ps.s < ps.e && (!tspan_dec(&ps, &period, NULL) || ps.s != ps.e || period > (uint64_t)INT64_MAX)) {
			prof_errorf(err, "%s: line %lu: sampling period '%.*s' is not a number from 0 to 2^63 - 1",
				    name, line, (int)(w.e - slash - 1), slash + 1);
			return -1;
		}
	}
	h->how = kd->how;
	/* Go writes heap/(2 x MemProfileRate); pprof halves it. */
	h->rate = kd->how == SAMPLED_V2_HALF ? period / 2 : kd->how == SAMPLED_V2 ? period : 0;
	p->meta.format = kd->fmt;
	if (h->rate > 1)
		p->meta.scale = (double)h->rate;
	return 0;
}

/* Reads the trailer, if any, from the line after *t's position; the
 * samples end where it starts (*end, a byte offset). */
static int read_trailer(prof *p, const prof_src *src, const tscan *t, size_t *end, prof_error *err)
{
	tscan m = *t;
	tspan l;
	*end = src->len;
	while (tscan_line(&m, &l))
		if (maps_is_trailer(l)) {
			*end = (size_t)(l.s - (const char *)src->data);
			return maps_read(p, &m, src->name, err);
		}
	return 0;
}

int heap_legacy_read(prof *p, const prof_src *src, prof_error *err)
{
	tscan t;
	tspan l;
	tscan_init(&t, src->data, src->len);
	rec r = { 0 };
	hdr h = { 0 };
	int rc = -1;
	size_t end;

	/* tcmalloc says why a sample is empty in "%warn" lines before the
	 * header; google-pprof skips every "%" line there. */
	int got;
	while ((got = tscan_line(&t, &l)) && l.s < l.e && *l.s == '%')
		;
	if (!got) {
		prof_errorf(err, "%s: line %lu: no 'heap profile:' line", src->name, t.line);
		return -1;
	}
	if (parse_header(p, &h, l, t.line, src->name, err) || read_trailer(p, src, &t, &end, err))
		goto out;
	/* Modules are known before the stacks: tcmalloc's frames can go. */
	h.drop_tcmalloc = p->modules.len > 0;
	t.len = end;
	while (tscan_line(&t, &l)) {
		if (tspan_empty(l))
			continue;
		tspan_ws(&l);
		const char *ls = l.s;
		if (*l.s == '#') {
			if (p->meta.format == PROF_FMT_GOHEAP && gomem_line(&p->go, l.s, l.e))
				continue;
			if (r.open && parse_cmt(&r, l) < 0)
				goto nomem;
			continue;
		}
		if (rec_flush(p, &r, &h))
			goto nomem;
		int64_t v[4];
		int cr = counts(&l, v, 1);
		if (cr < 0) {
			prof_errorf(err, "%s: line %lu: count out of range (above 2^63 - 1)", src->name, t.line);
			goto out;
		}
		if (!cr || !tspan_lit(&l, "@")) {
			prof_errorf(err, "%s: line %lu: expected 'N: N [N: N] @ addresses'", src->name, t.line);
			goto out;
		}
		if ((!v[0] && v[1]) || (!v[2] && v[3])) {
			prof_errorf(err, "%s: line %lu: bytes without objects", src->name, t.line);
			goto out;
		}
		if ((v[0] < 0 && v[1] > 0) || (v[0] > 0 && v[1] < 0)) {
			prof_errorf(err, "%s: line %lu: in-use objects and bytes of different signs", src->name, t.line);
			goto out;
		}
		r.io = v[0];
		r.ib = v[1];
		r.ao = (uint64_t)v[2];
		r.ab = (uint64_t)v[3];
		r.npc = r.nc = 0;
		r.open = 1;
		uint64_t pc;
		while (!tspan_empty(l)) {
			if (!tspan_hex(&l, &pc) || (l.s < l.e && *l.s != ' ' && *l.s != '\t')) {
				prof_errorf(err, "%s: line %lu: bad address at column %ld", src->name, t.line,
					    (long)(l.s - ls) + 1);
				goto out;
			}
			if (rec_push_pc(&r, pc))
				goto nomem;
		}
	}
	if (rec_flush(p, &r, &h))
		goto nomem;
	if (p->modules.len)
		maps_assign_frames(p);
	rc = 0;
	goto out;
nomem:
	prof_errorf(err, "%s: line %lu: out of memory", src->name, t.line);
out:
	free(r.pc);
	free(r.c);
	return rc;
}
