/* test_model.c - the model, the v1 and native round trips, aggregation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/agg.h"
#include "core/load.h"
#include "core/report.h"

/* A profile with recursion, depth 1, depth 64 and zero-byte samples. */
static prof *make_profile(void)
{
	prof *p = prof_new();
	char name[64];
	for (int i = 0; i < 70; i++) {
		uint64_t addr = 0x400000 + (uint64_t)i * 0x10;
		uint32_t f = prof_frame_intern(p, addr);
		int n = snprintf(name, sizeof(name), "./app(f%d+0x4) [0x%llx]", i, (unsigned long long)addr);
		p->frames.v[f].name = prof_str(p, name, (size_t)n);
	}
	uint32_t rec[] = { 3, 2, 3, 2, 3, 1, 0 };     /* f3 and f2 recur */
	uint32_t one[] = { 5 };
	uint32_t deep[64];
	for (int i = 0; i < 64; i++)
		deep[i] = (uint32_t)(i + 6);
	uint32_t s0 = prof_stack_add(p, rec, 7);
	uint32_t s1 = prof_stack_add(p, one, 1);
	uint32_t s2 = prof_stack_add(p, deep, 64);
	prof_sample_add(p, s0, 32, 10, 320, 4, 128);
	prof_sample_add(p, s0, 64, 3, 192, 3, 192);  /* same stack, another size, all freed */
	prof_sample_add(p, s1, 0, 7, 0, 0, 0);       /* zero-byte allocations */
	prof_sample_add(p, s2, 1024, 2, 2048, 1, 1024);
	return p;
}

static void assert_same_model(const prof *a, const prof *b)
{
	assert_int_equal(a->samples.len, b->samples.len);
	for (size_t i = 0; i < a->samples.len; i++) {
		const prof_sample *x = &a->samples.v[i], *y = &b->samples.v[i];
		assert_int_equal(x->c.alloc_objs, y->c.alloc_objs);
		assert_int_equal(x->c.alloc_bytes, y->c.alloc_bytes);
		assert_int_equal(x->c.free_objs, y->c.free_objs);
		assert_int_equal(x->c.free_bytes, y->c.free_bytes);
		const prof_stack *sx = &a->stacks.v[x->stack], *sy = &b->stacks.v[y->stack];
		assert_int_equal(sx->depth, sy->depth);
		for (uint32_t d = 0; d < sx->depth; d++) {
			const prof_frame *fx = &a->frames.v[a->stack_frames.v[sx->off + d]];
			const prof_frame *fy = &b->frames.v[b->stack_frames.v[sy->off + d]];
			assert_int_equal(fx->addr, fy->addr);
			const char *nx = prof_strat(a, fx->name), *ny = prof_strat(b, fy->name);
			assert_int_equal(nx == NULL, ny == NULL);
			if (nx)
				assert_string_equal(nx, ny);
		}
	}
}

static prof *roundtrip(const prof *p, enum prof_format f)
{
	char path[] = "/tmp/mprof-unit-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	prof_error err = { { 0 } };
	int r = f == PROF_FMT_V1 ? pro_v1_write(p, fd, &err) : pro_native_write(p, fd, &err);
	assert_int_equal(r, 0);
	close(fd);
	prof *q = prof_load(path, &err);
	unlink(path);
	if (!q)
		fail_msg("%s", err.msg);
	assert_int_equal(q->meta.format, f);
	return q;
}

static void test_v1_roundtrip(void **state)
{
	(void)state;
	prof *p = make_profile();
	prof *q = roundtrip(p, PROF_FMT_V1);
	assert_same_model(p, q);
	assert_int_equal(q->frames.len, 70);
	prof_free(p);
	prof_free(q);
}

static void test_native_roundtrip(void **state)
{
	(void)state;
	prof *p = make_profile();
	uint32_t m = prof_module_add(p, "/usr/bin/app", "abcdef0123", 0x400000, 0x1000, 0);
	p->frames.v[0].module = m;
	p->frames.v[1].name = PROF_NONE;   /* a frame without a name survives as such */
	p->meta.pid = 4242;
	p->meta.time = 1700000000;
	p->meta.cmdline = prof_str(p, "app --serve", 11);
	p->meta.unknown_frees = 5;
	p->samples.v[0].c.alloc_bytes = 1ull << 40;   /* 64-bit counters survive */
	prof *q = roundtrip(p, PROF_FMT_NATIVE);
	assert_same_model(p, q);
	assert_int_equal(q->modules.len, 1);
	assert_string_equal(prof_strat(q, q->modules.v[0].path), "/usr/bin/app");
	assert_string_equal(prof_strat(q, q->modules.v[0].build_id), "abcdef0123");
	assert_int_equal(q->frames.v[0].module, 0);
	assert_int_equal(q->frames.v[1].name, PROF_NONE);
	assert_int_equal(q->meta.pid, 4242);
	assert_int_equal(q->meta.time, 1700000000);
	assert_string_equal(prof_strat(q, q->meta.cmdline), "app --serve");
	assert_int_equal(q->meta.unknown_frees, 5);
	prof_free(p);
	prof_free(q);
}

static void test_v1_wraps_and_truncates(void **state)
{
	(void)state;
	prof *p = prof_new();
	char longname[200];
	memset(longname, 'x', sizeof(longname));
	uint32_t f = prof_frame_intern(p, 0x1234);
	p->frames.v[f].name = prof_str(p, longname, sizeof(longname));
	uint32_t s = prof_stack_add(p, &f, 1);
	prof_sample_add(p, s, 8, 1, (1ull << 32) + 8, 0, 0);
	prof *q = roundtrip(p, PROF_FMT_V1);
	assert_int_equal(strlen(prof_strat(q, q->frames.v[0].name)), PRO_V1_NAME_MAX);
	assert_int_equal(q->samples.v[0].c.alloc_bytes, 8);   /* 32-bit, as the original */
	prof_free(p);
	prof_free(q);
}

static void test_agg_counts_recursion_once(void **state)
{
	(void)state;
	prof *p = make_profile();
	prof_nodemap m;
	agg a;
	assert_int_equal(nodemap_by_address(&m, p), 0);
	assert_int_equal(agg_compute(&a, p, &m), 0);
	/* Sample 0: inuse 6 objs / 192 B; sample 1 fully freed; sample 3: 1/1024. */
	assert_int_equal(a.total[AGG_INUSE_BYTES], 192 + 1024);
	assert_int_equal(a.total[AGG_ALLOC_BYTES], 320 + 192 + 2048);
	assert_int_equal(a.total[AGG_ALLOC_OBJS], 10 + 3 + 7 + 2);
	/* f3 is the leaf and recurs: flat once per sample, cum once per stack. */
	assert_int_equal(a.v[3].flat[AGG_INUSE_BYTES], 192);
	assert_int_equal(a.v[3].cum[AGG_INUSE_BYTES], 192);
	assert_int_equal(a.v[3].cum[AGG_ALLOC_BYTES], 512);
	assert_int_equal(a.v[2].cum[AGG_ALLOC_OBJS], 13);
	assert_int_equal(a.v[2].flat[AGG_ALLOC_OBJS], 0);
	assert_int_equal(a.v[0].cum[AGG_ALLOC_BYTES], 512);
	/* Zero-byte allocations: counted as objects, present in both modes. */
	assert_int_equal(a.v[5].flat[AGG_INUSE_OBJS], 7);
	assert_true(a.flags[5] & AGG_LEAF_INUSE);
	/* Depth 64: the root sees it, every frame once. */
	assert_int_equal(a.v[69].cum[AGG_INUSE_BYTES], 1024);
	assert_int_equal(a.v[6].flat[AGG_INUSE_BYTES], 1024);
	assert_false(a.flags[69] & AGG_LEAF_ALLOC);
	/* A node only in fully freed samples is absent from in-use views. */
	prof_sample_add(p, prof_stack_add(p, (uint32_t[]){ 4 }, 1), 8, 2, 16, 2, 16);
	agg_free(&a);
	assert_int_equal(agg_compute(&a, p, &m), 0);
	assert_false(a.flags[4] & AGG_SEEN_INUSE);
	assert_true(a.flags[4] & AGG_SEEN_ALLOC);
	agg_free(&a);
	nodemap_free(&m);
	prof_free(p);
}

static void test_report_order(void **state)
{
	(void)state;
	prof *p = make_profile();
	prof_nodemap m;
	agg a;
	nodemap_by_address(&m, p);
	agg_compute(&a, p, &m);
	report_opts o = { .sort = REPORT_FLAT };
	uint32_t *rows;
	long n = report_rows(&a, &m, &o, &rows);
	/* Leaves first by flat bytes: f6 (1024), f3 (192), f5 (0 B, 7 objects). */
	assert_true(n > 3);
	assert_int_equal(rows[0], 6);
	assert_int_equal(rows[1], 3);
	assert_int_equal(rows[2], 5);
	free(rows);
	o.objects = 1;
	n = report_rows(&a, &m, &o, &rows);
	assert_int_equal(rows[0], 5);   /* 7 objects beats 6 and 1 */
	free(rows);
	agg_free(&a);
	nodemap_free(&m);
	prof_free(p);
}

static void test_load_errors(void **state)
{
	(void)state;
	prof_error err;
	uint8_t buf[64] = { 0, 0, 0, 60 };
	assert_null(prof_load_mem(buf, 0, "e.pro", &err));
	assert_string_equal(err.msg, "e.pro: offset 0: empty file");
	assert_null(prof_load_mem(buf, 10, "t.pro", &err));
	assert_string_equal(err.msg, "t.pro: offset 0: length field says 64 bytes, the file has 10");
	/* Native: truncated after the header, then a section past the end. */
	uint8_t nat[40] = "MPROFNAT\1\0\0\0\0\0\0\0";
	assert_null(prof_load_mem(nat, 16, "n.pro", &err));
	assert_string_equal(err.msg, "n.pro: offset 16: truncated (no end section)");
	memcpy(nat + 16, "SMPL\0\0\0\0\xff\0\0\0\0\0\0\0", 16);
	assert_null(prof_load_mem(nat, 40, "n.pro", &err));
	assert_string_equal(err.msg, "n.pro: offset 16: section of 255 bytes runs past the end");
	nat[8] = 9;
	assert_null(prof_load_mem(nat, 40, "n.pro", &err));
	assert_string_equal(err.msg, "n.pro: offset 8: native format version 9, this mprof reads version 1");
}

static void test_native_rejects_bad_indices(void **state)
{
	(void)state;
	prof *p = make_profile();
	char path[] = "/tmp/mprof-unit-XXXXXX";
	int fd = mkstemp(path);
	prof_error err;
	assert_int_equal(pro_native_write(p, fd, &err), 0);
	close(fd);
	FILE *f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	rewind(f);
	uint8_t *d = malloc((size_t)len);
	assert_int_equal(fread(d, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	unlink(path);
	/* Point the first stack's first frame index far out of range. */
	uint8_t *stks = memmem(d, (size_t)len, "STKS", 4);
	assert_non_null(stks);
	memcpy(stks + 16 + 4 + 4, "\xff\xff\x00\x00", 4);
	assert_null(prof_load_mem(d, (size_t)len, "x.pro", &err));
	assert_non_null(strstr(err.msg, "corrupt section 'STKS'"));
	/* Every truncation of a valid file is refused, never crashes. */
	memcpy(stks + 16 + 4 + 4, "\x03\x00\x00\x00", 4);
	prof *ok = prof_load_mem(d, (size_t)len, "x.pro", &err);
	assert_non_null(ok);
	prof_free(ok);
	for (long cut = 0; cut < len; cut += 7)
		assert_null(prof_load_mem(d, (size_t)cut, "x.pro", &err));
	free(d);
	prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v1_roundtrip),
		cmocka_unit_test(test_native_roundtrip),
		cmocka_unit_test(test_v1_wraps_and_truncates),
		cmocka_unit_test(test_agg_counts_recursion_once),
		cmocka_unit_test(test_report_order),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_native_rejects_bad_indices),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
