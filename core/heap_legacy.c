/* heap_legacy.c - the legacy text heap profile ("heap profile: ... @ X")
 * written by gperftools (@ heapprofile, then MAPPED_LIBRARIES:) and by Go's
 * runtime/pprof with debug=1 (@ heap/2*MemProfileRate, "#" symbol lines).
 * One line per stack: "inuse_objs: inuse_bytes [alloc_objs: alloc_bytes]
 * @ pc pc ...", innermost first. Go's counts are un-sampled as pprof does. */
#include "core/foreign.h"

#include <stdlib.h>
#include <string.h>

#include "core/heap_scale.h"
#include "core/maps.h"

/* The record being read: its pcs and the Go "#" lines that follow it. */
typedef struct rec {
	uint64_t *pc;
	size_t npc, cap;
	struct cmt { uint64_t addr; const char *s; size_t n; } *c;
	size_t nc, ccap;
	uint64_t v[4];          /* inuse objs, bytes, alloc objs, bytes */
	int open;
} rec;

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

/* Publishes the open record as a stack and a sample. */
static int rec_flush(prof *p, rec *r, uint64_t rate)
{
	if (!r->open)
		return 0;
	r->open = 0;
	size_t first = 0;
	/* Go hides the runtime's allocation frames at the leaf (they get no
	 * "#" line); pprof drops them too. */
	if (r->nc)
		while (first < r->npc && !rec_cmt(r, r->pc[first]))
			first++;
	if (first == r->npc)
		first = 0;
	uint32_t depth = (uint32_t)(r->npc - first);
	uint32_t *dst = prof_stack_begin(p, depth);
	if (!dst)
		return -1;
	for (uint32_t i = 0; i < depth; i++) {
		uint64_t pc = r->pc[first + i];
		uint32_t f = prof_frame_intern(p, pc);
		if (f == PROF_NONE)
			return -1;
		dst[i] = f;
		const struct cmt *c = r->nc ? rec_cmt(r, pc) : NULL;
		if (c && c->n && p->frames.v[f].name == PROF_NONE) {
			uint32_t s = prof_str(p, c->s, c->n);
			if (s == PROF_NONE)
				return -1;
			p->frames.v[f].name = s;
		}
	}
	uint32_t st = prof_stack_commit(p, depth);
	if (st == PROF_NONE)
		return -1;
	uint64_t io = r->v[0], ib = r->v[1], ao = r->v[2], ab = r->v[3];
	uint64_t size = ao ? ab / ao : io ? ib / io : 0;
	if (rate > 1) {
		heap_scale(&io, &ib, rate);
		heap_scale(&ao, &ab, rate);
	}
	/* The model keeps alloc and free; free may wrap when scaled in use
	 * exceeds alloc, and inuse = alloc - free wraps back exactly. */
	return prof_sample_add(p, st, size, ao, ab, ao - io, ab - ib);
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

int heap_legacy_read(prof *p, const prof_src *src, prof_error *err)
{
	tscan t;
	tspan l, w;
	tscan_init(&t, src->data, src->len);
	rec r = { 0 };
	int rc = -1;
	uint64_t v[4], rate = 1;

	if (!tscan_line(&t, &l) || !tspan_lit(&l, "heap profile:") || !tspan_dec(&l, &v[0], NULL) ||
	    !tspan_lit(&l, ":") || !tspan_dec(&l, &v[1], NULL) || !tspan_lit(&l, "[") ||
	    !tspan_dec(&l, &v[2], NULL) || !tspan_lit(&l, ":") || !tspan_dec(&l, &v[3], NULL) ||
	    !tspan_lit(&l, "]") || !tspan_lit(&l, "@") || !tspan_word(&l, &w)) {
		prof_errorf(err, "%s: line 1: expected 'heap profile: N: N [N: N] @ heapprofile|heap/RATE'", src->name);
		goto out;
	}
	size_t kn = (size_t)(w.e - w.s);
	tspan k = w;
	int go = tspan_starts(k, "heap/"), v2 = tspan_starts(k, "heap_v2/");
	if (kn == 11 && !memcmp(w.s, "heapprofile", 11)) {
		p->meta.format = PROF_FMT_GPERF;
	} else if ((go || v2) && (k.s += go ? 5 : 8, tspan_dec(&k, &rate, NULL)) && k.s == k.e) {
		/* Go writes heap/(2 x MemProfileRate); pprof samples at half of it. */
		if (go)
			rate /= 2;
		p->meta.format = PROF_FMT_GOHEAP;
		if (rate > 1)
			p->meta.scale = (double)rate;
	} else {
		prof_errorf(err, "%s: line 1: unknown heap profile kind '%.*s'", src->name, (int)kn, w.s);
		goto out;
	}
	while (tscan_line(&t, &l)) {
		if (tspan_empty(l))
			continue;
		tspan_ws(&l);
		const char *ls = l.s;
		if (*l.s == '#') {
			if (r.open && parse_cmt(&r, l) < 0)
				goto nomem;
			continue;
		}
		if (tspan_starts(l, "MAPPED_LIBRARIES:")) {
			if (rec_flush(p, &r, rate))
				goto nomem;
			if (maps_read(p, &t, src->name, err))
				goto out;
			break;
		}
		if (rec_flush(p, &r, rate))
			goto nomem;
		if (!tspan_dec(&l, &r.v[0], NULL) || !tspan_lit(&l, ":") || !tspan_dec(&l, &r.v[1], NULL) ||
		    !tspan_lit(&l, "[") || !tspan_dec(&l, &r.v[2], NULL) || !tspan_lit(&l, ":") ||
		    !tspan_dec(&l, &r.v[3], NULL) || !tspan_lit(&l, "]") || !tspan_lit(&l, "@")) {
			prof_errorf(err, "%s: line %lu: expected 'N: N [N: N] @ addresses'", src->name, t.line);
			goto out;
		}
		if ((!r.v[0] && r.v[1]) || (!r.v[2] && r.v[3])) {
			prof_errorf(err, "%s: line %lu: bytes without objects", src->name, t.line);
			goto out;
		}
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
	if (rec_flush(p, &r, rate))
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
