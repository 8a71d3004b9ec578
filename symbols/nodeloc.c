/* nodeloc.c - a node's source location: the chain level of its heaviest
 * frame (alloc bytes of the samples through the frame). */
#include "symbols/nodeloc.h"

#include <stdlib.h>

int sym_node_locs(sym_node_loc **out, const prof *p, const prof_nodemap *m, sym *s)
{
	size_t nn = m->nnodes ? m->nnodes : 1, nf = p->frames.len ? p->frames.len : 1;
	sym_node_loc *loc = malloc(nn * sizeof(*loc));
	int64_t *w = calloc(nf, sizeof(*w)), *best = malloc(nn * sizeof(*best));
	if (!loc || !w || !best) {
		free(loc);
		free(w);
		free(best);
		return -1;
	}
	for (size_t i = 0; i < m->nnodes; i++) {
		loc[i] = (sym_node_loc){ UINT32_MAX, 0 };
		best[i] = -1;
	}
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *sa = &p->samples.v[i];
		const uint32_t *fr = prof_stack_frames(p, sa->stack);
		for (uint32_t d = 0; d < p->stacks.v[sa->stack].depth; d++)
			if (fr[d] < nf)
				w[fr[d]] += (int64_t)sa->c.alloc_bytes;
	}
	for (uint32_t f = 0; f < p->frames.len && f < m->nframes; f++) {
		const sym_info *si = sym_frame(s, f);
		if (!si)
			goto oom;
		for (uint32_t j = m->off[f]; j < m->off[f + 1]; j++) {
			uint32_t k = j - m->off[f], node = m->nodes[j];
			if (k >= si->nchain || !si->chain[k].file || node >= m->nnodes)
				continue;
			if (w[f] > best[node]) {
				best[node] = w[f];
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
