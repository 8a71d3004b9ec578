/* reader.h - one foreign reader under the fuzzer: the target file defines
 * FUZZ_READER (the reader function) before including this. Whatever the
 * reader accepts must also aggregate and report without trouble. */
#ifndef MPROF_FUZZ_READER_H
#define MPROF_FUZZ_READER_H

#include <stdio.h>

#include "core/agg.h"
#include "core/foreign.h"
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
			nodemap_free(&m);
		}
	}
	prof_free(p);
	return 0;
}

#endif
