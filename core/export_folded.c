/* export_folded.c - folded stacks for flamegraph.pl and friends. */
#include "core/export.h"
#include "core/names.h"

#include <stdlib.h>
#include <string.h>

/* Writes a name with the folded format's separators made harmless. */
static void put_name(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

int export_folded(FILE *out, const prof *p, const prof_nodemap *m, enum agg_metric metric, int stable)
{
	/* Sum the metric per stack first: one line per distinct stack id. */
	int64_t *w = calloc(p->stacks.len ? p->stacks.len : 1, sizeof(*w));
	if (!w)
		return -1;
	for (size_t i = 0; i < p->samples.len; i++) {
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(&p->samples.v[i], v);
		w[p->samples.v[i].stack] += v[metric];
	}
	char buf[32], sb[1024];   /* sb: a frame named as the screen names it, the same in every run */
	for (size_t s = 0; s < p->stacks.len; s++) {
		if (w[s] <= 0)
			continue;
		const prof_stack *st = &p->stacks.v[s];
		const uint32_t *fr = prof_stack_frames(p, (uint32_t)s);
		int first = 1;
		for (uint32_t d = st->depth; d-- > 0;) {
			uint32_t f = fr[d];
			if (m) {   /* a frame's nodes are innermost first: print them reversed */
				for (uint32_t k = m->off[f + 1]; k-- > m->off[f];) {
					if (!first)
						fputc(';', out);
					put_name(out, stable_name(p, nodemap_name(m, m->nodes[k]), stable, sb, sizeof(sb)));
					first = 0;
				}
			} else {
				if (!first)
					fputc(';', out);
				put_name(out, stable_name(p, prof_frame_name(p, f, buf, sizeof(buf)), stable, sb, sizeof(sb)));
				first = 0;
			}
		}
		if (first)
			fputs("[no stack]", out);
		fprintf(out, " %lld\n", (long long)w[s]);
	}
	free(w);
	return ferror(out) ? -1 : 0;
}
