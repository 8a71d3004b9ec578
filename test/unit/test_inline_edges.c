/* test_inline_edges.c - the pieces under the TUI's issue-4/8 screens with
 * no terminal: inlined caller/callee edges of a node map, and the source
 * screen's place in the view (open, move, back, kept across a reload). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg.h"
#include "core/diff.h"
#include "core/diff_marks.h"
#include "core/inline_edges.h"
#include "core/load.h"
#include "core/view.h"

/* Three frames: f0 = inner (inlined) in outer; f1 = outer alone; f2 =
 * inner inlined in other. */
static void edges_of_a_map(void **state)
{
	(void)state;
	prof_nodemap m;
	assert_int_equal(nodemap_begin(&m, 3), 0);
	uint32_t inner = nodemap_node(&m, "inner", AGG_NODE_INLINE), outer = nodemap_node(&m, "outer", 0);
	nodemap_push(&m, inner);
	nodemap_push(&m, outer);
	nodemap_end_frame(&m);
	nodemap_push(&m, outer);
	nodemap_end_frame(&m);
	uint32_t other = nodemap_node(&m, "other", 0);
	nodemap_push(&m, inner);
	nodemap_push(&m, other);
	nodemap_end_frame(&m);
	inline_edges e;
	assert_int_equal(inline_edges_build(&e, &m), 0);
	assert_int_equal(e.pairs.used, 2);
	assert_true(inline_edges_has(&e, inner, outer));
	assert_true(inline_edges_has(&e, inner, other));
	assert_false(inline_edges_has(&e, outer, inner));   /* direction matters */
	assert_false(inline_edges_has(&e, other, outer));
	assert_false(inline_edges_has(&e, outer, outer));
	inline_edges_free(&e);
	assert_false(inline_edges_has(&e, inner, outer));   /* freed: empty */
	nodemap_free(&m);
}

/* Address granularity: one node per frame, so no inline edge at all. */
static void no_edges_by_address(void **state)
{
	(void)state;
	prof_error err;
	prof *p = prof_load("test/data/test_mem.pro", &err);
	assert_non_null(p);
	prof_nodemap m;
	assert_int_equal(nodemap_by_address(&m, p), 0);
	inline_edges e;
	assert_int_equal(inline_edges_build(&e, &m), 0);
	assert_int_equal(e.pairs.used, 0);
	assert_false(inline_edges_has(&e, 0, 1));
	inline_edges_free(&e);
	nodemap_free(&m);
	prof_free(p);
}

static int by_address(void *ctx, unsigned idx, const prof *p, prof_nodemap *m, char *err, size_t errlen)
{
	(void)ctx;
	(void)idx;
	(void)err;
	(void)errlen;
	return nodemap_by_address(m, p);
}

static void source_screen(void **state)
{
	(void)state;
	prof_error err;
	prof *p = prof_load("test/data/test_mem.pro", &err);
	assert_non_null(p);
	prof_nodemap m;
	agg a;
	view v;
	assert_int_equal(nodemap_by_address(&m, p), 0);
	assert_int_equal(agg_compute(&a, p, &m), 0);
	assert_int_equal(view_init(&v, p, &m, &a, "test_mem.pro"), 0);
	view_set_gran_builder(&v, by_address, NULL);
	uint32_t node = view_row_node(&v, 0);
	const char *name = view_node_name(&v, node);
	assert_non_null(strstr(name, "(+0xb55d)"));
	assert_int_equal(view_open_source(&v, node, 100, 62), 0);
	assert_int_equal(view_cur(&v)->kind, VIEW_SOURCE);
	assert_int_equal(v.depth, 2);
	assert_int_equal(view_nrows(&v), 100);
	assert_int_equal(view_cur(&v)->sel, 62);
	assert_int_equal(view_row_node(&v, 62), UINT32_MAX);   /* lines are not nodes */
	assert_int_equal(view_move(&v, 1000), 0);
	assert_int_equal(view_cur(&v)->sel, 99);
	/* Opened again from the pane: replaces it rather than stacking. */
	assert_int_equal(view_open_source(&v, node, 10, 3), 0);
	assert_int_equal(v.depth, 2);
	assert_int_equal(view_nrows(&v), 10);
	/* A reload (a diff toggle) keeps the pane and finds its node by name. */
	assert_int_equal(view_reload(&v, p, 1), 0);
	assert_int_equal(v.depth, 2);
	assert_int_equal(view_cur(&v)->kind, VIEW_SOURCE);
	assert_string_equal(view_node_name(&v, view_cur(&v)->node), name);
	assert_int_equal(view_cur(&v)->sel, 3);
	/* Enter and Backspace both go back to the table. */
	assert_int_equal(view_enter(&v), 0);
	assert_int_equal(view_cur(&v)->kind, VIEW_TABLE);
	assert_int_equal(view_open_source(&v, node, 10, 3), 0);
	assert_int_equal(view_back(&v), 0);
	assert_int_equal(v.depth, 1);
	view_free(&v);
	agg_free(&a);
	nodemap_free(&m);
	prof_free(p);
}

static uint32_t node_named(const prof_nodemap *m, const char *s)
{
	for (uint32_t i = 0; i < m->nnodes; i++)
		if (strstr(nodemap_name(m, i), s))
			return i;
	fail_msg("no node like %s", s);
	return UINT32_MAX;
}

/* The frame's recorded name without its directory and its " [0x...]"
 * absolute address: what stays the same across two runs of skynet. */
static void run_key(const prof *p, uint32_t f, char *out, size_t len)
{
	char buf[32];
	const char *n = prof_frame_name(p, f, buf, sizeof(buf));
	const char *sl = strrchr(n, '/'), *sp = strstr(n, " [");
	if (sl && (!sp || sl < sp))
		n = sl + 1;
	size_t k = sp && sp > n ? (size_t)(sp - n) : strlen(n);
	snprintf(out, len, "%.*s", (int)(k < len ? k : len - 1), n);
}

/* through[f] = 1 when some sample that allocated has frame f on its stack. */
static uint8_t *frames_allocating(const prof *p)
{
	uint8_t *through = calloc(p->frames.len + 1, 1);
	assert_non_null(through);
	for (size_t i = 0; i < p->samples.len; i++) {
		if (!p->samples.v[i].c.alloc_objs)
			continue;
		uint32_t st = p->samples.v[i].stack;
		const uint32_t *f = prof_stack_frames(p, st);
		for (uint32_t j = 0; j < p->stacks.v[st].depth; j++)
			through[f[j]] = 1;
	}
	return through;
}

/* NEW frames counted from the two files alone, with no diff: frames of cur
 * that allocated whose run key no allocating frame of base has. */
static size_t new_by_keys(const prof *base, const prof *cur)
{
	uint8_t *tb = frames_allocating(base), *tc = frames_allocating(cur);
	size_t n = 0;
	char kc[256], kb[256];
	for (uint32_t f = 0; f < cur->frames.len; f++) {
		if (!tc[f])
			continue;
		run_key(cur, f, kc, sizeof(kc));
		int in_base = 0;
		for (uint32_t g = 0; g < base->frames.len && !in_base; g++) {
			if (!tb[g])
				continue;
			run_key(base, g, kb, sizeof(kb));
			in_base = !strcmp(kb, kc);
		}
		n += !in_base;
	}
	free(tb);
	free(tc);
	return n;
}

/* The marks (caller frees) of the nodes of *m (caller frees), the address
 * map over the diff cur - base. */
static uint8_t *marks_of(const prof *base, const prof *cur, prof_nodemap *m)
{
	prof_error err;
	prof *d = diff_build(base, cur, &err);
	assert_non_null(d);
	agg ad;
	assert_int_equal(nodemap_by_address(m, d), 0);
	assert_int_equal(agg_compute(&ad, d, m), 0);
	uint8_t *out = malloc(m->nnodes ? m->nnodes : 1);
	assert_non_null(out);
	assert_int_equal(diff_marks_nodes(cur, &ad, m, out), 0);
	agg_free(&ad);
	prof_free(d);
	return out;
}

static size_t count_marks(const uint8_t *out, const prof_nodemap *m, int mark)
{
	size_t n = 0;
	for (uint32_t i = 0; i < m->nnodes; i++)
		n += out[i] == mark;
	return n;
}

/* The skynet fixtures: +0xc588 allocates only in NEW (test_mem.pro);
 * +0xb55d allocated in BASE too (and freed there). */
static void new_rows_of_a_file_diff(void **state)
{
	(void)state;
	prof_error err;
	prof *base = prof_load("test/data/test_mem_fixed.pro", &err), *cur = prof_load("test/data/test_mem.pro", &err);
	assert_non_null(base);
	assert_non_null(cur);
	prof_nodemap m, mr, mz;
	uint8_t *out = marks_of(base, cur, &m);
	assert_int_equal(out[node_named(&m, "(+0xc588)")], DIFF_MARK_NEW);
	assert_int_equal(out[node_named(&m, "(+0xb55d)")], DIFF_MARK_NONE);
	assert_int_equal(out[node_named(&m, "(+0xb519)")], DIFF_MARK_NONE);
	assert_int_equal(out[node_named(&m, "(skynet_timeout+0x30)")], DIFF_MARK_NONE);
	size_t n = count_marks(out, &m, DIFF_MARK_NEW), gone = count_marks(out, &m, DIFF_MARK_GONE);
	assert_true(n > 0);
	assert_int_equal(n, new_by_keys(base, cur));
	/* GONE is NEW's mirror: what BASE allocated through and NEW did not
	 * (nothing here), so the reversed diff's GONE rows are these NEW ones. */
	assert_int_equal(gone, new_by_keys(cur, base));
	uint8_t *rev = marks_of(cur, base, &mr);
	assert_int_equal(rev[node_named(&mr, "(+0xc588)")], DIFF_MARK_GONE);
	assert_int_equal(count_marks(rev, &mr, DIFF_MARK_GONE), n);
	assert_int_equal(count_marks(rev, &mr, DIFF_MARK_NEW), gone);
	/* A diff with itself: nothing is marked. */
	uint8_t *oz = marks_of(cur, cur, &mz);
	assert_int_equal(count_marks(oz, &mz, DIFF_MARK_NONE), mz.nnodes);
	free(oz);
	nodemap_free(&mz);
	free(rev);
	nodemap_free(&mr);
	free(out);
	nodemap_free(&m);
	prof_free(base);
	prof_free(cur);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(edges_of_a_map),
		cmocka_unit_test(no_edges_by_address),
		cmocka_unit_test(source_screen),
		cmocka_unit_test(new_rows_of_a_file_diff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
