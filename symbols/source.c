/* source.c - pprof `list` for one source file: bytes and objects per line,
 * and where that file is on this machine (--source-dir). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/sym_int.h"

long sym_source_lines(sym *s, const prof *p, const char *file, sym_line_vals **vals)
{
	*vals = NULL;
	long nlines = 0;
	for (uint32_t f = 0; f < p->frames.len; f++) {
		const sym_info *si = sym_frame(s, f);
		if (!si)
			return -1;
		for (uint32_t k = 0; k < si->nchain; k++)
			if (si->chain[k].file && si->chain[k].line > nlines && !strcmp(si->chain[k].file, file))
				nlines = si->chain[k].line;
	}
	if (!nlines)
		return 0;
	sym_line_vals *v = calloc((size_t)nlines + 1, sizeof(*v));
	uint32_t *stamp = calloc((size_t)nlines + 1, sizeof(*stamp));
	if (!v || !stamp) {
		free(v);
		free(stamp);
		return -1;
	}
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *sa = &p->samples.v[i];
		int64_t mv[AGG_NMETRIC];
		agg_sample_vals(sa, mv);
		const uint32_t *fr = prof_stack_frames(p, sa->stack);
		uint32_t depth = p->stacks.v[sa->stack].depth;
		for (uint32_t j = 0; j < depth; j++) {
			const sym_info *si = sym_frame(s, fr[j]);
			for (uint32_t k = 0; si && k < si->nchain; k++) {
				const sym_loc *l = &si->chain[k];
				if (!l->file || l->line <= 0 || strcmp(l->file, file))
					continue;
				sym_line_vals *lv = &v[l->line];
				if (j == 0 && k == 0)
					for (int m = 0; m < AGG_NMETRIC; m++)
						agg_add(&lv->flat[m], mv[m]);
				if (stamp[l->line] != i + 1) { /* once per stack */
					stamp[l->line] = (uint32_t)(i + 1);
					for (int m = 0; m < AGG_NMETRIC; m++)
						agg_add(&lv->cum[m], mv[m]);
				}
			}
		}
	}
	free(stamp);
	*vals = v;
	return nlines;
}

int sym_source_map(sym *s, const prof *p, const char *file, prof_nodemap *m)
{
	if (nodemap_begin(m, (uint32_t)p->frames.len))
		return -1;
	char name[16];
	for (uint32_t f = 0; f < p->frames.len; f++) {
		const sym_info *si = sym_frame(s, f);
		if (!si)
			goto fail;
		for (uint32_t k = 0; k < si->nchain; k++) {
			const sym_loc *l = &si->chain[k];
			if (!l->file || l->line <= 0 || strcmp(l->file, file))
				continue;
			snprintf(name, sizeof(name), "%d", l->line);
			uint32_t node = nodemap_node(m, name, 0);
			if (node == UINT32_MAX || nodemap_push(m, node))
				goto fail;
		}
		nodemap_end_frame(m);
	}
	return 0;
fail:
	nodemap_free(m);
	return -1;
}

const char *sym_source_path(const sym *s, const char *file, char *buf, size_t len)
{
	if (!file || !*file)
		return NULL;
	if (!access(file, R_OK)) {
		snprintf(buf, len, "%s", file);
		return buf;
	}
	for (size_t i = 0; s->srcdirs && s->srcdirs[i]; i++) {
		/* The whole path under the dir, then shorter and shorter tails. */
		for (const char *t = file; t; t = strchr(t + 1, '/')) {
			const char *tail = t;
			while (*tail == '/')
				tail++;
			if (!*tail)
				break;
			snprintf(buf, len, "%s/%s", s->srcdirs[i], tail);
			if (!access(buf, R_OK))
				return buf;
		}
	}
	return NULL;
}
