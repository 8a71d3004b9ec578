/* nodeloc.c - a node's source location: the chain level of its heaviest
 * frame (the metric on screen, of the samples through the frame). */
#include "symbols/nodeloc.h"

#include <stdlib.h>

/* What each frame carries of metric, once per stack (a frame recurs in
 * recursive stacks). NULL on ENOMEM. */
static int64_t *frame_weights(const prof *p, enum agg_metric metric)
{
	size_t nf = p->frames.len ? p->frames.len : 1;
	int64_t *w = calloc(nf, sizeof(*w));
	uint32_t *stamp = calloc(nf, sizeof(*stamp));
	if (!w || !stamp) {
		free(w);
		free(stamp);
		return NULL;
	}
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *sa = &p->samples.v[i];
		const uint32_t *fr = prof_stack_frames(p, sa->stack);
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(sa, v);
		for (uint32_t d = 0; d < p->stacks.v[sa->stack].depth; d++)
			if (fr[d] < p->frames.len && stamp[fr[d]] != (uint32_t)i + 1) {
				stamp[fr[d]] = (uint32_t)i + 1;
				agg_add(&w[fr[d]], v[metric]);
			}
	}
	free(stamp);
	return w;
}

int sym_node_locs(sym_node_loc **out, const prof *p, const prof_nodemap *m, sym *s, enum agg_metric metric)
{
	size_t nn = m->nnodes ? m->nnodes : 1;
	sym_node_loc *loc = malloc(nn * sizeof(*loc));
	uint64_t *best = malloc(nn * sizeof(*best));
	int64_t *w = frame_weights(p, metric);
	if (!loc || !w || !best)
		goto oom;
	for (size_t i = 0; i < m->nnodes; i++)
		loc[i] = (sym_node_loc){ UINT32_MAX, 0 };
	for (uint32_t f = 0; f < p->frames.len && f < m->nframes; f++) {
		const sym_info *si = NULL;
		for (uint32_t j = m->off[f]; j < m->off[f + 1]; j++) {
			uint32_t k = j - m->off[f], node = m->nodes[j];
			if (!si && !(si = sym_frame(s, f)))
				goto oom;
			if (k >= si->nchain || !si->chain[k].file || node >= m->nnodes)
				continue;
			/* Frames go in ascending order: a tie keeps the lower one. */
			if (loc[node].frame == UINT32_MAX || agg_magnitude(w[f]) > best[node]) {
				best[node] = agg_magnitude(w[f]);
				loc[node] = (sym_node_loc){ f, k };
			}
		}
	}
	free(w);
	free(best);
	*out = loc;
	return 0;
oom:
	free(loc);
	free(w);
	free(best);
	return -1;
}

uint32_t sym_node_level(const prof_nodemap *m, uint32_t frame, uint32_t node)
{
	if (frame >= m->nframes)
		return UINT32_MAX;
	for (uint32_t j = m->off[frame]; j < m->off[frame + 1]; j++)
		if (m->nodes[j] == node)
			return j - m->off[frame];
	return UINT32_MAX;
}
