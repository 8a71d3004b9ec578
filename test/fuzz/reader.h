/* reader.h - one foreign reader under the fuzzer: the target file defines
 * FUZZ_READER (the reader function) before including this. Whatever the
 * reader accepts must also aggregate, report and draw as a call graph
 * without trouble. */
#ifndef MPROF_FUZZ_READER_H
#define MPROF_FUZZ_READER_H

#include <stdio.h>

#include "core/agg.h"
#include "core/foreign.h"
#include "core/graph.h"
#include "core/load.h"
#include "core/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static FILE *null;
	if (!null)
		null = fopen("/dev/null", "w");
	prof_error err;
	prof *p = prof_new();
	prof_src src = { .data = data, .len = len, .name = "fuzz" };
	if (p && !FUZZ_READER(p, &src, &err)) {
		prof_nodemap m;
		agg a;
		if (!nodemap_by_address(&m, p)) {
			if (!agg_compute(&a, p, &m)) {
				report_opts o = { .sort = REPORT_CUM, .alloc = 1 };
				report_top(null, &a, &m, &o);
				agg_free(&a);
			}
			for (int k = 0; k < AGG_NMETRIC; k++) {
				graph g;
				graph_opts go = graph_defaults((enum agg_metric)k, k == 0, "fuzz");
				if (!graph_build(&g, p, &m, &go)) {
					graph_write_dot(null, &g, p, &m, &go);
					graph_free(&g);
				}
			}
			nodemap_free(&m);
		}
	}
	prof_free(p);
	return 0;
}

#endif
