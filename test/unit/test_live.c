/* test_live.c - the pure logic of live mode, without a process: snapshot
 * diffs per sample (growth, NEW nodes), the timeline's local peaks and
 * carry-over, and view_reload keeping the selection across a refresh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/snapdiff.h"
#include "core/timeline.h"
#include "core/view.h"

/* A growing profile: frames a (leaf), b, c; stacks a<-c and b<-c. */
static prof *model(void)
{
	prof *p = prof_new();
	uint32_t a = prof_frame_intern(p, 0x10), b = prof_frame_intern(p, 0x20), c = prof_frame_intern(p, 0x30);
	p->frames.v[a].name = prof_str(p, "a", 1);
	p->frames.v[b].name = prof_str(p, "b", 1);
	p->frames.v[c].name = prof_str(p, "c", 1);
	uint32_t s1[] = { a, c }, s2[] = { b, c };
	prof_sample_add(p, prof_stack_add(p, s1, 2), 0, 10, 1000, 0, 0);
	prof_sample_add(p, prof_stack_add(p, s2, 2), 0, 5, 500, 5, 500);
	return p;
}

static void test_snap_delta(void **state)
{
	(void)state;
	prof *p = model();
	snap s1, s2;
	assert_int_equal(snap_take(&s1, p, 1, 100, 1000000000), 0);
	assert_int_equal(s1.total[AGG_INUSE_BYTES], 1000);
	/* Later: a grows by 3 x 100 B; a new stack d <- c appears. */
	p->samples.v[0].c.alloc_objs += 3;
	p->samples.v[0].c.alloc_bytes += 300;
	uint32_t d = prof_frame_intern(p, 0x40);
	p->frames.v[d].name = prof_str(p, "d", 1);
	uint32_t s3[] = { d, 2 };
	prof_sample_add(p, prof_stack_add(p, s3, 2), 0, 2, 64, 0, 0);
	assert_int_equal(snap_take(&s2, p, 2, 105, 6000000000), 0);
	uint8_t *flags;
	prof_error err;
	prof *dp = snap_delta(p, &s1, &s2, &flags, &err);
	assert_non_null(dp);
	assert_int_equal(dp->samples.len, 2);   /* b did not move */
	assert_int_equal(dp->samples.v[0].c.alloc_bytes, 300);
	assert_int_equal(dp->samples.v[1].c.alloc_bytes, 64);
	assert_int_equal(flags[0] & SNAP_STACK_NEW, 0);
	assert_int_equal(flags[2] & SNAP_STACK_NEW, SNAP_STACK_NEW);
	prof_nodemap m;
	agg ag;
	assert_int_equal(nodemap_by_address(&m, dp), 0);
	assert_int_equal(agg_compute(&ag, dp, &m), 0);
	assert_int_equal(ag.total[AGG_INUSE_BYTES], 364);
	uint8_t nn[8];
	assert_int_equal(snap_marks_nodes(dp, &m, flags, nn), 0);
	assert_int_equal(nn[0], DIFF_MARK_NONE);   /* a existed at #1 */
	assert_int_equal(nn[1], DIFF_MARK_NONE);   /* b held nothing at #1: not GONE */
	assert_int_equal(nn[2], DIFF_MARK_NONE);   /* c too */
	assert_int_equal(nn[3], DIFF_MARK_NEW);    /* d is new */
	/* to older than from is refused; NULL from is the empty start. */
	assert_null(snap_delta(p, &s2, &s1, NULL, &err));
	prof *w = snap_delta(p, NULL, &s1, NULL, &err);
	assert_int_equal(w->samples.len, 2);
	assert_int_equal(w->samples.v[0].c.alloc_bytes, 1000);
	prof_free(w);
	agg_free(&ag);
	nodemap_free(&m);
	free(flags);
	prof_free(dp);
	snap_free(&s1);
	snap_free(&s2);
	prof_free(p);
}

/* GONE between two moments: e <- c held 2 blocks at #1 and freed both by
 * #2; a <- c keeps its blocks, so c stays unmarked; b <- c, which held
 * nothing at #1, is not GONE either. */
static void test_snap_gone(void **state)
{
	(void)state;
	prof *p = model();
	uint32_t e = prof_frame_intern(p, 0x50);
	p->frames.v[e].name = prof_str(p, "e", 1);
	uint32_t s4[] = { e, 2 };
	prof_sample_add(p, prof_stack_add(p, s4, 2), 0, 2, 96, 0, 0);
	snap s1, s2;
	assert_int_equal(snap_take(&s1, p, 1, 100, 1000000000), 0);
	p->samples.v[2].c.free_objs = 2;
	p->samples.v[2].c.free_bytes = 96;
	p->samples.v[0].c.free_objs = 9;   /* a frees 9 of its 10: one left */
	p->samples.v[0].c.free_bytes = 900;
	assert_int_equal(snap_take(&s2, p, 2, 105, 6000000000), 0);
	uint8_t *flags;
	prof_error err;
	prof *dp = snap_delta(p, &s1, &s2, &flags, &err);
	assert_non_null(dp);
	assert_int_equal(flags[2], SNAP_STACK_HELD_FROM);
	assert_int_equal(flags[0], SNAP_STACK_HELD_FROM | SNAP_STACK_HELD_TO);
	assert_int_equal(flags[1], 0);
	prof_nodemap m;
	assert_int_equal(nodemap_by_address(&m, dp), 0);
	uint8_t nn[8];
	assert_int_equal(snap_marks_nodes(dp, &m, flags, nn), 0);
	assert_int_equal(nn[e], DIFF_MARK_GONE);
	assert_int_equal(nn[0], DIFF_MARK_NONE);   /* a still holds one */
	assert_int_equal(nn[1], DIFF_MARK_NONE);   /* b held nothing at #1 */
	assert_int_equal(nn[2], DIFF_MARK_NONE);   /* c holds a's block */
	/* Reversed roles, a from the empty start: nothing is GONE, all NEW. */
	uint8_t *f0;
	prof *d0 = snap_delta(p, NULL, &s1, &f0, &err);
	assert_non_null(d0);
	assert_int_equal(snap_marks_nodes(d0, &m, f0, nn), 0);
	for (uint32_t i = 0; i < m.nnodes; i++)
		assert_int_equal(nn[i], DIFF_MARK_NEW);
	free(f0);
	prof_free(d0);
	nodemap_free(&m);
	free(flags);
	prof_free(dp);
	snap_free(&s1);
	snap_free(&s2);
	prof_free(p);
}

static void test_timeline(void **state)
{
	(void)state;
	timeline t;
	tl_init(&t, 100);
	tl_heap(&t, 10, 5);
	tl_heap(&t, 20, 50);   /* the bucket's peak */
	tl_heap(&t, 90, 7);
	tl_heap(&t, 350, 9);   /* buckets 1 and 2 carry 7 */
	tl_rss(&t, 360, 1000);
	assert_int_equal(t.last, 3);
	assert_int_equal(tl_at(&t, 0)->heap, 50);
	assert_int_equal(tl_at(&t, 1)->heap, 7);
	assert_int_equal(tl_at(&t, 2)->heap, 7);
	assert_int_equal(tl_at(&t, 3)->heap, 9);
	assert_int_equal(tl_at(&t, 3)->rss, 1000);
	assert_int_equal(t.peak, 50);
	assert_int_equal(t.cur, 9);
	tl_advance(&t, TL_KEEP + 10);   /* scrolls: only the newest are kept */
	assert_int_equal(tl_first(&t), 11);
	assert_int_equal(tl_at(&t, TL_KEEP + 10)->heap, 9);
	/* The scrolled-off buckets are still in the run's summary. */
	assert_int_equal(tl_span(&t, 0, 0).heap, 50);
	assert_int_equal(tl_span(&t, 0, TL_KEEP + 10).heap, 50);
	assert_int_equal(tl_span(&t, 3, TL_KEEP + 10).heap, 9);
}

/* An hour of 100 ms buckets after a late start: the summary halves its
 * resolution as it fills, keeps every peak, and the newest buckets stay exact. */
static void test_timeline_run(void **state)
{
	(void)state;
	static timeline t;
	tl_init(&t, 100);
	int64_t t0 = 5000000;   /* attached late: the run starts at its first bucket */
	tl_heap(&t, t0, 1);
	assert_int_equal(t.origin, t0 / 100);
	for (int64_t i = 1; i < 36000; i++)
		tl_heap(&t, t0 + i * 100, i == 7 ? 777 : i == 20000 ? 555 : 10);
	tl_rss(&t, t0 + 30 * 100, 4096);
	tl_heap(&t, t0 + 36000 * 100, 3);
	int64_t o = t.origin;
	assert_true(t.run_shift >= 5 && (36000 >> t.run_shift) < TL_RUN);
	assert_int_equal(tl_span(&t, o, o + 36000).heap, 777);
	assert_int_equal(tl_span(&t, o + 100, o + 36000).heap, 555);
	assert_int_equal(tl_span(&t, o + 30000, o + 36000).heap, 10);
	assert_int_equal(tl_span(&t, o + 36000, o + 36000).heap, 10);   /* it started at 10 */
	assert_int_equal(tl_span(&t, 0, o + 36000).rss, 4096);
	assert_int_equal(tl_span(&t, o - 50, o - 1).heap, 0);   /* before the run: nothing */
}

static int build(void *ctx, unsigned idx, const prof *p, prof_nodemap *m, char *err, size_t errlen)
{
	(void)ctx, (void)idx, (void)err, (void)errlen;
	return nodemap_by_address(m, p);
}

static void test_reload_keeps_place(void **state)
{
	(void)state;
	prof *p = model();
	prof_nodemap *m = calloc(1, sizeof(*m));
	agg *a = calloc(1, sizeof(*a));
	view v;
	assert_int_equal(nodemap_by_address(m, p), 0);
	assert_int_equal(agg_compute(a, p, m), 0);
	assert_int_equal(view_init(&v, p, m, a, "t"), 0);
	v.gran[0].owned = 1;
	view_set_gran_builder(&v, build, NULL);
	/* Rows by flat in use: a (1000), then b/c; select b's row... by name. */
	size_t rb = 0;
	for (size_t r = 0; r < v.nrows; r++)
		if (!strcmp(view_node_name(&v, v.rows[r]), "c"))
			rb = r;
	view_move_to(&v, rb);
	assert_int_equal(view_enter(&v), 0);   /* peek at c */
	/* The profile changes: b now holds the most; c must stay centred. */
	p->samples.v[1].c.alloc_bytes += 5000;
	p->samples.v[1].c.alloc_objs += 5;
	assert_int_equal(view_reload(&v, p, 0), 0);
	assert_int_equal(v.depth, 2);
	assert_string_equal(view_node_name(&v, view_cur(&v)->node), "c");
	assert_int_equal(v.cg.cum[AGG_INUSE_BYTES], 6000);
	view_back(&v);
	assert_string_equal(view_node_name(&v, v.rows[view_cur(&v)->sel]), "c");
	/* New frames: maps rebuilt, the place still kept by name. */
	uint32_t d = prof_frame_intern(p, 0x40);
	p->frames.v[d].name = prof_str(p, "d", 1);
	uint32_t s3[] = { d, 2 };
	prof_sample_add(p, prof_stack_add(p, s3, 2), 0, 1, 99999, 0, 0);
	assert_int_equal(view_reload(&v, p, 1), 0);
	assert_string_equal(view_node_name(&v, v.rows[0]), "d");
	assert_string_equal(view_node_name(&v, v.rows[view_cur(&v)->sel]), "c");
	view_free(&v);
	prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snap_delta),
		cmocka_unit_test(test_snap_gone),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_timeline_run),
		cmocka_unit_test(test_reload_keeps_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
