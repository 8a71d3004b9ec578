/* report.c - the batch reports. The text form matches skynet-mprof's
 * mprof.go (-top=flat|cum, -info) column for column. */
#include "core/report.h"
#include "core/bytes.h"
#include "core/safetext.h"

#include <stdlib.h>
#include <string.h>

/* qsort has no context argument in C11: the comparison reads these. */
static struct {
	const agg *a;
	const prof_nodemap *m;
	int bytes, objs;      /* metric indices: primary and tie-break */
	enum report_sort sort;
	uint8_t leaf;
	int magnitude;
} ctx;

/* Descending; by magnitude first in a diff (then growth before shrink). */
static int cmp_i64(int64_t x, int64_t y)
{
	return agg_order(x, y, ctx.magnitude);
}

static int row_cmp(const void *pa, const void *pb)
{
	uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
	const agg_vals *vx = &ctx.a->v[x], *vy = &ctx.a->v[y];
	int r;
	if (ctx.sort == REPORT_FLAT) {
		/* Leaf rows first, by flat; then the others by cum. */
		int lx = !!(ctx.a->flags[x] & ctx.leaf), ly = !!(ctx.a->flags[y] & ctx.leaf);
		if (lx != ly)
			return ly - lx;
		if (lx) {
			if ((r = cmp_i64(vx->flat[ctx.bytes], vy->flat[ctx.bytes])) ||
			    (r = cmp_i64(vx->flat[ctx.objs], vy->flat[ctx.objs])))
				return r;
		}
	}
	if ((r = cmp_i64(vx->cum[ctx.bytes], vy->cum[ctx.bytes])) ||
	    (r = cmp_i64(vx->cum[ctx.objs], vy->cum[ctx.objs])))
		return r;
	if ((r = strcmp(nodemap_name(ctx.m, x), nodemap_name(ctx.m, y))))
		return r;
	return x < y ? -1 : x > y;
}

long report_rows(const agg *a, const prof_nodemap *m, const report_opts *o, uint32_t **rows)
{
	uint8_t seen = o->alloc ? AGG_SEEN_ALLOC : AGG_SEEN_INUSE;
	uint32_t *r = malloc((a->nnodes ? a->nnodes : 1) * sizeof(*r));
	if (!r)
		return -1;
	long n = 0;
	for (uint32_t i = 0; i < a->nnodes; i++)
		if (a->flags[i] & seen)
			r[n++] = i;
	enum agg_metric b = agg_metric_of(o->alloc, 0), ob = agg_metric_of(o->alloc, 1);
	ctx.a = a;
	ctx.m = m;
	ctx.bytes = o->objects ? ob : b;
	ctx.objs = o->objects ? b : ob;
	ctx.sort = o->sort;
	ctx.leaf = o->alloc ? AGG_LEAF_ALLOC : AGG_LEAF_INUSE;
	ctx.magnitude = o->magnitude;
	qsort(r, (size_t)n, sizeof(*r), row_cmp);
	*rows = r;
	return n;
}

static void col(FILE *out, const char *s)
{
	fprintf(out, "%-10s", s);
}

static void col_kb(FILE *out, int64_t bytes)
{
	char b[64];
	snprintf(b, sizeof(b), "%.2f", (double)bytes / 1024.0);
	col(out, b);
}

static void col_pct(FILE *out, int64_t v, int64_t total)
{
	char b[64];
	snprintf(b, sizeof(b), "%.2f%%", total ? (double)v * 100.0 / (double)total : 0.0);
	col(out, b);
}

static void col_int(FILE *out, int64_t v)
{
	char b[32];
	snprintf(b, sizeof(b), "%lld", (long long)v);
	col(out, b);
}

int report_top(FILE *out, const agg *a, const prof_nodemap *m, const report_opts *o)
{
	uint32_t *rows;
	long n = report_rows(a, m, o, &rows);
	if (n < 0)
		return -1;
	if (o->limit > 0 && n > o->limit)
		n = o->limit;
	enum agg_metric b = agg_metric_of(o->alloc, 0), ob = agg_metric_of(o->alloc, 1);
	uint8_t leaf = o->alloc ? AGG_LEAF_ALLOC : AGG_LEAF_INUSE;
	/* Percentages are of the chosen metric's total, as the reference's. */
	int64_t total = a->total[o->objects ? ob : b];

	if (o->tsv) {
		fprintf(out, "flat_bytes\tflat_objects\tcum_bytes\tcum_objects\tname\n");
		for (long i = 0; i < n; i++) {
			const agg_vals *v = &a->v[rows[i]];
			fprintf(out, "%lld\t%lld\t%lld\t%lld\t%s\n", (long long)v->flat[b],
				(long long)v->flat[ob], (long long)v->cum[b], (long long)v->cum[ob],
				nodemap_name(m, rows[i]));
		}
		free(rows);
		return ferror(out) ? -1 : 0;
	}

	fprintf(out, "-----------%s space ranking----------\n", o->what ? o->what : o->alloc ? "alloc" : "inuse");
	if (a->total[b] == 0 && !o->objects) {
		fprintf(out, "total bytes is 0\n");
		free(rows);
		return ferror(out) ? -1 : 0;
	}
	const char *hf = "Flat(kb): Flat%:    FlatObjs: ", *hc = "Cum(kb):  Cum%:     CumObjs:  ";
	fprintf(out, "No:       %s%sFuncName: \n", o->sort == REPORT_FLAT ? hf : hc,
		o->sort == REPORT_FLAT ? hc : hf);
	int pb = o->objects ? ob : b;   /* the column percentages follow the metric */
	for (long i = 0; i < n; i++) {
		const agg_vals *v = &a->v[rows[i]];
		char rank[32];
		snprintf(rank, sizeof(rank), "%ldth", i + 1);
		col(out, rank);
		int isleaf = !!(a->flags[rows[i]] & leaf);
		if (o->sort == REPORT_FLAT) {
			if (isleaf) {
				col_kb(out, v->flat[b]);
				col_pct(out, v->flat[pb], total);
				col_int(out, v->flat[ob]);
			} else {
				/* The reference prints a non-leaf's flat columns with %d. */
				col(out, "0");
				col(out, "0");
				col(out, "0");
			}
			col_kb(out, v->cum[b]);
			col_pct(out, v->cum[pb], total);
			col_int(out, v->cum[ob]);
		} else {
			col_kb(out, v->cum[b]);
			col_pct(out, v->cum[pb], total);
			col_int(out, v->cum[ob]);
			col_kb(out, v->flat[b]);
			col_pct(out, v->flat[pb], total);
			col_int(out, v->flat[ob]);
		}
		fprintf(out, "%s\n", nodemap_name(m, rows[i]));
	}
	free(rows);
	return ferror(out) ? -1 : 0;
}

static const prof *info_p;

static int frame_addr_cmp(const void *pa, const void *pb)
{
	uint64_t x = info_p->frames.v[*(const uint32_t *)pa].addr;
	uint64_t y = info_p->frames.v[*(const uint32_t *)pb].addr;
	return x < y ? -1 : x > y;
}

static int sample_inuse_cmp(const void *pa, const void *pb)
{
	uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
	const prof_sample *sx = &info_p->samples.v[x], *sy = &info_p->samples.v[y];
	int r = cmp_i64((int64_t)(sx->c.alloc_bytes - sx->c.free_bytes), (int64_t)(sy->c.alloc_bytes - sy->c.free_bytes));
	return r ? r : (x < y ? -1 : x > y);   /* stable: file order among equals */
}

int report_info(FILE *out, const prof *p)
{
	size_t nf = p->frames.len, ns = p->samples.len;
	uint32_t *fi = malloc((nf ? nf : 1) * sizeof(*fi));
	uint32_t *si = malloc((ns ? ns : 1) * sizeof(*si));
	if (!fi || !si) {
		free(fi);
		free(si);
		return -1;
	}
	size_t k = 0;
	for (size_t i = 0; i < nf; i++)
		if (p->frames.v[i].name != PROF_NONE)   /* names come from the table only */
			fi[k++] = (uint32_t)i;
	info_p = p;
	qsort(fi, k, sizeof(*fi), frame_addr_cmp);
	fprintf(out, "----------FuncName:------------\n");
	char safe[1024];
	for (size_t i = 0; i < k; i++)
		fprintf(out, "%s\n", text_safe(p->strs.v + p->frames.v[fi[i]].name, safe, sizeof(safe)));
	fprintf(out, "--------------------------------------------------------------------\n");
	fprintf(out, "AllocBytes:\tFreeBytes:\tAllocObjs:\tFreeObjs:\tBacktrace:\n");
	for (size_t i = 0; i < ns; i++)
		si[i] = (uint32_t)i;
	ctx.magnitude = 0;   /* skynet-mprof's order */
	qsort(si, ns, sizeof(*si), sample_inuse_cmp);
	for (size_t i = 0; i < ns; i++) {
		const prof_sample *s = &p->samples.v[si[i]];
		const prof_stack *st = &p->stacks.v[s->stack];
		fprintf(out, "%-10llu\t%-9llu\t%-9llu\t%-8llu\t", (unsigned long long)s->c.alloc_bytes,
			(unsigned long long)s->c.free_bytes, (unsigned long long)s->c.alloc_objs,
			(unsigned long long)s->c.free_objs);
		for (uint32_t d = st->depth; d-- > 0;)
			fprintf(out, "0x%llx%s", (unsigned long long)p->frames.v[p->stack_frames.v[st->off + d]].addr,
				d ? " -> " : "");
		fputc('\n', out);
	}
	/* Only when there are some: skynet-mprof's own dumps list as its -info does. */
	size_t nt = prof_truncated_stacks(p);
	if (nt)
		fprintf(out, "TruncatedStacks:\t%zu (cut at the depth limit; their root is [truncated] 0x%llx)\n", nt,
			(unsigned long long)PROF_TRUNCATED_ADDR);
	free(fi);
	free(si);
	return ferror(out) ? -1 : 0;
}

/* Exact, not bytes_fmt's rounding (bytes.h): a rate is a setting the user gives back. */
void report_rate(char *buf, size_t len, uint64_t rate)
{
	bytes_exact(buf, len, rate);
}
