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
	assert_int_equal(e.n, 2);
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
	assert_int_equal(e.n, 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(edges_of_a_map),
		cmocka_unit_test(no_edges_by_address),
		cmocka_unit_test(source_screen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
