/* test_dumpon.c - the trigger syntax of MPROF_DUMP_ON and --dump-on
 * (attach/shared/dumpon.c): each kind with its sizes and times, several
 * comma-separated, and every malformed form refused with a reason naming
 * the bad part. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "attach/shared/dumpon.h"

static void test_kinds(void **state)
{
	(void)state;
	dumpon_spec sp;
	char why[300];
	assert_int_equal(dumpon_parse("heap:512M,rss:1G,growth:100M/10s,memhigh,heap:80%,rss:4096", &sp, why,
				      sizeof(why)), 0);
	assert_int_equal(sp.n, 6);
	assert_int_equal(sp.t[0].kind, DUMPON_HEAP);
	assert_int_equal(sp.t[0].size, 512ull << 20);
	assert_int_equal(sp.t[1].kind, DUMPON_RSS);
	assert_int_equal(sp.t[1].size, 1ull << 30);
	assert_int_equal(sp.t[2].kind, DUMPON_GROWTH);
	assert_int_equal(sp.t[2].size, 100ull << 20);
	assert_int_equal(sp.t[2].window_ms, 10000);
	assert_int_equal(sp.t[3].kind, DUMPON_MEMHIGH);
	assert_int_equal(sp.t[4].pct, 80);
	assert_int_equal(sp.t[5].size, 4096);
	assert_int_equal(dumpon_parse("growth:1k/500ms", &sp, why, sizeof(why)), 0);
	assert_int_equal(sp.t[0].size, 1024);
	assert_int_equal(sp.t[0].window_ms, 500);
	assert_int_equal(dumpon_parse("growth:1T/2h", &sp, why, sizeof(why)), 0);
	assert_int_equal(sp.t[0].window_ms, 7200000);
	char d[200];
	dumpon_parse("heap:4500K,growth:3M/1s", &sp, why, sizeof(why));
	dumpon_describe(&sp.t[0], d, sizeof(d));
	assert_string_equal(d, "heap in use reaches 4500 KiB");
	dumpon_describe(&sp.t[1], d, sizeof(d));
	assert_string_equal(d, "heap in use grows by 3 MiB within 1000 ms");
}

static void test_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"", "heap", "heap:", "heap:0", "heap:12X", "heap:-1", "heap:1MB", "rss:101%", "heap:0%",
		"growth:1M", "growth:1M/", "growth:1M/10", "growth:1M/10ms", "growth:1M/2d", "growth:50%/1s",
		"memhigh:1", "swap:1G", "heap:1M,", ",heap:1M", "heap:1M,,rss:1G", "HEAP:1M",
		"heap:99999999999999999999", "heap:1,heap:2,heap:3,heap:4,heap:5,heap:6,heap:7,heap:8,heap:9",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		dumpon_spec sp;
		char why[300] = "";
		if (dumpon_parse(bad[i], &sp, why, sizeof(why)) != -1)
			fail_msg("'%s' was taken", bad[i]);
		assert_true(why[0] != 0);
	}
	dumpon_spec sp;
	char why[300];
	dumpon_parse("heap:1M,rss:lots", &sp, why, sizeof(why));
	assert_non_null(strstr(why, "'rss:lots' is none of"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
