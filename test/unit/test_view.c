/* test_view.c - every TUI key's effect on the view state, with no terminal,
 * on the real skynet dump test/data/test_mem.pro (numbers from the fixture's
 * README and the reference tool's golden reports); callers/callees, the call
 * tree and the filters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg.h"
#include "core/callgraph.h"
#include "core/filter.h"
#include "core/load.h"
#include "core/tree.h"
#include "core/view.h"

typedef struct fx {
	prof *p;
	prof_nodemap m;
	agg a;
	view v;
} fx;

static int setup(void **state)
{
	fx *f = calloc(1, sizeof(*f));
	prof_error err;
	f->p = prof_load("test/data/test_mem.pro", &err);
	if (!f->p) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	if (nodemap_by_address(&f->m, f->p) || agg_compute(&f->a, f->p, &f->m))
		return -1;
	if (view_init(&f->v, f->p, &f->m, &f->a, "test_mem.pro"))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fx *f = *state;
	view_free(&f->v);
	agg_free(&f->a);
	nodemap_free(&f->m);
	prof_free(f->p);
	free(f);
	return 0;
}

/* The node whose name contains s (names are unique in this dump). */
static uint32_t node_of(const view *v, const char *s)
{
	for (uint32_t i = 0; i < v->m->nnodes; i++)
		if (strstr(nodemap_name(v->m, i), s))
			return i;
	fail_msg("no node named like %s", s);
	return UINT32_MAX;
}

static const char *sel_name(view *v)
{
	return view_node_name(v, view_row_node(v, view_cur(v)->sel));
}

static const agg_vals *vals(const view *v, const char *s)
{
	return &v->a->v[node_of(v, s)];
}

static size_t row_of(view *v, const char *s)
{
	for (size_t r = 0; r < view_nrows(v); r++)
		if (strstr(view_node_name(v, view_row_node(v, r)), s))
			return r;
	fail_msg("no row named like %s", s);
	return 0;
}

static void test_initial_table(void **state)
{
	view *v = &((fx *)*state)->v;
	assert_int_equal(view_cur(v)->kind, VIEW_TABLE);
	assert_int_equal(view_metric(v), AGG_INUSE_BYTES);
	assert_int_equal(view_total(v), 5296);
	assert_int_equal(v->a->total[AGG_INUSE_OBJS], 61);
	/* 24 nodes are in an in-use stack (the reference's inuse report has 24 rows). */
	assert_int_equal(view_nrows(v), 24);
	assert_non_null(strstr(view_node_name(v, v->rows[0]), "+0xb55d"));
	assert_non_null(strstr(view_node_name(v, v->rows[1]), "+0xb519"));
	assert_non_null(strstr(view_node_name(v, v->rows[2]), "+0xc588"));
	assert_int_equal(vals(v, "+0xb55d")->flat[AGG_INUSE_BYTES], 2880);
	assert_int_equal(vals(v, "+0xb55d")->flat[AGG_INUSE_OBJS], 31);
	assert_int_equal(vals(v, "+0xb519")->flat[AGG_INUSE_BYTES], 2384);
	assert_int_equal(vals(v, "+0xb519")->flat[AGG_INUSE_OBJS], 29);
	assert_int_equal(vals(v, "+0xc588")->flat[AGG_INUSE_BYTES], 32);
	assert_int_equal(view_cur(v)->sel, 0);
}

static void test_key_s_alloc_keeps_selection(void **state)
{
	view *v = &((fx *)*state)->v;
	view_move_to(v, 1);   /* +0xb519 */
	assert_non_null(strstr(sel_name(v), "+0xb519"));
	assert_int_equal(view_toggle_alloc(v), 0);
	assert_int_equal(view_metric(v), AGG_ALLOC_BYTES);
	assert_int_equal(view_total(v), 11848);
	assert_non_null(strstr(view_node_name(v, v->rows[0]), "skynet_strdup"));
	assert_int_equal(v->a->v[v->rows[0]].flat[AGG_ALLOC_BYTES], 2992);
	assert_int_equal(v->a->v[v->rows[0]].flat[AGG_ALLOC_OBJS], 63);
	assert_non_null(strstr(view_node_name(v, v->rows[3]), "skynet_timeout"));
	assert_int_equal(v->a->v[v->rows[3]].flat[AGG_ALLOC_BYTES], 1952);
	/* Still on the same node, which moved from row 1 to row 2. */
	assert_non_null(strstr(sel_name(v), "+0xb519"));
	assert_int_equal(view_cur(v)->sel, 2);
	assert_true(view_nrows(v) > 24);   /* the freed-only paths show up */
	assert_int_equal(view_toggle_alloc(v), 0);
	assert_int_equal(view_nrows(v), 24);
	assert_int_equal(view_cur(v)->sel, 1);
}

static void test_key_o_objects(void **state)
{
	view *v = &((fx *)*state)->v;
	view_move_to(v, 2);   /* +0xc588 */
	assert_int_equal(view_toggle_objects(v), 0);
	assert_int_equal(view_metric(v), AGG_INUSE_OBJS);
	assert_int_equal(view_total(v), 61);
	assert_non_null(strstr(view_node_name(v, v->rows[0]), "+0xb55d"));
	assert_non_null(strstr(sel_name(v), "+0xc588"));
	view_toggle_alloc(v);
	assert_int_equal(view_total(v), 221);
	assert_non_null(strstr(view_node_name(v, v->rows[0]), "skynet_strdup"));
	assert_non_null(strstr(sel_name(v), "+0xc588"));
}

static void test_keys_sort(void **state)
{
	view *v = &((fx *)*state)->v;
	/* C: cum first, the 100% nodes (5296 B) lead, selection kept. */
	assert_int_equal(view_sort_by(v, VIEW_SORT_CUM), 0);
	assert_int_equal(v->sort, VIEW_SORT_CUM);
	assert_int_equal(v->a->v[v->rows[0]].cum[AGG_INUSE_BYTES], 5296);
	assert_non_null(strstr(sel_name(v), "+0xb55d"));
	for (size_t r = 1; r < v->nrows; r++)
		assert_true(v->a->v[v->rows[r - 1]].cum[0] >= v->a->v[v->rows[r]].cum[0]);
	/* r: reversed, smallest cum first (+0xc588's 32 B path). */
	assert_int_equal(view_sort_reverse(v), 0);
	assert_int_equal(v->a->v[v->rows[0]].cum[AGG_INUSE_BYTES], 32);
	assert_int_equal(view_sort_reverse(v), 0);
	/* F: back to flat. */
	assert_int_equal(view_sort_by(v, VIEW_SORT_FLAT), 0);
	assert_non_null(strstr(view_node_name(v, v->rows[0]), "+0xb55d"));
	/* > and < walk flat -> cum -> objects -> name -> flat. */
	view_sort_step(v, +1);
	assert_int_equal(v->sort, VIEW_SORT_CUM);
	view_sort_step(v, +1);
	assert_int_equal(v->sort, VIEW_SORT_OBJS);
	assert_int_equal(v->a->v[v->rows[0]].cum[AGG_INUSE_OBJS], 61);
	view_sort_step(v, +1);
	assert_int_equal(v->sort, VIEW_SORT_NAME);
	for (size_t r = 1; r < v->nrows; r++)
		assert_true(strcmp(view_node_name(v, v->rows[r - 1]), view_node_name(v, v->rows[r])) <= 0);
	view_sort_step(v, +1);
	assert_int_equal(v->sort, VIEW_SORT_FLAT);
	view_sort_step(v, -1);
	assert_int_equal(v->sort, VIEW_SORT_NAME);
}

static void test_keys_move(void **state)
{
	view *v = &((fx *)*state)->v;
	v->page = 10;
	assert_int_equal(view_move(v, -1), 0);   /* Up at the top stays */
	assert_int_equal(view_cur(v)->sel, 0);
	view_move(v, 1);                          /* Down / j */
	assert_int_equal(view_cur(v)->sel, 1);
	view_page(v, 1);                          /* PgDn: a page, as a pager */
	assert_int_equal(view_cur(v)->sel, 11);
	assert_int_equal(view_cur(v)->top, 10);
	view_page(v, 1);                          /* the last page: the rows end there */
	assert_int_equal(view_cur(v)->sel, 21);
	assert_int_equal(view_cur(v)->top, 14);
	view_page(v, -1);                         /* PgUp */
	assert_int_equal(view_cur(v)->sel, 11);
	assert_int_equal(view_cur(v)->top, 4);
	view_move_to(v, SIZE_MAX);                /* End */
	assert_int_equal(view_cur(v)->sel, 23);
	assert_int_equal(view_cur(v)->top, 14);
	view_move(v, 100);
	assert_int_equal(view_cur(v)->sel, 23);
	view_move_to(v, 0);                       /* Home */
	assert_int_equal(view_cur(v)->sel, 0);
	assert_int_equal(view_cur(v)->top, 0);
}

static void test_key_enter_peek(void **state)
{
	view *v = &((fx *)*state)->v;
	/* +0x19599 carries all 5296 in-use bytes to its three callees. */
	view_move_to(v, row_of(v, "+0x19599"));
	assert_int_equal(view_enter(v), 0);
	assert_int_equal(view_cur(v)->kind, VIEW_PEEK);
	assert_int_equal(v->depth, 2);
	const callgraph *cg = &v->cg;
	assert_int_equal(cg->cum[AGG_INUSE_BYTES], 5296);
	assert_int_equal(cg->flat[AGG_INUSE_BYTES], 0);
	assert_int_equal(cg->ncallers_shown, 1);
	assert_non_null(strstr(view_node_name(v, cg->callers[0].node), "+0x27e90"));
	assert_int_equal(cg->callers[0].v[AGG_INUSE_BYTES], 5296);
	/* The 32 B stack passes +0x19599 twice: callees snlua +0x3370 and +0x5553. */
	assert_int_equal(cg->ncallees_shown, 4);
	assert_non_null(strstr(view_node_name(v, cg->callees[0].node), "+0xb55d"));
	assert_int_equal(cg->callees[0].v[AGG_INUSE_BYTES], 2880);
	assert_int_equal(cg->callees[0].v[AGG_INUSE_OBJS], 31);
	assert_non_null(strstr(view_node_name(v, cg->callees[1].node), "+0xb519"));
	assert_int_equal(cg->callees[1].v[AGG_INUSE_BYTES], 2384);
	assert_int_equal(cg->callees[2].v[AGG_INUSE_BYTES], 32);
	assert_int_equal(cg->callees[3].v[AGG_INUSE_BYTES], 32);
	assert_non_null(strstr(view_node_name(v, cg->callees[2].node), "+0x"));
	row_of(v, "snlua.so(+0x3370)");
	row_of(v, "skynet.so(+0x5553)");
	/* Rows: caller, centre, callees; the cursor starts on the caller. */
	assert_int_equal(view_nrows(v), 6);
	const cg_edge *e;
	assert_int_equal(view_peek_row(v, 1, &e), 1);
	assert_null(e);
	/* s: alloc re-sorts the callees: snlua's path (log strings, timers) leads. */
	view_move_to(v, 2);
	view_toggle_alloc(v);
	assert_non_null(strstr(view_node_name(v, cg->callees[0].node), "snlua.so(+0x3370)"));
	assert_non_null(strstr(sel_name(v), "+0xb55d"));   /* selection followed */
	assert_int_equal(cg->cum[AGG_ALLOC_BYTES], 11848);
	view_toggle_alloc(v);
	/* Enter on a callee re-centres; Backspace walks back. */
	view_move_to(v, row_of(v, "+0xb55d"));
	assert_int_equal(view_enter(v), 0);
	assert_int_equal(v->depth, 3);
	assert_non_null(strstr(view_node_name(v, v->cg.node), "+0xb55d"));
	assert_int_equal(v->cg.flat[AGG_INUSE_BYTES], 2880);
	assert_int_equal(v->cg.ncallees_shown, 0);
	assert_int_equal(v->cg.ncallers_shown, 1);
	assert_int_equal(view_back(v), 0);
	assert_int_equal(v->depth, 2);
	assert_non_null(strstr(view_node_name(v, v->cg.node), "+0x19599"));
	assert_non_null(strstr(sel_name(v), "+0xb55d"));   /* cursor where it was */
	assert_int_equal(view_back(v), 0);
	assert_int_equal(view_cur(v)->kind, VIEW_TABLE);
	assert_non_null(strstr(sel_name(v), "+0x19599"));
	assert_int_equal(view_back(v), -1);       /* nothing further back */
	assert_non_null(strstr(v->status, "main table"));
}

static void test_peek_recursion_counts_edges_once(void **state)
{
	view *v = &((fx *)*state)->v;
	/* lua_pcallk appears twice in every stack. */
	view_move_to(v, row_of(v, "lua_pcallk"));
	assert_int_equal(vals(v, "lua_pcallk")->cum[AGG_INUSE_BYTES], 5296);
	view_enter(v);
	assert_int_equal(v->cg.cum[AGG_INUSE_BYTES], 5296);
	assert_int_equal(v->cg.ncallers_shown, 2);
	assert_int_equal(v->cg.callers[0].v[AGG_INUSE_BYTES], 5296);
	assert_int_equal(v->cg.callers[1].v[AGG_INUSE_BYTES], 5296);
	/* Both occurrences call +0x19fc0: one edge, counted once per stack. */
	assert_int_equal(v->cg.ncallees_shown, 1);
	assert_non_null(strstr(view_node_name(v, v->cg.callees[0].node), "+0x19fc0"));
	assert_int_equal(v->cg.callees[0].v[AGG_INUSE_BYTES], 5296);
	assert_int_equal(v->cg.callees[0].v[AGG_ALLOC_BYTES], 11848);
}

static void test_key_t_tree(void **state)
{
	view *v = &((fx *)*state)->v;
	assert_int_equal(view_open_tree(v), 0);
	assert_int_equal(view_cur(v)->kind, VIEW_TREE);
	/* One root: libc's thread start, with everything in use. */
	assert_int_equal(view_nrows(v), 1);
	const tree_node *r = &v->tree.n[v->tree.vis[0]];
	assert_non_null(strstr(sel_name(v), "libc.so.6(+0x891f5)"));
	assert_int_equal(r->cum[AGG_INUSE_BYTES], 5296);
	assert_int_equal(r->cum[AGG_ALLOC_BYTES], 11848);
	assert_int_equal(r->flat[AGG_INUSE_BYTES], 0);
	/* Right: one child. Left: collapse. Left again: already top level. */
	assert_int_equal(view_tree_expand(v), 0);
	assert_int_equal(view_nrows(v), 2);
	assert_int_equal(view_tree_collapse(v), 0);
	assert_int_equal(view_nrows(v), 1);
	assert_int_equal(view_tree_collapse(v), -1);
	/* *: the heaviest path ends at +0xb55d with 2880 B, flat = cum. */
	assert_int_equal(view_tree_heaviest(v), 0);
	assert_non_null(strstr(sel_name(v), "+0xb55d"));
	const tree_node *leaf = &v->tree.n[v->tree.vis[view_cur(v)->sel]];
	assert_int_equal(leaf->cum[AGG_INUSE_BYTES], 2880);
	assert_int_equal(leaf->flat[AGG_INUSE_BYTES], 2880);
	assert_int_equal(leaf->flat[AGG_INUSE_OBJS], 31);
	assert_int_equal(leaf->depth, 18);   /* 19 frames, root first */
	/* Its siblings below +0x19599: +0xb519 then the snlua path. */
	size_t s = view_cur(v)->sel;
	assert_non_null(strstr(view_node_name(v, view_row_node(v, s + 1)), "+0xb519"));
	assert_int_equal(v->tree.n[v->tree.vis[s + 1]].cum[AGG_INUSE_BYTES], 2384);
	assert_non_null(strstr(view_node_name(v, view_row_node(v, s + 2)), "snlua.so(+0x3370)"));
	assert_int_equal(view_nrows(v), 21);
	/* Left on a leaf goes to its parent. */
	assert_int_equal(view_tree_collapse(v), 0);
	assert_non_null(strstr(sel_name(v), "+0x19599"));
	/* s: alloc mode; selection stays, the snlua path now leads. */
	view_toggle_alloc(v);
	assert_non_null(strstr(sel_name(v), "+0x19599"));
	s = view_cur(v)->sel;
	assert_non_null(strstr(view_node_name(v, view_row_node(v, s + 1)), "snlua.so(+0x3370)"));
	/* Enter from the tree: peek; back returns to the tree. */
	assert_int_equal(view_enter(v), 0);
	assert_int_equal(view_cur(v)->kind, VIEW_PEEK);
	view_back(v);
	assert_int_equal(view_cur(v)->kind, VIEW_TREE);
	assert_non_null(strstr(sel_name(v), "+0x19599"));
	assert_int_equal(view_open_tree(v), -1);
	/* Sorting keys are table-only. */
	assert_int_equal(view_sort_by(v, VIEW_SORT_CUM), -1);
	assert_non_null(strstr(v->status, "main table"));
	assert_int_equal(view_back(v), 0);
	assert_int_equal(view_tree_expand(v), -1);  /* not in the tree */
}

static void test_key_slash_filter(void **state)
{
	view *v = &((fx *)*state)->v;
	assert_int_equal(view_filter_set(v, "luaclib"), 0);
	/* In use: the four skynet.so nodes of the in-use stacks. */
	assert_int_equal(view_nrows(v), 4);
	for (size_t r = 0; r < view_nrows(v); r++)
		assert_non_null(strstr(view_node_name(v, view_row_node(v, r)), "luaclib"));
	assert_non_null(strstr(v->status, "4 rows"));
	/* n / N wrap among matches. */
	assert_int_equal(view_next_match(v, +1), 0);
	assert_int_equal(view_cur(v)->sel, 1);
	assert_int_equal(view_next_match(v, -1), 0);
	assert_int_equal(view_next_match(v, -1), 0);
	assert_int_equal(view_cur(v)->sel, 3);
	/* A bad regex changes nothing and says why. */
	assert_int_equal(view_filter_set(v, "(["), -1);
	assert_non_null(strstr(v->status, "bad regex"));
	assert_int_equal(view_nrows(v), 4);
	/* Smart case: upper case makes it case-sensitive. */
	assert_int_equal(view_filter_set(v, "SKYNET_SEND"), 0);
	assert_int_equal(view_nrows(v), 0);
	assert_int_equal(view_filter_set(v, "skynet_send"), 0);
	assert_int_equal(view_nrows(v), 2);   /* skynet_send, skynet_sendname */
	/* The name a row shows matches too: skynet.so+0xb55d and +0xb519. */
	assert_int_equal(view_filter_set(v, "^skynet\\.so\\+0xb5"), 0);
	assert_int_equal(view_nrows(v), 2);
	assert_non_null(strstr(view_node_name(v, view_row_node(v, 0)), "skynet.so(+0xb5"));
	/* c clears. */
	assert_int_equal(view_filters_clear(v), 0);
	assert_int_equal(view_nrows(v), 24);
	assert_int_equal(view_filters_clear(v), -1);
	assert_int_equal(view_next_match(v, 1), -1);
}

static void test_key_hide(void **state)
{
	view *v = &((fx *)*state)->v;
	/* Hiding the two leak sites makes +0x19599 the leaf of their stacks. */
	assert_int_equal(view_hide_set(v, "\\+0xb5(5d|19)\\)"), 0);
	assert_int_equal(view_total(v), 5296);
	assert_non_null(strstr(view_node_name(v, v->rows[0]), "+0x19599"));
	assert_int_equal(v->a->v[v->rows[0]].flat[AGG_INUSE_BYTES], 5264);
	assert_int_equal(v->a->v[v->rows[0]].flat[AGG_INUSE_OBJS], 60);
	assert_int_equal(view_nrows(v), 22);
	/* Peek sees the hidden map too. */
	view_enter(v);
	assert_int_equal(v->cg.flat[AGG_INUSE_BYTES], 5264);
	assert_int_equal(v->cg.ncallees_shown, 2);
	view_back(v);
	assert_int_equal(view_filters_clear(v), 0);
	assert_int_equal(view_nrows(v), 24);
	assert_non_null(strstr(view_node_name(v, v->rows[0]), "+0xb55d"));
	assert_int_equal(vals(v, "+0x19599")->flat[AGG_INUSE_BYTES], 0);
}

static void test_keys_help_gran_later(void **state)
{
	view *v = &((fx *)*state)->v;
	/* The help screen has the lines its opener says (the text is the TUI's:
	 * test_keys checks it lists every key). */
	assert_int_equal(view_help(v, 7), 0);
	assert_int_equal(view_cur(v)->kind, VIEW_HELP);
	assert_int_equal(view_nrows(v), 7);
	assert_int_equal(view_move_to(v, SIZE_MAX), 0);
	assert_int_equal(view_cur(v)->sel, 6);
	assert_int_equal(view_help(v, 7), 0);   /* help again closes */
	assert_int_equal(view_cur(v)->kind, VIEW_TABLE);
	view_help(v, 7);
	view_enter(v);                        /* Enter closes too */
	assert_int_equal(view_cur(v)->kind, VIEW_TABLE);
	/* g: only the address map exists in this build of the view. */
	assert_int_equal(view_gran_next(v), -1);
	assert_non_null(strstr(v->status, "address"));
}

/* A granularity builder: every frame in one node per module path prefix. */
static int by_prefix(void *ctx, unsigned idx, const prof *p, prof_nodemap *m, char *err, size_t errlen)
{
	(void)ctx;
	(void)idx;
	(void)err;
	(void)errlen;
	char buf[32];
	if (nodemap_begin(m, (uint32_t)p->frames.len))
		return -1;
	for (uint32_t f = 0; f < p->frames.len; f++) {
		const char *n = prof_frame_name(p, f, buf, sizeof(buf));
		char mod[128];
		size_t k = strcspn(n, "(");
		snprintf(mod, sizeof(mod), "%.*s", (int)(k < 127 ? k : 127), n);
		nodemap_push(m, nodemap_node(m, mod, 0));
		nodemap_end_frame(m);
	}
	return 0;
}

static void test_key_g_swaps_map(void **state)
{
	view *v = &((fx *)*state)->v;
	view_add_gran(v, "module");
	view_set_gran_builder(v, by_prefix, NULL);
	view_open_tree(v);
	assert_int_equal(view_gran_next(v), 0);
	assert_int_equal(v->cur_gran, 1);
	assert_int_equal(v->depth, 1);       /* history restarts at the table */
	assert_int_equal(view_cur(v)->kind, VIEW_TABLE);
	assert_non_null(strstr(view_node_name(v, v->rows[0]), "luaclib/skynet.so"));
	assert_int_equal(v->a->v[v->rows[0]].flat[AGG_INUSE_BYTES], 5264);
	assert_int_equal(view_total(v), 5296);
	assert_int_equal(view_gran_next(v), 0);
	assert_int_equal(v->cur_gran, 0);
	assert_non_null(strstr(view_node_name(v, v->rows[0]), "+0xb55d"));
}

static void test_fmt_and_history_cap(void **state)
{
	view *v = &((fx *)*state)->v;
	char b[32];
	assert_string_equal(view_fmt_value(b, sizeof(b), 32, 0), "32 B");
	assert_string_equal(view_fmt_value(b, sizeof(b), 2880, 0), "2.81 KiB");
	assert_string_equal(view_fmt_value(b, sizeof(b), 11848, 0), "11.6 KiB");
	assert_string_equal(view_fmt_value(b, sizeof(b), 150 << 20, 0), "150 MiB");
	assert_string_equal(view_fmt_value(b, sizeof(b), 3LL << 30, 0), "3.00 GiB");
	assert_string_equal(view_fmt_value(b, sizeof(b), -2048, 0), "-2.00 KiB");
	assert_string_equal(view_fmt_value(b, sizeof(b), 61, 1), "61");
	/* Re-centring back and forth 100 times keeps at most VIEW_HISTORY screens. */
	view_move_to(v, row_of(v, "+0x19599"));
	view_enter(v);
	for (int i = 0; i < 100; i++) {
		view_move_to(v, row_of(v, i % 2 ? "+0x19599" : "+0xb55d"));
		assert_int_equal(view_enter(v), 0);
	}
	assert_int_equal(v->depth, VIEW_HISTORY);
	assert_int_equal(v->hist[0].kind, VIEW_TABLE);
}

/* A profile with nothing at all, and one whose in-use total is zero. */
static void test_empty_profiles(void **state)
{
	(void)state;
	prof *p = prof_new();
	prof_nodemap m;
	agg a;
	view v;
	assert_int_equal(nodemap_by_address(&m, p), 0);
	assert_int_equal(agg_compute(&a, p, &m), 0);
	assert_int_equal(view_init(&v, p, &m, &a, "empty"), 0);
	assert_int_equal(view_nrows(&v), 0);
	assert_int_equal(view_move(&v, 1), -1);
	assert_int_equal(view_enter(&v), -1);
	assert_int_equal(view_toggle_alloc(&v), 0);
	assert_int_equal(view_open_tree(&v), 0);
	assert_int_equal(view_nrows(&v), 0);
	assert_int_equal(view_tree_heaviest(&v), 0);
	assert_int_equal(view_tree_expand(&v), -1);
	view_free(&v);
	agg_free(&a);
	nodemap_free(&m);
	prof_free(p);

	prof_error err;
	p = prof_load("test/data/test_mem_fixed.pro", &err);
	assert_non_null(p);
	nodemap_by_address(&m, p);
	agg_compute(&a, p, &m);
	view_init(&v, p, &m, &a, "fixed");
	assert_int_equal(view_total(&v), 32);   /* 1 object of 32 B left in use */
	assert_int_equal(v.a->v[v.rows[0]].flat[AGG_INUSE_BYTES], 32);
	view_toggle_alloc(&v);
	assert_int_equal(view_total(&v), 12696);
	view_free(&v);
	agg_free(&a);
	nodemap_free(&m);
	prof_free(p);

	/* Everything freed: in use is empty, alloc is not. */
	p = prof_new();
	uint32_t f0 = prof_frame_intern(p, 0x1000), f1 = prof_frame_intern(p, 0x2000);
	uint32_t st[] = { f0, f1 };
	prof_sample_add(p, prof_stack_add(p, st, 2), 16, 4, 64, 4, 64);
	nodemap_by_address(&m, p);
	agg_compute(&a, p, &m);
	view_init(&v, p, &m, &a, "freed");
	assert_int_equal(view_total(&v), 0);
	assert_int_equal(view_nrows(&v), 0);
	view_open_tree(&v);
	assert_int_equal(view_nrows(&v), 0);
	view_toggle_alloc(&v);
	assert_int_equal(view_nrows(&v), 1);
	assert_int_equal(view_tree_heaviest(&v), 0);
	assert_string_equal(view_node_name(&v, view_row_node(&v, view_cur(&v)->sel)), "0x1000");
	view_back(&v);
	assert_int_equal(view_nrows(&v), 2);
	assert_int_equal(view_total(&v), 64);
	view_free(&v);
	agg_free(&a);
	nodemap_free(&m);
	prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_initial_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_s_alloc_keeps_selection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_o_objects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keys_sort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keys_move, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_enter_peek, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peek_recursion_counts_edges_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_t_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_slash_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_hide, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keys_help_gran_later, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_g_swaps_map, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fmt_and_history_cap, setup, teardown),
		cmocka_unit_test(test_empty_profiles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
