/* filter.c - regex focus/hide over node names. */
#include "core/filter.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int filter_set(name_filter *f, const char *pattern, char *err, size_t errlen)
{
	if (!pattern || !*pattern) {
		filter_clear(f);
		return 0;
	}
	int flags = REG_EXTENDED | REG_NOSUB | REG_ICASE;
	for (const char *s = pattern; *s; s++)
		if (isupper((unsigned char)*s))
			flags &= ~REG_ICASE;   /* smart case, as less and vim do */
	regex_t re;
	int rc = regcomp(&re, pattern, flags);
	if (rc) {
		char why[128];
		regerror(rc, &re, why, sizeof(why));
		if (err)
			snprintf(err, errlen, "bad regex '%s': %s", pattern, why);
		return -1;
	}
	char *copy = strdup(pattern);
	if (!copy) {
		regfree(&re);
		if (err)
			snprintf(err, errlen, "out of memory");
		return -1;
	}
	filter_clear(f);
	f->pattern = copy;
	f->re = re;
	return 0;
}

void filter_clear(name_filter *f)
{
	if (f->pattern) {
		regfree(&f->re);
		free(f->pattern);
	}
	f->pattern = NULL;
}

int filter_match(const name_filter *f, const char *name)
{
	return !f->pattern || regexec(&f->re, name, 0, NULL, 0) == 0;
}

int filter_hide_map(prof_nodemap *dst, const prof_nodemap *src, const name_filter *hide)
{
	memset(dst, 0, sizeof(*dst));
	uint8_t *drop = calloc(src->nnodes ? src->nnodes : 1, 1);
	dst->off = malloc(((size_t)src->nframes + 1) * sizeof(*dst->off));
	dst->nodes = malloc((src->nodes_len ? src->nodes_len : 1) * sizeof(*dst->nodes));
	/* The same nodes by the same names: those are src's, not copied. */
	dst->name = src->name;
	dst->flags = src->flags;
	dst->strs = src->strs;
	dst->names_borrowed = 1;
	if (!drop || !dst->off || !dst->nodes) {
		free(drop);
		nodemap_free(dst);
		return -1;
	}
	for (uint32_t i = 0; i < src->nnodes; i++)
		drop[i] = filter_active(hide) && filter_match(hide, nodemap_name(src, i));
	size_t n = 0;
	dst->off[0] = 0;
	for (uint32_t f = 0; f < src->nframes; f++) {
		for (uint32_t k = src->off[f]; k < src->off[f + 1]; k++)
			if (!drop[src->nodes[k]])
				dst->nodes[n++] = src->nodes[k];
		dst->off[f + 1] = (uint32_t)n;
	}
	free(drop);
	dst->nframes = src->nframes;
	dst->nnodes = src->nnodes;
	dst->nodes_len = n;
	dst->nodes_cap = src->nodes_len;
	dst->nnodes_cap = src->nnodes;
	dst->strs_len = dst->strs_cap = src->strs_len;
	dst->cur = dst->nframes;
	return 0;
}

static int is_hit(const void *arg, uint32_t node)
{
	return ((const uint8_t *)arg)[node];
}

long filter_ignore(prof *p, const prof_nodemap *m, const name_filter *ign)
{
	uint8_t *hit = calloc(m->nnodes ? m->nnodes : 1, 1);
	if (!hit)
		return -1;
	for (uint32_t n = 0; n < m->nnodes; n++)
		hit[n] = (uint8_t)filter_match(ign, nodemap_name(m, n));
	size_t k = 0;
	long dropped = 0;
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *s = &p->samples.v[i];
		if (nodemap_stack_any(m, p, s->stack, is_hit, hit))
			dropped++;
		else
			p->samples.v[k++] = *s;
	}
	p->samples.len = k;
	free(hit);
	return dropped;
}
