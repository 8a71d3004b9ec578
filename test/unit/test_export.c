/* test_export.c - pprof export round trip (modules with build ids, inline
 * chains from a node map, negative deltas) and diff keys/merging. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/agg.h"
#include "core/diff.h"
#include "core/export.h"
#include "core/load.h"

/* Two modules; a leak stack main -> work -> alloc_site in app, and a libc frame. */
static prof *make(uint64_t app_base, uint64_t leaked)
{
	prof *p = prof_new();
	prof_module_add(p, "/opt/app/bin/app", "0123456789abcdef0123", app_base, 0x10000, 0);
	prof_module_add(p, "/lib/libc.so.6", "fedcba9876543210", 0x7f0000000000, 0x200000, 0);
	uint64_t addrs[] = { app_base + 0x1234, app_base + 0x2000, app_base + 0x3000, 0x7f0000001000 };
	uint32_t fr[4];
	for (int i = 0; i < 4; i++) {
		fr[i] = prof_frame_intern(p, addrs[i]);
		p->frames.v[fr[i]].module = i < 3 ? 0 : 1;
	}
	uint32_t s0 = prof_stack_add(p, fr, 3);
	uint32_t s1 = prof_stack_add(p, (uint32_t[]){ fr[3], fr[1], fr[2] }, 3);
	prof_sample_add(p, s0, 64, leaked + 5, (leaked + 5) * 64, 5, 5 * 64);
	prof_sample_add(p, s1, 16, 10, 160, 10, 160);
	return p;
}


static void test_pprof_round_trip(void **state)
{
	(void)state;
	prof *p = make(0x555500000000, 3);
	/* A node map with an inline chain on the leaf: inner, outer. */
	prof_nodemap m;
	assert_int_equal(nodemap_begin(&m, (uint32_t)p->frames.len), 0);
	const char *names[] = { "inner_inlined", "alloc_site", "work", "main", "malloc" };
	for (uint32_t f = 0; f < p->frames.len; f++) {
		if (f == 0)
			nodemap_push(&m, nodemap_node(&m, names[0], AGG_NODE_INLINE));
		nodemap_push(&m, nodemap_node(&m, names[f + 1], 0));
		nodemap_end_frame(&m);
	}
	char tmpl[] = "/tmp/mprof-test-export.XXXXXX";
	int fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	prof_error err;
	assert_int_equal(export_pprof(fd, p, &m, NULL, &err), 0);
	close(fd);
	prof *q = prof_load(tmpl, &err);
	unlink(tmpl);
	assert_non_null(q);
	assert_int_equal(q->meta.format, PROF_FMT_PPROF);
	assert_int_equal(q->modules.len, 2);
	assert_string_equal(q->strs.v + q->modules.v[0].path, "/opt/app/bin/app");
	assert_string_equal(q->strs.v + q->modules.v[0].build_id, "0123456789abcdef0123");
	assert_string_equal(q->strs.v + q->modules.v[1].build_id, "fedcba9876543210");
	assert_int_equal(q->modules.v[0].base, 0x555500000000);
	assert_int_equal(q->modules.v[0].size, 0x10000);
	/* The leaf location became two frames: the inlined function first. */
	assert_int_equal(q->samples.len, 2);
	const prof_stack *st = &q->stacks.v[q->samples.v[0].stack];
	assert_int_equal(st->depth, 4);
	const uint32_t *fr = prof_stack_frames(q, q->samples.v[0].stack);
	char b[32];
	assert_string_equal(prof_frame_name(q, fr[0], b, sizeof(b)), "inner_inlined");
	assert_string_equal(prof_frame_name(q, fr[1], b, sizeof(b)), "alloc_site");
	assert_string_equal(prof_frame_name(q, fr[3], b, sizeof(b)), "main");
	assert_int_equal(q->frames.v[fr[0]].addr, 0x555500001234);
	assert_int_equal(q->frames.v[fr[0]].module, 0);
	/* Values: inuse = 3 objects, 192 B; alloc 8 / 512; size label kept. */
	int64_t v[AGG_NMETRIC];
	agg_sample_vals(&q->samples.v[0], v);
	assert_int_equal(v[AGG_INUSE_OBJS], 3);
	assert_int_equal(v[AGG_INUSE_BYTES], 192);
	assert_int_equal(v[AGG_ALLOC_OBJS], 8);
	assert_int_equal(v[AGG_ALLOC_BYTES], 512);
	assert_int_equal(q->samples.v[0].size, 64);
	nodemap_free(&m);
	prof_free(p);
	prof_free(q);
}

static void test_diff_across_aslr(void **state)
{
	(void)state;
	prof *base = make(0x555500000000, 3), *cur = make(0x563400000000, 10);
	prof_error err;
	prof *d = diff_build(base, cur, &err);
	assert_non_null(d);
	char kb[64];
	assert_string_equal(diff_frame_key(cur, 0, kb, sizeof(kb)), "app+0x1234");
	/* Same frames (module + offset), so no frame was added, and the
	 * fully freed sample cancelled out. */
	assert_int_equal(d->frames.len, cur->frames.len);
	assert_int_equal(d->samples.len, 1);
	int64_t v[AGG_NMETRIC];
	agg_sample_vals(&d->samples.v[0], v);
	assert_int_equal(v[AGG_INUSE_OBJS], 7);
	assert_int_equal(v[AGG_INUSE_BYTES], 7 * 64);
	assert_int_equal(v[AGG_ALLOC_OBJS], 7);
	/* Reversed, the deltas are negative, and pprof carries them. */
	prof *r = diff_build(cur, base, &err);
	agg_sample_vals(&r->samples.v[0], v);
	assert_int_equal(v[AGG_INUSE_BYTES], -7 * 64);
	char tmpl[] = "/tmp/mprof-test-export.XXXXXX";
	int fd = mkstemp(tmpl);
	assert_int_equal(export_pprof(fd, r, NULL, NULL, &err), 0);
	close(fd);
	prof *q = prof_load(tmpl, &err);
	unlink(tmpl);
	assert_non_null(q);
	agg_sample_vals(&q->samples.v[0], v);
	assert_int_equal(v[AGG_INUSE_BYTES], -7 * 64);
	assert_int_equal(v[AGG_ALLOC_OBJS], -7);
	prof_free(q);
	prof_free(r);
	prof_free(d);
	prof_free(base);
	prof_free(cur);
}

/* Two libraries rebuilt (other build-ids): liba and libb both define
 * "init" at the same offset, so the keys must stay within their module. */
static prof *make_builds(const char *bid, uint64_t base, int with_gone)
{
	prof *p = prof_new();
	prof_module_add(p, "/opt/app/bin/app", "00aa", base, 0x10000, 0);
	char b[64];
	snprintf(b, sizeof(b), "%sa", bid);
	prof_module_add(p, "/opt/app/lib/liba.so", b, base + 0x100000, 0x10000, 0);
	snprintf(b, sizeof(b), "%sb", bid);
	prof_module_add(p, "/opt/app/lib/libb.so", b, base + 0x200000, 0x10000, 0);
	/* init in liba, init in libb, main in app (same build), gone() in libb */
	uint64_t addrs[] = { base + 0x100010, base + 0x200010, base + 0x1000, base + 0x200400 };
	uint32_t fr[4];
	for (int i = 0; i < 3 + with_gone; i++) {
		fr[i] = prof_frame_intern(p, addrs[i]);
		p->frames.v[fr[i]].module = i == 2 ? 0 : i == 0 ? 1 : 2;
	}
	prof_sample_add(p, prof_stack_add(p, (uint32_t[]){ fr[0], fr[2] }, 2), 8, 10, 80, 0, 0);
	prof_sample_add(p, prof_stack_add(p, (uint32_t[]){ fr[1], fr[2] }, 2), 8, 20, 160, 0, 0);
	if (with_gone)
		prof_sample_add(p, prof_stack_add(p, (uint32_t[]){ fr[3], fr[2] }, 2), 8, 3, 24, 0, 0);
	return p;
}

/* A keyer by offset within a 0x100-byte "init", as symbols/ would give. */
static const char *fake_key(void *ctx, int side, uint32_t f, int level, char *buf, size_t len)
{
	const prof *p = ((const prof **)ctx)[side];
	const prof_frame *fr = &p->frames.v[f];
	uint64_t off = fr->addr - p->modules.v[fr->module].base;
	if (level || off >= 0x100)
		return NULL;
	snprintf(buf, len, "S:init+0x%llx", (unsigned long long)off);
	return buf;
}

static void test_diff_across_builds(void **state)
{
	(void)state;
	prof *base = make_builds("11", 0x555500000000, 1), *cur = make_builds("22", 0x563400000000, 0);
	const prof *sides[2] = { base, cur };
	diff_keyer k = { fake_key, NULL, NULL, NULL, sides };
	diff_stats st;
	prof_error err;
	prof *d = diff_build_by(base, cur, &k, &st, &err);
	assert_non_null(d);
	assert_int_equal(st.rebuilt, 2);
	assert_non_null(strstr(st.what, "liba.so: build-id 11a in BASE, 22a in NEW"));
	assert_int_equal(st.unmatched, 1);
	/* Every sample of init cancels within its own library: only gone() is left. */
	assert_int_equal(d->samples.len, 1);
	const uint32_t *fr = prof_stack_frames(d, d->samples.v[0].stack);
	const prof_frame *g = &d->frames.v[fr[0]];
	/* gone() keeps BASE's libb, added to the diff as the peer of NEW's libb,
	 * at an address no module of NEW holds. */
	assert_int_equal(g->module, 3);
	assert_string_equal(d->strs.v + d->modules.v[3].build_id, "11b");
	assert_int_equal(d->modules.v[3].peer, 3);
	for (uint32_t i = 0; i < 3; i++)
		assert_false(g->addr >= d->modules.v[i].base && g->addr < d->modules.v[i].base + d->modules.v[i].size);
	assert_true(g->addr < DIFF_NAMED_ADDR);
	int64_t v[AGG_NMETRIC];
	agg_sample_vals(&d->samples.v[0], v);
	assert_int_equal(v[AGG_INUSE_BYTES], -24);
	char msg[512];
	assert_true(diff_stats_say(&st, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "1 frame of BASE matched none of NEW"));
	/* Without a keyer frames match by module + offset as within a build;
	 * gone() is still in BASE's libb, not at an address of NEW's. */
	prof *n = diff_build(base, cur, &err);
	assert_non_null(n);
	assert_int_equal(n->samples.len, 1);
	assert_int_equal(n->frames.v[prof_stack_frames(n, n->samples.v[0].stack)[0]].module, 3);
	prof_free(n);
	prof_free(d);
	prof_free(base);
	prof_free(cur);
}

static void test_diff_keys(void **state)
{
	(void)state;
	prof *p = prof_new();
	const char *names[] = { "./skynet/luaclib/skynet.so(+0xb55d) [0x7feead9e855d]",
				"./skynet/skynet(skynet_send+0x67) [0x55f2da79f377]", "main.main" };
	const char *keys[] = { "skynet.so(+0xb55d)", "skynet(skynet_send+0x67)", "main.main" };
	char kb[128];
	for (int i = 0; i < 3; i++) {
		uint32_t f = prof_frame_intern(p, (uint64_t)i + 1);
		p->frames.v[f].name = prof_str(p, names[i], strlen(names[i]));
		assert_string_equal(diff_frame_key(p, f, kb, sizeof(kb)), keys[i]);
	}
	uint32_t f = prof_frame_intern(p, 0x1234);
	assert_string_equal(diff_frame_key(p, f, kb, sizeof(kb)), "0x1234");
	prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pprof_round_trip),
		cmocka_unit_test(test_diff_across_aslr),
		cmocka_unit_test(test_diff_keys),
		cmocka_unit_test(test_diff_across_builds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
