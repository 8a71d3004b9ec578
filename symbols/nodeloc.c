/* nodeloc.c - a node's source location: the chain level of its heaviest
 * frame (the metric on screen, of the samples through the frame). */
#include "symbols/nodeloc.h"

#include <stdlib.h>

/* What each frame carries of each metric, once per stack (a frame recurs
 * in recursive stacks). NULL on ENOMEM. */
static int64_t (*frame_weights(const prof *p))[AGG_NMETRIC]
{
	size_t nf = p->frames.len ? p->frames.len : 1;
	int64_t (*w)[AGG_NMETRIC] = calloc(nf, sizeof(*w));
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
				for (int k = 0; k < AGG_NMETRIC; k++)
					agg_add(&w[fr[d]][k], v[k]);
			}
	}
	free(stamp);
	return w;
}

int sym_node_locs(sym_node_loc (**out)[AGG_NMETRIC], const prof *p, const prof_nodemap *m, sym *s)
{
	size_t nn = m->nnodes ? m->nnodes : 1;
	sym_node_loc (*loc)[AGG_NMETRIC] = malloc(nn * sizeof(*loc));
	uint64_t (*best)[AGG_NMETRIC] = malloc(nn * sizeof(*best));
	int64_t (*w)[AGG_NMETRIC] = frame_weights(p);
	if (!loc || !w || !best)
		goto oom;
	for (size_t i = 0; i < m->nnodes; i++)
		for (int k = 0; k < AGG_NMETRIC; k++)
			loc[i][k] = (sym_node_loc){ UINT32_MAX, 0 };
	for (uint32_t f = 0; f < p->frames.len && f < m->nframes; f++) {
		const sym_info *si = NULL;
		for (uint32_t j = m->off[f]; j < m->off[f + 1]; j++) {
			uint32_t level = j - m->off[f], node = m->nodes[j];
			if (!si && !(si = sym_frame(s, f)))
				goto oom;
			if (level >= si->nchain || !si->chain[level].file || node >= m->nnodes)
				continue;
			/* Frames go in ascending order: a tie keeps the lower one. */
			for (int k = 0; k < AGG_NMETRIC; k++)
				if (loc[node][k].frame == UINT32_MAX || agg_magnitude(w[f][k]) > best[node][k]) {
					best[node][k] = agg_magnitude(w[f][k]);
					loc[node][k] = (sym_node_loc){ f, level };
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
