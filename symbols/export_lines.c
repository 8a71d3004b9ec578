/* export_lines.c - a profile frame's source for pprof exports
 * (core/export.h): its inline chain as the symbols resolve it. */
#include "symbols/sym.h"

size_t sym_export_lines(void *ctx, uint32_t frame, export_line *out, size_t cap)
{
	sym *s = ctx;
	const sym_info *si = sym_frame(s, frame);
	if (!si || si->source == SYM_SRC_RAW)
		return 0;
	size_t n = 0;
	for (uint32_t k = 0; k < si->nchain && n < cap; k++) {
		const sym_loc *l = &si->chain[k];
		if (!l->func && !l->file)
			continue;
		out[n++] = (export_line){ l->func, l->file, l->line };
	}
	return n;
}
