/* export_lines.c - a profile frame's source for pprof exports
 * (core/export.h): its inline chain as the symbols resolve it. */
#include "symbols/sym.h"

size_t sym_info_lines(const sym_info *si, export_line *out, size_t cap)
{
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

size_t sym_export_lines(void *ctx, uint32_t frame, export_line *out, size_t cap)
{
	return sym_info_lines(sym_frame(ctx, frame), out, cap);
}
