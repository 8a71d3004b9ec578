/* test_weight.c - the weight of a sampled allocation (core/heap_scale.h
 * heap_weight_at, the hook's counters) and the rate's words and parsing
 * (attach/live/sample_ctl.c): unbiased over the addresses of blocks where 1/p
 * is small (rounding to nearest would count a 100 KB block at 64 KiB as 1
 * object for 1.28), the same weight for the same block, exact when every
 * allocation is recorded, saturated on hostile values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "attach/live/sample_ctl.h"
#include "core/heap_scale.h"

/* Mean weight over n block addresses 16 bytes apart. */
static void mean_weight(uint64_t size, uint64_t rate, int n, double *objs, double *bytes)
{
	double so = 0, sb = 0;
	for (int i = 0; i < n; i++) {
		uint64_t o, b;
		heap_weight_at(size, rate, heap_weight_frac(0x7f0000001000ull + 16 * (uint64_t)i), &o, &b);
		so += (double)o;
		sb += (double)b;
	}
	*objs = so / n;
	*bytes = sb / n;
}

static void test_unbiased(void **state)
{
	(void)state;
	static const uint64_t sizes[] = { 1, 16, 64, 1000, 65536, 100000, 262144, 1 << 22 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		double p = -expm1(-(double)sizes[i] / 65536.0), o, b;
		mean_weight(sizes[i], 65536, 200000, &o, &b);
		/* Each weight is 1/p rounded down after a frac in [0, 1): the mean
		 * is 1/p within the spread of 200,000 fracs. */
		if (fabs(o - 1 / p) > 0.01 || fabs(b - (double)sizes[i] / p) > 0.01 + 1e-5 * (double)sizes[i] / p)
			fail_msg("size %llu: mean weight %.4f objects %.2f bytes, want %.4f and %.2f",
				 (unsigned long long)sizes[i], o, b, 1 / p, (double)sizes[i] / p);
	}
	/* Rounding to nearest, for contrast: 100 KB at 64 KiB counts 1, not 1.28. */
	uint64_t o, b;
	heap_weight(100000, 65536, &o, &b);
	assert_int_equal(o, 1);
}

static void test_same_block_same_weight(void **state)
{
	(void)state;
	uint64_t o1, b1, o2, b2;
	heap_weight_at(100000, 65536, heap_weight_frac(0x5555aaaa0010ull), &o1, &b1);
	heap_weight_at(100000, 65536, heap_weight_frac(0x5555aaaa0010ull), &o2, &b2);
	assert_int_equal(o1, o2);
	assert_int_equal(b1, b2);
	for (uint64_t k = 0; k < 100000; k++) {
		double f = heap_weight_frac(k * 16);
		if (!(f >= 0 && f < 1))
			fail_msg("frac %f out of [0, 1)", f);
	}
}

static void test_every_allocation(void **state)
{
	(void)state;
	uint64_t o, b;
	heap_weight_at(12345, 0, 0.99, &o, &b);
	assert_int_equal(o, 1);
	assert_int_equal(b, 12345);
	/* Rate 1: blocks of 48 bytes and more weigh 1 and their size exactly. */
	for (uint64_t s = 48; s < 5000; s += 7) {
		heap_weight_at(s, 1, 0.999999, &o, &b);
		assert_int_equal(o, 1);
		assert_int_equal(b, s);
	}
	/* Hostile: a huge rate saturates instead of overflowing. */
	heap_weight_at(1, UINT64_MAX, 0.5, &o, &b);
	assert_int_equal(o, UINT64_MAX);
}

static void test_rate_words(void **state)
{
	(void)state;
	uint64_t r;
	assert_int_equal(sample_ctl_parse("524288", &r), 0);
	assert_int_equal(r, 524288);
	assert_int_equal(sample_ctl_parse("512K", &r), 0);
	assert_int_equal(r, 524288);
	assert_int_equal(sample_ctl_parse("1M", &r), 0);
	assert_int_equal(r, 1 << 20);
	assert_int_equal(sample_ctl_parse("1024G", &r), 0);
	assert_int_equal(r, SEG_SAMPLE_MAX);
	assert_int_equal(sample_ctl_parse("all", &r), 0);
	assert_int_equal(r, 0);
	assert_int_equal(sample_ctl_parse("off", &r), 0);
	assert_int_equal(r, SEG_SAMPLE_OFF);
	static const char *const bad[] = { "", "-1", "12X", "1KB", "1025G", "99999999999999999999", "off1", " 5" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!sample_ctl_parse(bad[i], &r))
			fail_msg("'%s' parsed as %llu", bad[i], (unsigned long long)r);
	seg_header h;
	memset(&h, 0, sizeof(h));
	char buf[200];
	h.sample_rate = 524288;
	sample_ctl_text(&h, buf, sizeof(buf));
	assert_string_equal(buf, "1 sample per 512 KiB");
	assert_true(seg_sample_scale(&h) == 524288.0);
	h.sample_rate = SEG_SAMPLE_OFF;
	h.sample.last = 65536;
	h.sample.changes = 2;
	sample_ctl_text(&h, buf, sizeof(buf));
	assert_string_equal(buf, "sampling off (new allocations not recorded; earlier ones at 1 per 64 KiB), rate changed 2 times");
	assert_true(seg_sample_scale(&h) == 65536.0);
	h.sample_rate = 0;
	h.sample.changes = 0;
	sample_ctl_text(&h, buf, sizeof(buf));
	assert_string_equal(buf, "every allocation");
	assert_true(seg_sample_scale(&h) == 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unbiased),
		cmocka_unit_test(test_same_block_same_weight),
		cmocka_unit_test(test_every_allocation),
		cmocka_unit_test(test_rate_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
