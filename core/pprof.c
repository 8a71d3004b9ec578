/* pprof.c - pprof's profile.proto (gzipped or not) from any tool: Go's
 * runtime/pprof (debug=0), go tool pprof -proto, our own export.
 * Sample types are chosen by name: inuse_space/inuse_objects and
 * alloc_space/alloc_objects become the model's alloc and free counters
 * (free = alloc - inuse); a profile with other types (cpu, space...) gives
 * its default (or last) type as allocations. Values are taken as written
 * (Go has already un-sampled them).
 * Mappings become modules (path, build id, start, limit, file offset).
 * Inline lines: a location with lines L0 (innermost) .. Ln-1 becomes n
 * frames, innermost first, each named by its function, so that flat goes to
 * the innermost function and cum to every inlined caller, as pprof counts.
 * The first frame keeps the location's address; inlined callers get the
 * same address with k << 56 set (k = 1..n-1), which keeps them distinct
 * and their module offsets stable across runs. A location without an
 * address gets 1 << 63 | id << 8 | k. Source lines are not kept (the model
 * has one name per frame). */
#include "core/foreign.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/pbuf.h"

#define PPROF_MAX_INFLATE ((size_t)1 << 32)

typedef struct span {
	const uint8_t *b;
	size_t n;
} span;

typedef struct idmap {    /* id -> index, sorted by id */
	uint64_t id;
	uint32_t ix;
} idmap;

typedef struct pctx {
	prof *p;
	const char *name;
	const uint8_t *base;   /* the decoded buffer, for offsets in messages */
	const char *where;     /* "offset" or "inflated offset" */
	prof_error *err;
	span *str;
	size_t nstr, capstr;
	span *msg[4];          /* sample_type, mapping, location, function */
	size_t nmsg[4], capmsg[4];
	span *smp;
	size_t nsmp, capsmp;
	idmap *fn, *map, *loc;
	size_t nfn, nmap, nloc;
	uint32_t *fn_name;     /* per function: string offset in p, or PROF_NONE */
	uint32_t *loc_off, *loc_n, *pool;   /* per location: frames in pool */
	size_t npool, cappool;
	int64_t default_type;
} pctx;

static int push(void **v, size_t *n, size_t *cap, size_t elem, const void *x)
{
	if (vec_grow(v, cap, *n + 1, elem))
		return -1;
	memcpy((char *)*v + *n * elem, x, elem);
	(*n)++;
	return 0;
}

static int bad(pctx *c, const uint8_t *at, const char *what)
{
	prof_errorf(c->err, "%s: %s %zu: %s", c->name, c->where, (size_t)(at - c->base), what);
	return -1;
}

static int nomem(pctx *c)
{
	prof_errorf(c->err, "%s: out of memory", c->name);
	return -1;
}

static span str_at(const pctx *c, uint64_t i)
{
	span none = { (const uint8_t *)"", 0 };
	return i < c->nstr ? c->str[i] : none;
}

static int span_is(span s, const char *lit)
{
	return s.n == strlen(lit) && !memcmp(s.b, lit, s.n);
}

static int idmap_cmp(const void *a, const void *b)
{
	uint64_t x = ((const idmap *)a)->id, y = ((const idmap *)b)->id;
	return x < y ? -1 : x > y;
}

static uint32_t idmap_find(const idmap *m, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && m[lo].id == id ? m[lo].ix : PROF_NONE;
}

/* The id (field 1) of each message of kind k, sorted for lookups. */
static int build_ids(pctx *c, int k, idmap **out, size_t *nout)
{
	idmap *m = malloc((c->nmsg[k] ? c->nmsg[k] : 1) * sizeof(*m));
	if (!m)
		return nomem(c);
	for (size_t i = 0; i < c->nmsg[k]; i++) {
		pbuf b = pbuf_of(c->msg[k][i].b, c->msg[k][i].n);
		pfield f;
		m[i] = (idmap){ 0, (uint32_t)i };
		while (pbuf_next(&b, &f))
			if (f.num == 1 && f.wt == 0)
				m[i].id = f.v;
		if (b.bad) {
			free(m);
			return bad(c, c->msg[k][i].b + b.off, "malformed message");
		}
	}
	qsort(m, c->nmsg[k], sizeof(*m), idmap_cmp);
	*out = m;
	*nout = c->nmsg[k];
	return 0;
}

static int read_top(pctx *c, const uint8_t *d, size_t len)
{
	pbuf b = pbuf_of(d, len);
	pfield f;
	while (pbuf_next(&b, &f)) {
		span s = { f.b, f.blen };
		int k = -1;
		switch (f.num) {
		case 1: k = 0; break;
		case 3: k = 1; break;
		case 4: k = 2; break;
		case 5: k = 3; break;
		case 2:
			if (f.wt != 2)
				return bad(c, d + f.at, "sample is not a message");
			if (push((void **)&c->smp, &c->nsmp, &c->capsmp, sizeof(s), &s))
				return nomem(c);
			continue;
		case 6:
			if (f.wt != 2)
				return bad(c, d + f.at, "string_table entry is not a string");
			if (push((void **)&c->str, &c->nstr, &c->capstr, sizeof(s), &s))
				return nomem(c);
			continue;
		case 9:
			if (f.wt == 0)
				c->p->meta.time = (int64_t)(f.v / 1000000000u);
			continue;
		case 14:
			if (f.wt == 0)
				c->default_type = (int64_t)f.v;
			continue;
		default:
			continue;
		}
		if (f.wt != 2)
			return bad(c, d + f.at, "expected a message");
		if (push((void **)&c->msg[k], &c->nmsg[k], &c->capmsg[k], sizeof(s), &s))
			return nomem(c);
	}
	if (b.bad)
		return bad(c, d + b.off, "malformed protobuf field");
	if (!c->nstr || c->str[0].n)
		return bad(c, d, "not a pprof profile (no string table starting with \"\")");
	return 0;
}

static int read_mappings(pctx *c)
{
	char path[4096], bid[256];
	for (size_t i = 0; i < c->nmsg[1]; i++) {
		pbuf b = pbuf_of(c->msg[1][i].b, c->msg[1][i].n);
		pfield f;
		uint64_t start = 0, limit = 0, off = 0, fname = 0, build = 0;
		while (pbuf_next(&b, &f)) {
			switch (f.num) {
			case 2: start = f.v; break;
			case 3: limit = f.v; break;
			case 4: off = f.v; break;
			case 5: fname = f.v; break;
			case 6: build = f.v; break;
			}
		}
		if (b.bad)
			return bad(c, c->msg[1][i].b + b.off, "malformed mapping");
		span ps = str_at(c, fname), bs = str_at(c, build);
		snprintf(path, sizeof(path), "%.*s", (int)ps.n, (const char *)ps.b);
		snprintf(bid, sizeof(bid), "%.*s", (int)bs.n, (const char *)bs.b);
		if (prof_module_add(c->p, path, bid, start, limit > start ? limit - start : 0, off) == PROF_NONE)
			return nomem(c);
	}
	return 0;
}

static int read_functions(pctx *c)
{
	c->fn_name = malloc((c->nmsg[3] ? c->nmsg[3] : 1) * sizeof(*c->fn_name));
	if (!c->fn_name)
		return nomem(c);
	for (size_t i = 0; i < c->nmsg[3]; i++) {
		pbuf b = pbuf_of(c->msg[3][i].b, c->msg[3][i].n);
		pfield f;
		uint64_t nm = 0;
		while (pbuf_next(&b, &f))
			if (f.num == 2 && f.wt == 0)
				nm = f.v;
		if (b.bad)
			return bad(c, c->msg[3][i].b + b.off, "malformed function");
		span s = str_at(c, nm);
		c->fn_name[i] = s.n ? prof_str(c->p, (const char *)s.b, s.n) : PROF_NONE;
		if (s.n && c->fn_name[i] == PROF_NONE)
			return nomem(c);
	}
	return 0;
}

static int read_locations(pctx *c)
{
	size_t n = c->nmsg[2] ? c->nmsg[2] : 1;
	c->loc_off = malloc(n * sizeof(*c->loc_off));
	c->loc_n = malloc(n * sizeof(*c->loc_n));
	if (!c->loc_off || !c->loc_n)
		return nomem(c);
	for (size_t i = 0; i < c->nmsg[2]; i++) {
		const uint8_t *mb = c->msg[2][i].b;
		pbuf b = pbuf_of(mb, c->msg[2][i].n);
		pfield f;
		uint64_t id = 0, mapid = 0, addr = 0;
		uint32_t fns[64];
		uint32_t nl = 0;
		while (pbuf_next(&b, &f)) {
			if (f.num == 1 && f.wt == 0)
				id = f.v;
			else if (f.num == 2 && f.wt == 0)
				mapid = f.v;
			else if (f.num == 3 && f.wt == 0)
				addr = f.v;
			else if (f.num == 4 && f.wt == 2 && nl < 64) {
				pbuf lb = pbuf_of(f.b, f.blen);
				pfield lf;
				uint64_t fid = 0;
				while (pbuf_next(&lb, &lf))
					if (lf.num == 1 && lf.wt == 0)
						fid = lf.v;
				if (lb.bad)
					return bad(c, f.b + lb.off, "malformed line");
				uint32_t fi = fid ? idmap_find(c->fn, c->nfn, fid) : PROF_NONE;
				if (fid && fi == PROF_NONE)
					return bad(c, mb + f.at, "line refers to a function that is not there");
				fns[nl++] = fi;
			}
		}
		if (b.bad)
			return bad(c, mb + b.off, "malformed location");
		uint32_t mod = PROF_NONE;
		if (mapid) {
			uint32_t mi = idmap_find(c->map, c->nmap, mapid);
			if (mi == PROF_NONE)
				return bad(c, mb, "location refers to a mapping that is not there");
			mod = mi;   /* modules were added in mapping order */
		}
		uint32_t nf = nl ? nl : 1;
		c->loc_off[i] = (uint32_t)c->npool;
		c->loc_n[i] = nf;
		for (uint32_t k = 0; k < nf; k++) {
			uint64_t a = addr ? addr ^ ((uint64_t)k << 56) : 1ull << 63 | id << 8 | k;
			uint32_t fr = prof_frame_intern(c->p, a);
			if (fr == PROF_NONE || push((void **)&c->pool, &c->npool, &c->cappool, sizeof(fr), &fr))
				return nomem(c);
			prof_frame *pf = &c->p->frames.v[fr];
			pf->module = mod;
			if (k < nl && fns[k] != PROF_NONE)
				pf->name = c->fn_name[fns[k]];
		}
	}
	return 0;
}

/* Indices of the sample types by name; -1 when absent. */
enum { IS, IO, AS, AO, NT };

static int read_types(pctx *c, int ix[NT], int *bytes_fallback)
{
	static const char *names[NT] = { "inuse_space", "inuse_objects", "alloc_space", "alloc_objects" };
	int last = -1, unit_bytes = 0, have_def = 0;
	for (int k = 0; k < NT; k++)
		ix[k] = -1;
	for (size_t i = 0; i < c->nmsg[0]; i++) {
		pbuf b = pbuf_of(c->msg[0][i].b, c->msg[0][i].n);
		pfield f;
		uint64_t type = 0, unit = 0;
		while (pbuf_next(&b, &f)) {
			if (f.num == 1 && f.wt == 0)
				type = f.v;
			else if (f.num == 2 && f.wt == 0)
				unit = f.v;
		}
		if (b.bad)
			return bad(c, c->msg[0][i].b + b.off, "malformed sample type");
		span t = str_at(c, type);
		for (int k = 0; k < NT; k++)
			if (span_is(t, names[k]))
				ix[k] = (int)i;
		if (span_is(t, "space") && ix[IS] < 0)
			ix[IS] = (int)i;
		if (span_is(t, "objects") && ix[IO] < 0)
			ix[IO] = (int)i;
		/* The default type when the profile names one, else the last. */
		int is_def = c->default_type && (int64_t)type == c->default_type;
		if (is_def || !have_def) {
			last = (int)i;
			unit_bytes = span_is(str_at(c, unit), "bytes");
			have_def |= is_def;
		}
	}
	if (!c->nmsg[0])
		return bad(c, c->base, "profile has no sample types");
	if (ix[IS] < 0 && ix[IO] < 0 && ix[AS] < 0 && ix[AO] < 0) {
		/* Not a heap profile: its main type, counted as allocations. */
		ix[unit_bytes ? AS : AO] = last;
		*bytes_fallback = 1;
	}
	return 0;
}

/* Repeated scalars come packed (one length-delimited field) or one by one. */
static int scalars(const pfield *f, uint64_t *out, size_t max, size_t *n)
{
	if (f->wt == 0) {
		if (*n < max)
			out[*n] = f->v;
		(*n)++;
		return 0;
	}
	if (f->wt != 2)
		return -1;
	pbuf b = pbuf_of(f->b, f->blen);
	while (b.off < b.len && !b.bad) {
		uint64_t v = pbuf_varint(&b);
		if (*n < max)
			out[*n] = v;
		(*n)++;
	}
	return b.bad ? -1 : 0;
}

/* One sample: its locations expanded to frames, its values mapped. */
static int read_sample(pctx *c, span sm, const int ix[NT], int fb, uint64_t **locs, size_t *cap)
{
	pbuf b = pbuf_of(sm.b, sm.n);
	pfield f;
	uint64_t vals[16] = { 0 }, size = 0;
	size_t nloc = 0, nval = 0;
	/* First pass counts the locations so the array can be sized. */
	while (pbuf_next(&b, &f))
		if (f.num == 1 && scalars(&f, NULL, 0, &nloc))
			return bad(c, sm.b + f.at, "malformed location ids");
	if (b.bad)
		return bad(c, sm.b + b.off, "malformed sample");
	if (nloc > *cap) {
		uint64_t *nl = realloc(*locs, nloc * sizeof(*nl));
		if (!nl)
			return nomem(c);
		*locs = nl;
		*cap = nloc;
	}
	b = pbuf_of(sm.b, sm.n);
	nloc = 0;
	while (pbuf_next(&b, &f)) {
		if (f.num == 1) {
			scalars(&f, *locs, *cap, &nloc);
		} else if (f.num == 2) {
			if (scalars(&f, vals, 16, &nval))
				return bad(c, sm.b + f.at, "malformed values");
		} else if (f.num == 3 && f.wt == 2) {
			pbuf lb = pbuf_of(f.b, f.blen);
			pfield lf;
			uint64_t key = 0, num = 0;
			while (pbuf_next(&lb, &lf)) {
				if (lf.num == 1 && lf.wt == 0)
					key = lf.v;
				else if (lf.num == 3 && lf.wt == 0)
					num = lf.v;
			}
			if (lb.bad)
				return bad(c, f.b + lb.off, "malformed label");
			if (span_is(str_at(c, key), "bytes"))
				size = num;
		}
	}
	if (nval != c->nmsg[0])
		return bad(c, sm.b, "sample has a different number of values than sample types");
	if (nval > 16)
		return bad(c, sm.b, "more than 16 sample types");
	uint64_t *lv = *locs;
	uint32_t depth = 0;
	for (size_t k = 0; k < nloc; k++) {
		uint32_t li = idmap_find(c->loc, c->nloc, lv[k]);
		if (li == PROF_NONE)
			return bad(c, sm.b, "sample refers to a location that is not there");
		lv[k] = li;
		depth += c->loc_n[li];
	}
	uint32_t *dst = depth ? prof_stack_begin(c->p, depth) : NULL;
	if (depth && !dst)
		return nomem(c);
	for (size_t k = 0; k < nloc; k++) {
		memcpy(dst, c->pool + c->loc_off[lv[k]], c->loc_n[lv[k]] * sizeof(*dst));
		dst += c->loc_n[lv[k]];
	}
	/* A sample without locations (pprof's empty stack) is a row too. */
	uint32_t st = depth ? prof_stack_commit(c->p, depth) : prof_stack_nostack(c->p);
	if (st == PROF_NONE)
		return nomem(c);
	uint64_t v[NT];
	for (int k = 0; k < NT; k++)
		v[k] = ix[k] >= 0 ? vals[ix[k]] : 0;
	uint64_t ao = ix[AO] >= 0 ? v[AO] : v[IO], ab = ix[AS] >= 0 ? v[AS] : v[IS];
	uint64_t io = ix[IO] >= 0 ? v[IO] : fb ? ao : 0, ib = ix[IS] >= 0 ? v[IS] : fb ? ab : 0;
	if (!size && ao)
		size = ab / ao;
	/* Unsigned wrap keeps inuse = alloc - free exact even when negative. */
	if (prof_sample_add(c->p, st, size, ao, ab, ao - io, ab - ib))
		return nomem(c);
	return 0;
}

static int read_samples(pctx *c)
{
	int ix[NT], fb = 0;
	if (read_types(c, ix, &fb))
		return -1;
	uint64_t *locs = NULL;
	size_t cap = 0;
	int rc = 0;
	for (size_t i = 0; i < c->nsmp && !rc; i++)
		rc = read_sample(c, c->smp[i], ix, fb, &locs, &cap);
	free(locs);
	return rc;
}

/* Inflates a gzip stream; *out is malloc'd (caller frees). */
static int gunzip(const uint8_t *d, size_t len, uint8_t **out, size_t *olen, const char *name, prof_error *err)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		prof_errorf(err, "%s: out of memory", name);
		return -1;
	}
	size_t cap = len * 4 + 4096, n = 0;
	uint8_t *buf = malloc(cap);
	int r = Z_OK;
	z.next_in = (Bytef *)d;
	while (buf) {
		z.avail_in = (uInt)(len - (size_t)((const uint8_t *)z.next_in - d) > UINT32_MAX ? UINT32_MAX
					   : len - (size_t)((const uint8_t *)z.next_in - d));
		z.next_out = buf + n;
		z.avail_out = (uInt)(cap - n > UINT32_MAX ? UINT32_MAX : cap - n);
		r = inflate(&z, Z_NO_FLUSH);
		n = (size_t)(z.next_out - buf);
		if (r == Z_STREAM_END || (r != Z_OK && r != Z_BUF_ERROR))
			break;
		if (r == Z_BUF_ERROR && z.avail_out) {   /* input ended early */
			r = Z_DATA_ERROR;
			break;
		}
		if (n == cap) {
			if (cap >= PPROF_MAX_INFLATE) {
				r = Z_MEM_ERROR;
				break;
			}
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	size_t at = (size_t)((const uint8_t *)z.next_in - d);
	inflateEnd(&z);
	if (!buf || r == Z_MEM_ERROR) {
		free(buf);
		prof_errorf(err, "%s: out of memory inflating", name);
		return -1;
	}
	if (r != Z_STREAM_END) {
		free(buf);
		prof_errorf(err, "%s: offset %zu: gzip data %s", name, at,
			    z.msg ? z.msg : "ends early");
		return -1;
	}
	*out = buf;
	*olen = n;
	return 0;
}

int pprof_sniff(const uint8_t *d, size_t len)
{
	if (len >= 2 && d[0] == 0x1f && d[1] == 0x8b)
		return 1;
	/* Raw profile.proto: starts with a well-formed sample_type (field 1)
	 * and has no field numbers above 15 before any damage. */
	if (len < 2 || d[0] != 0x0a)
		return 0;
	pbuf b = pbuf_of(d, len);
	pfield f;
	if (!pbuf_next(&b, &f) || f.wt != 2)
		return 0;
	pbuf vt = pbuf_of(f.b, f.blen);
	pfield g;
	while (pbuf_next(&vt, &g))
		if ((g.num != 1 && g.num != 2) || g.wt != 0)
			return 0;
	if (vt.bad)
		return 0;
	int n = 1;
	while (n < 64 && pbuf_next(&b, &f)) {
		if (f.num > 15)
			return 0;
		n++;
	}
	return n > 0;   /* later damage is the reader's to report, with its offset */
}

int pprof_read(prof *p, const prof_src *src, prof_error *err)
{
	pctx c;
	memset(&c, 0, sizeof(c));
	c.p = p;
	c.name = src->name;
	c.err = err;
	c.where = "offset";
	p->meta.format = PROF_FMT_PPROF;
	const uint8_t *d = src->data;
	size_t len = src->len;
	uint8_t *raw = NULL;
	int rc = -1;
	if (len >= 2 && d[0] == 0x1f && d[1] == 0x8b) {
		if (gunzip(d, len, &raw, &len, src->name, err))
			return -1;
		d = raw;
		c.where = "inflated offset";
	}
	c.base = d;
	if (read_top(&c, d, len) || build_ids(&c, 3, &c.fn, &c.nfn) || build_ids(&c, 1, &c.map, &c.nmap) ||
	    build_ids(&c, 2, &c.loc, &c.nloc) || read_mappings(&c) || read_functions(&c) ||
	    read_locations(&c) || read_samples(&c))
		goto out;
	rc = 0;
out:
	free(raw);
	free(c.str);
	for (int k = 0; k < 4; k++)
		free(c.msg[k]);
	free(c.smp);
	free(c.fn);
	free(c.map);
	free(c.loc);
	free(c.fn_name);
	free(c.loc_off);
	free(c.loc_n);
	free(c.pool);
	return rc;
}
