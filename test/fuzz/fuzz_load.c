/* fuzz_load - any bytes through format detection, every reader, the
 * aggregation and both reports. */
// FUZZ_SEEDS: test/data/*.pro test/data/*/*.heap test/data/go/*/heap* test/data/folded/*
#include <stdio.h>

#include "core/agg.h"
#include "core/load.h"
#include "core/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static FILE *null;
	if (!null)
		null = fopen("/dev/null", "w");
	prof_error err;
	prof *p = prof_load_mem(data, len, "fuzz", &err);
	if (!p)
		return 0;
	prof_nodemap m;
	agg a;
	if (!nodemap_by_address(&m, p)) {
		if (!agg_compute(&a, p, &m)) {
			report_opts o = { .sort = REPORT_FLAT };
			report_top(null, &a, &m, &o);
			o.sort = REPORT_CUM;
			o.alloc = 1;
			o.tsv = 1;
			report_top(null, &a, &m, &o);
			agg_free(&a);
		}
		nodemap_free(&m);
	}
	report_info(null, p);
	prof_free(p);
	return 0;
}
