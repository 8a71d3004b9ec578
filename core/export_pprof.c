/* export_pprof.c - pprof's profile.proto, gzipped, as go tool pprof reads
 * it: sample types alloc_objects/count, alloc_space/bytes,
 * inuse_objects/count, inuse_space/bytes (inuse last: pprof's default);
 * a mapping per module (with its build id); a location per frame, its
 * lines the frame's nodes innermost first (inline chain), a function per
 * distinct name. Sample location ids are leaf first, as the model's. */
#include "core/diff.h"
#include "core/export.h"
#include "core/names.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/strix.h"
#include "core/u64map.h"

/* A growable byte buffer; failed is sticky. Owns d. */
typedef struct bbuf {
	uint8_t *d;
	size_t len, cap;
	int failed;
} bbuf;

static void bb_put(bbuf *b, const void *x, size_t n)
{
	if (b->failed)
		return;
	if (vec_grow((void **)&b->d, &b->cap, b->len + n, 1)) {
		b->failed = 1;
		return;
	}
	memcpy(b->d + b->len, x, n);
	b->len += n;
}

static void bb_varint(bbuf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;
	do {
		t[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	bb_put(b, t, n);
}

static void bb_uint(bbuf *b, uint32_t field, uint64_t v)
{
	if (!v)
		return;   /* proto3: zero is the default, left out */
	bb_varint(b, (uint64_t)field << 3);
	bb_varint(b, v);
}

static void bb_bytes(bbuf *b, uint32_t field, const void *x, size_t n)
{
	bb_varint(b, (uint64_t)field << 3 | 2);
	bb_varint(b, n);
	bb_put(b, x, n);
}

/* Appends sub as a length-delimited field and empties it. */
static void bb_msg(bbuf *b, uint32_t field, bbuf *sub)
{
	bb_bytes(b, field, sub->d ? sub->d : (const uint8_t *)"", sub->len);
	b->failed |= sub->failed;
	sub->len = 0;
}

/* String table: strings in order (owned copies), interned. */
typedef struct stab {
	bbuf out;             /* the encoded string_table fields */
	char **s;
	size_t n, cap;
	strix ix;
	int failed;
} stab;

static const char *stab_str(const void *t, uint32_t id)
{
	return ((const stab *)t)->s[id];
}

static uint64_t stab_id(stab *t, const char *s)
{
	if (t->failed)
		return 0;
	size_t at, len = strlen(s);
	uint32_t id = strix_find(&t->ix, s, len, &at);
	if (id != STRIX_NONE)
		return id;
	char *c = vec_grow((void **)&t->s, &t->cap, t->n + 1, sizeof(*t->s)) ? NULL : strdup(s);
	if (!c) {
		t->failed = 1;
		return 0;
	}
	t->s[t->n] = c;
	bb_bytes(&t->out, 6, c, len);
	if (strix_add(&t->ix, at, (uint32_t)t->n++))
		t->failed = 1;
	return t->n - 1;
}

static void stab_free(stab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	strix_free(&t->ix);
	free(t->out.d);
}

static void value_type(bbuf *b, bbuf *sub, uint32_t field, stab *t, const char *type, const char *unit)
{
	bb_uint(sub, 1, stab_id(t, type));
	bb_uint(sub, 2, stab_id(t, unit));
	bb_msg(b, field, sub);
}

/* Deflates buf into fd as one gzip member. 0 or an errno. */
static int gzip_write(int fd, const uint8_t *d, size_t len)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return ENOMEM;
	uint8_t out[1 << 16];
	z.next_in = (Bytef *)d;
	int e = 0, r;
	do {
		size_t left = len - (size_t)((const uint8_t *)z.next_in - d);
		z.avail_in = (uInt)(left > (1u << 30) ? (1u << 30) : left);
		int flush = left > (1u << 30) ? Z_NO_FLUSH : Z_FINISH;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			r = deflate(&z, flush);
			size_t n = sizeof(out) - z.avail_out, off = 0;
			while (off < n && !e) {
				ssize_t w = write(fd, out + off, n - off);
				if (w < 0 && errno == EINTR)
					continue;
				if (w < 0)
					e = errno;
				else
					off += (size_t)w;
			}
		} while (z.avail_out == 0 && !e);
	} while (r != Z_STREAM_END && r != Z_STREAM_ERROR && !e);
	deflateEnd(&z);
	return e ? e : r == Z_STREAM_END ? 0 : EIO;
}

/* Functions of the lines mode: (name, file) string ids -> function id. */
typedef struct lfuncs {
	u64map ids;            /* name << 32 | file -> index in key */
	uint64_t *key;
	size_t n, cap;
} lfuncs;

/* The function id (from 1) of name in file; 0 on ENOMEM. */
static uint64_t lfunc_id(lfuncs *lf, uint64_t name, uint64_t file)
{
	uint64_t k = name << 32 | file;
	size_t at = lf->ids.vals ? u64map_slot(&lf->ids, k) : 0;
	if (lf->ids.vals && lf->ids.vals[at] != U64MAP_NONE)
		return (uint64_t)lf->ids.vals[at] + 1;
	if (vec_grow((void **)&lf->key, &lf->cap, lf->n + 1, sizeof(*lf->key)) ||
	    u64map_put(&lf->ids, k, (uint32_t)lf->n))
		return 0;
	lf->key[lf->n++] = k;
	return lf->n;
}

/* Appends to a location one Line: the function (name, file string ids) and
 * the line number (0: none). */
static void line_put(bbuf *sub, bbuf *line, stab *t, lfuncs *lf, uint64_t name, uint64_t file, int lineno)
{
	uint64_t id = lfunc_id(lf, name, file);
	if (!id)
		t->failed = 1;
	bb_uint(line, 1, id);
	if (lineno > 0)
		bb_uint(line, 2, (uint64_t)lineno);
	bb_msg(sub, 4, line);
}

/* The lines of frame f from lines (innermost first); 0 when there are none. */
static size_t frame_lines(bbuf *sub, bbuf *line, stab *t, lfuncs *lf, const export_lines *lines, uint32_t f)
{
	export_line el[64];
	size_t n = lines->get(lines->ctx, f, el, sizeof(el) / sizeof(el[0]));
	for (size_t k = 0; k < n; k++)
		line_put(sub, line, t, lf, stab_id(t, el[k].func ? el[k].func : "??"),
			 stab_id(t, el[k].file ? el[k].file : ""), el[k].line);
	return n;
}

int export_pprof(int fd, const prof *p, const prof_nodemap *m, const export_lines *lines, prof_error *err)
{
	return export_pprof_as(fd, p, m, lines, "inuse_space", err);
}

int export_pprof_as(int fd, const prof *p, const prof_nodemap *m, const export_lines *lines, const char *dflt,
		    prof_error *err)
{
	bbuf b = { 0 }, sub = { 0 }, line = { 0 }, packed = { 0 };
	stab t = { 0 };
	lfuncs lf = { 0 };
	uint64_t *fn_of_str = NULL;   /* without m: string id -> 1 when a function */
	size_t nfn = 0;
	int rc = -1;
	char nb[32], sb[1024];   /* sb: a frame named as the screen names it, the same in every run */

	if (strix_init(&t.ix, 0, stab_str, &t)) {
		prof_errorf(err, "out of memory");
		return -1;
	}
	stab_id(&t, "");
	value_type(&b, &sub, 1, &t, "alloc_objects", "count");
	value_type(&b, &sub, 1, &t, "alloc_space", "bytes");
	value_type(&b, &sub, 1, &t, "inuse_objects", "count");
	value_type(&b, &sub, 1, &t, "inuse_space", "bytes");
	uint64_t bytes_key = stab_id(&t, "bytes");
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *s = &p->samples.v[i];
		const prof_stack *st = &p->stacks.v[s->stack];
		const uint32_t *fr = prof_stack_frames(p, s->stack);
		for (uint32_t d = 0; d < st->depth; d++)
			bb_varint(&packed, (uint64_t)fr[d] + 1);
		bb_msg(&sub, 1, &packed);
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(s, v);
		bb_varint(&packed, (uint64_t)v[AGG_ALLOC_OBJS]);
		bb_varint(&packed, (uint64_t)v[AGG_ALLOC_BYTES]);
		bb_varint(&packed, (uint64_t)v[AGG_INUSE_OBJS]);
		bb_varint(&packed, (uint64_t)v[AGG_INUSE_BYTES]);
		bb_msg(&sub, 2, &packed);
		if (s->size) {
			bb_uint(&line, 1, bytes_key);
			bb_uint(&line, 3, s->size);
			bb_uint(&line, 4, bytes_key);
			bb_msg(&sub, 3, &line);
		}
		bb_msg(&b, 2, &sub);
	}
	int named = 0;
	for (size_t f = 0; f < p->frames.len && !named; f++)
		named = p->frames.v[f].name != PROF_NONE || m;
	for (size_t i = 0; i < p->modules.len; i++) {
		const prof_module *mo = &p->modules.v[i];
		bb_uint(&sub, 1, i + 1);
		bb_uint(&sub, 2, mo->base);
		bb_uint(&sub, 3, mo->base + mo->size);
		bb_uint(&sub, 4, mo->offset);
		bb_uint(&sub, 5, stab_id(&t, p->strs.v + mo->path));
		if (mo->build_id != PROF_NONE)
			bb_uint(&sub, 6, stab_id(&t, p->strs.v + mo->build_id));
		bb_uint(&sub, 7, (uint64_t)named);
		bb_msg(&b, 3, &sub);
	}
	for (size_t f = 0; f < p->frames.len; f++) {
		const prof_frame *fr = &p->frames.v[f];
		bb_uint(&sub, 1, f + 1);
		if (fr->module != PROF_NONE && fr->module < p->modules.len)
			bb_uint(&sub, 2, (uint64_t)fr->module + 1);
		if (fr->module != PROF_NONE || fr->addr < DIFF_NAMED_ADDR)   /* a diff's named frames have none */
			bb_uint(&sub, 3, fr->addr);
		if (lines && frame_lines(&sub, &line, &t, &lf, lines, (uint32_t)f)) {
			/* the chain from the symbols */
		} else if (lines) {
			/* no source: the frame's nodes (or name) as functions without a file, an
			 * unresolved one as module+offset (the screen's name: the same in every run) */
			if (m) {
				for (uint32_t k = m->off[f]; k < m->off[f + 1]; k++)
					line_put(&sub, &line, &t, &lf, stab_id(&t, name_short(p, nodemap_name(m, m->nodes[k]), sb, sizeof(sb))), 0, 0);
			} else if (fr->name != PROF_NONE) {
				uint64_t sid = stab_id(&t, name_short(p, prof_frame_name(p, (uint32_t)f, nb, sizeof(nb)), sb, sizeof(sb)));
				if (sid)
					line_put(&sub, &line, &t, &lf, sid, 0, 0);
			}
		} else if (m) {
			for (uint32_t k = m->off[f]; k < m->off[f + 1]; k++) {
				bb_uint(&line, 1, (uint64_t)m->nodes[k] + 1);
				bb_msg(&sub, 4, &line);
			}
		} else if (fr->name != PROF_NONE) {
			uint64_t sid = stab_id(&t, prof_frame_name(p, (uint32_t)f, nb, sizeof(nb)));
			if (!sid)
				goto loc_done;   /* an empty name: no line */
			if (sid >= nfn) {
				size_t nn = (sid + 1) * 2;
				uint64_t *nf = realloc(fn_of_str, nn * sizeof(*nf));
				if (!nf)
					goto nomem;
				memset(nf + nfn, 0, (nn - nfn) * sizeof(*nf));
				fn_of_str = nf;
				nfn = nn;
			}
			fn_of_str[sid] = 1;
			bb_uint(&line, 1, sid);   /* function id = its name's string id */
			bb_msg(&sub, 4, &line);
		}
loc_done:
		bb_msg(&b, 4, &sub);
	}
	if (lines) {
		for (size_t i = 0; i < lf.n; i++) {
			bb_uint(&sub, 1, i + 1);
			bb_uint(&sub, 2, lf.key[i] >> 32);
			bb_uint(&sub, 3, lf.key[i] >> 32);
			if ((uint32_t)lf.key[i])
				bb_uint(&sub, 4, (uint32_t)lf.key[i]);
			bb_msg(&b, 5, &sub);
		}
	} else if (m) {
		for (uint32_t n = 0; n < m->nnodes; n++) {
			uint64_t sid = stab_id(&t, nodemap_name(m, n));
			bb_uint(&sub, 1, (uint64_t)n + 1);
			bb_uint(&sub, 2, sid);
			bb_uint(&sub, 3, sid);
			bb_msg(&b, 5, &sub);
		}
	} else {
		for (size_t sid = 0; sid < nfn; sid++) {
			if (!fn_of_str[sid])
				continue;
			bb_uint(&sub, 1, sid);
			bb_uint(&sub, 2, sid);
			bb_uint(&sub, 3, sid);
			bb_msg(&b, 5, &sub);
		}
	}
	if (p->meta.time > 0)
		bb_uint(&b, 9, (uint64_t)p->meta.time * 1000000000u);
	value_type(&b, &sub, 11, &t, "space", "bytes");
	/* The mean bytes between samples, as Go's MemProfileRate (1: exact). */
	bb_uint(&b, 12, p->meta.scale > 1 ? (uint64_t)(p->meta.scale + 0.5) : 1);
	bb_uint(&b, 14, stab_id(&t, dflt));
	if (b.failed || sub.failed || line.failed || packed.failed || t.failed || t.out.failed)
		goto nomem;
	/* The string table goes last: every string is known by now. */
	bb_put(&b, t.out.d, t.out.len);
	if (b.failed)
		goto nomem;
	int e = gzip_write(fd, b.d, b.len);
	if (e) {
		prof_errorf(err, "write failed: %s", strerror(e));
		goto out;
	}
	rc = 0;
	goto out;
nomem:
	prof_errorf(err, "out of memory");
out:
	free(b.d);
	free(sub.d);
	free(line.d);
	free(packed.d);
	free(fn_of_str);
	free(lf.key);
	u64map_free(&lf.ids);
	stab_free(&t);
	return rc;
}
