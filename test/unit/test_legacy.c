/* test_legacy.c - the legacy text heap reader's corners that no real dump
 * on this machine shows: pprof's brief memory-map lines (with and without
 * the colon, offsets, build ids, variables, glog prefixes, paths with
 * blanks), the one "<no stack>" frame, and un-sampling of zero and
 * negative pairs as pprof's scaleHeapSample does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/load.h"

static prof *load(const char *text)
{
	prof_error err;
	prof *p = prof_load_mem((const uint8_t *)text, strlen(text), "t.heap", &err);
	if (!p)
		print_error("%s\n", err.msg);
	return p;
}

static const char *str(const prof *p, uint32_t off)
{
	return off == PROF_NONE ? "(none)" : p->strs.v + off;
}

static void test_memory_map_forms(void **state)
{
	(void)state;
	prof *p = load("heap profile: 1: 10 [1: 10] @ heapprofile\n"
		       "1: 10 [1: 10] @ 0x401010\n"
		       "--- Memory map: ---\n"
		       "  source=/srv\n"
		       "  00400000-00402000: $source/bin/app\n"
		       "0x7f0000000000-0x7f0000003000 /lib/libfoo.so (@1000) 3a7f0c11\n"
		       "I1124 10:00:00.000000 42 maps.cc:77] 7f1000000000-7f1000001000: r-xp /lib/libbar.so\n"
		       "7f2000000000-7f2000002000 r-xp 00002000 08:01 77 /opt/My App/lib x.so\n"
		       "7f3000000000-7f3000001000 rw-p 00000000 00:00 0\n");
	assert_non_null(p);
	assert_int_equal(p->modules.len, 4);
	const prof_module *m = p->modules.v;
	assert_string_equal(str(p, m[0].path), "/srv/bin/app");
	assert_true(m[0].base == 0x400000 && m[0].size == 0x2000 && m[0].offset == 0);
	assert_string_equal(str(p, m[1].path), "/lib/libfoo.so");
	assert_true(m[1].base == 0x7f0000000000 && m[1].size == 0x3000 && m[1].offset == 0x1000);
	assert_string_equal(str(p, m[1].build_id), "3a7f0c11");
	assert_string_equal(str(p, m[2].path), "/lib/libbar.so");
	assert_string_equal(str(p, m[2].build_id), "(none)");
	assert_string_equal(str(p, m[3].path), "/opt/My App/lib x.so");
	assert_true(m[3].offset == 0x2000);
	assert_int_equal(p->frames.v[0].module, 0);
	prof_free(p);
}

static void test_nostack_one_frame(void **state)
{
	(void)state;
	prof *p = load("heap profile: 3: 30 [3: 30] @ heapprofile\n"
		       "1: 10 [1: 10] @\n"
		       "1: 10 [1: 10] @ 0x401010\n"
		       "1: 10 [1: 10] @   \n");
	assert_non_null(p);
	assert_int_equal(p->samples.len, 3);
	assert_int_equal(p->frames.len, 2);
	uint32_t a = prof_stack_frames(p, p->samples.v[0].stack)[0];
	uint32_t c = prof_stack_frames(p, p->samples.v[2].stack)[0];
	assert_int_equal(a, c);
	assert_int_equal(p->stacks.v[p->samples.v[0].stack].depth, 1);
	assert_true(prof_frame_is_nostack(p, a));
	assert_false(prof_frame_is_nostack(p, prof_stack_frames(p, p->samples.v[1].stack)[0]));
	assert_string_equal(str(p, p->frames.v[a].name), "<no stack>");
	prof_free(p);
}

/* In use and allocated counts of sample i: inuse = alloc - free. */
static void counts(const prof *p, size_t i, int64_t v[4])
{
	const mp_counts *c = &p->samples.v[i].c;
	v[0] = (int64_t)(c->alloc_objs - c->free_objs);
	v[1] = (int64_t)(c->alloc_bytes - c->free_bytes);
	v[2] = (int64_t)c->alloc_objs;
	v[3] = (int64_t)c->alloc_bytes;
}

static void test_unsampling_edges(void **state)
{
	(void)state;
	int64_t v[4];
	/* Sampled: objects without bytes go (pprof zeroes both); negative in
	 * use scales by its magnitude (2 x 512 B at 4096: x 8.510414, as go tool
	 * pprof -raw shows). */
	prof *p = load("heap profile: 1: 1 [1: 1] @ heap_v2/4096\n"
		       "3: 0 [3: 0] @ 0x1\n"
		       "-2: -1024 [4: 2048] @ 0x2\n");
	assert_non_null(p);
	counts(p, 0, v);
	assert_true(v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 0);
	counts(p, 1, v);
	assert_true(v[0] == -17 && v[1] == -8714 && v[2] == 34 && v[3] == 17429);
	prof_free(p);
	/* Not sampled: as written, zero bytes and all. */
	p = load("heap profile: 1: 1 [1: 1] @ heapprofile\n3: 0 [3: 0] @ 0x1\n");
	assert_non_null(p);
	counts(p, 0, v);
	assert_true(v[0] == 3 && v[1] == 0 && v[2] == 3 && v[3] == 0);
	prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_map_forms),
		cmocka_unit_test(test_nostack_one_frame),
		cmocka_unit_test(test_unsampling_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
