/* test_agg.c - agg_hide (the hide filter's fast path) against the full
 * aggregation over the same hidden map: random profiles with recursion,
 * inline chains and empty stacks, random hidden sets, and a real dump with
 * the TUI's own regex filter. Every value and flag must be equal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg.h"
#include "core/filter.h"
#include "core/load.h"
#include "test/unit/helpers/randprof.h"


static void expect_same(const agg *x, const agg *y)
{
	assert_int_equal(x->nnodes, y->nnodes);
	assert_memory_equal(x->total, y->total, sizeof(x->total));
	assert_memory_equal(x->nsamples, y->nsamples, sizeof(x->nsamples));
	for (uint32_t n = 0; n < x->nnodes; n++) {
		assert_memory_equal(x->v[n].flat, y->v[n].flat, sizeof(x->v[n].flat));
		assert_memory_equal(x->v[n].cum, y->v[n].cum, sizeof(x->v[n].cum));
		assert_int_equal(x->flags[n], y->flags[n]);
	}
}

/* Hides the nodes whose names match re, as the TUI's hide filter does. */
static void check_hide(const prof *p, const prof_nodemap *m, const char *re)
{
	name_filter f;
	memset(&f, 0, sizeof(f));
	char err[200];
	assert_int_equal(filter_set(&f, re, err, sizeof(err)), 0);
	agg base, fast, full;
	prof_nodemap hm;
	assert_int_equal(agg_compute(&base, p, m), 0);
	assert_int_equal(filter_hide_map(&hm, m, &f), 0);
	assert_int_equal(agg_compute(&full, p, &hm), 0);
	assert_int_equal(agg_hide(&fast, &base, p, &hm), 0);
	expect_same(&fast, &full);
	agg_free(&base);
	agg_free(&fast);
	agg_free(&full);
	nodemap_free(&hm);
	filter_clear(&f);
}

/* 40 frames over 12 names n0..n11; a frame is 1-3 nodes (an inline chain,
 * names may repeat); stacks of depth 0-12 with recursion; some samples
 * freed entirely. */
static void random_profiles(void **state)
{
	(void)state;
	for (int seed = 1; seed <= 60; seed++) {
		randprof_seed(0x9e3779b97f4a7c15ULL * (uint64_t)seed);
		prof *p = randprof_new(300, 12, 0);
		assert_non_null(p);
		prof_nodemap m;
		assert_int_equal(randprof_map(&m), 0);
		char re[64];
		int len = 0;
		re[0] = 0;
		for (int i = 0; i < 12; i++)   /* about a third of the names */
			if (randprof_rnd(3) == 0)
				len += snprintf(re + len, sizeof(re) - (size_t)len, "%s^n%d$", len ? "|" : "", i);
		check_hide(p, &m, len ? re : "^n0$");
		check_hide(p, &m, "n");   /* everything hidden */
		nodemap_free(&m);
		prof_free(p);
	}
}

/* A real skynet dump at address granularity: hide libc and one module. */
static void real_dump(void **state)
{
	(void)state;
	prof_error err;
	prof *p = prof_load("test/data/test_mem.pro", &err);
	assert_non_null(p);
	prof_nodemap m;
	assert_int_equal(nodemap_by_address(&m, p), 0);
	check_hide(p, &m, "libc");
	check_hide(p, &m, "skynet\\.so");
	check_hide(p, &m, "lua");
	nodemap_free(&m);
	prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_profiles),
		cmocka_unit_test(real_dump),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
