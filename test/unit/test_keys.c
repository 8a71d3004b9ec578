/* test_keys.c - the TUI's keys onto the view's operations, on the skynet
 * dump test/data/test_mem.pro in a headless terminal (newterm on /dev/null,
 * as bench_tui draws): the help text lists every key of DESIGN.md, and the
 * status hints that name keys (they are the TUI's, not core's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg.h"
#include "core/load.h"
#include "tui/app.h"
#include "tui/chrome.h"
#include "tui/help.h"

typedef struct fx {
	prof *p;
	prof_nodemap m;
	agg ag;
	app a;
	FILE *out, *in;
	SCREEN *scr;
} fx;

static int setup(void **state)
{
	fx *f = calloc(1, sizeof(*f));
	prof_error err;
	if (!f || !(f->p = prof_load("test/data/test_mem.pro", &err)))
		return -1;
	if (nodemap_by_address(&f->m, f->p) || agg_compute(&f->ag, f->p, &f->m))
		return -1;
	f->out = fopen("/dev/null", "w");
	f->in = fopen("/dev/null", "r");
	f->scr = f->out && f->in ? newterm("xterm", f->out, f->in) : NULL;
	if (!f->scr) {
		fprintf(stderr, "test_keys: no headless terminal (terminfo 'xterm')\n");
		return -1;
	}
	set_term(f->scr);
	resize_term(24, 80);
	f->a.w = stdscr;
	chrome_init_attrs(&f->a);
	if (view_init(&f->a.v, f->p, &f->m, &f->ag, "test_mem.pro"))
		return -1;
	app_draw(&f->a);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fx *f = *state;
	app_free(&f->a);   /* the view, the source pane, the node info a screen drew */
	endwin();
	delscreen(f->scr);
	fclose(f->out);
	fclose(f->in);
	agg_free(&f->ag);
	nodemap_free(&f->m);
	prof_free(f->p);
	free(f);
	return 0;
}

/* One key as the event loop applies it, then a redraw. */
static view *key(fx *f, int k)
{
	app_key(&f->a, k);
	app_draw(&f->a);
	return &f->a.v;
}

static void help_lists_every_key(void **state)
{
	fx *f = *state;
	view *v = key(f, '?');
	assert_int_equal(view_cur(v)->kind, VIEW_HELP);
	assert_int_equal(view_nrows(v), help_count);
	/* Every key of DESIGN.md's table is listed. */
	const char *keys[] = { "s", "o", "d", "Enter", "Backspace", "Esc", "t", "g", "F", "C", "<", ">",
			       "/", "n", "N", "m", "p", "w", "?", "F1", "q", "r", "c", "*", "PgUp",
			       "PgDn", "Home", "End", "j", "k", "\\" };
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		int found = 0;
		for (size_t i = 0; i < help_count && !found; i++) {
			char buf[64];
			snprintf(buf, sizeof(buf), " %s ", help_lines[i].key);
			char want[16];
			snprintf(want, sizeof(want), " %s ", keys[k]);
			found = strstr(buf, want) != NULL;
		}
		if (!found)
			fail_msg("key %s not in help", keys[k]);
	}
	key(f, KEY_END);
	assert_int_equal(view_cur(v)->sel, help_count - 1);
	key(f, '?');   /* again: back */
	assert_int_equal(view_cur(v)->kind, VIEW_TABLE);
	key(f, KEY_F(1));
	assert_int_equal(view_cur(v)->kind, VIEW_HELP);
	key(f, 27);
	assert_int_equal(view_cur(v)->kind, VIEW_TABLE);
}

static void status_hints(void **state)
{
	fx *f = *state;
	view *v = key(f, 27);
	assert_string_equal(v->status, "already at the main table (q quits)");
	assert_int_equal(v->depth, 1);
	key(f, 'n');
	assert_string_equal(v->status, "no focus regex: press / first");
	key(f, 'N');
	assert_string_equal(v->status, "no focus regex: press / first");
	key(f, 'm');
	assert_string_equal(v->status, "'m' (snapshot): not available in this mode");
	key(f, 'p');
	assert_string_equal(v->status, "'p' (pause): not available in this mode");
	key(f, 'd');
	assert_non_null(strstr(v->status, "not available in this mode"));
	key(f, '@');
	assert_string_equal(v->status, "unknown key (press ? for help)");
	/* With a focus, n moves to the next match and says nothing. */
	assert_int_equal(view_filter_set(v, "skynet"), 0);
	size_t rows = view_nrows(v);
	assert_true(rows > 1);
	key(f, 'n');
	assert_string_equal(v->status, "");
	assert_int_equal(view_cur(v)->sel, 1);
	key(f, 'N');
	assert_int_equal(view_cur(v)->sel, 0);
	assert_int_equal(view_filters_clear(v), 0);
}

/* The screens' keys reach their operations; Esc goes back from each. */
static void screen_keys(void **state)
{
	fx *f = *state;
	view *v = key(f, KEY_HOME);
	uint32_t top = view_row_node(v, 0);
	key(f, '\n');
	assert_int_equal(view_cur(v)->kind, VIEW_PEEK);
	assert_int_equal(view_cur(v)->node, top);
	key(f, 't');
	assert_int_equal(view_cur(v)->kind, VIEW_TREE);
	size_t n = view_nrows(v);
	key(f, '*');
	assert_true(view_nrows(v) > n);
	key(f, 27);
	assert_int_equal(view_cur(v)->kind, VIEW_PEEK);
	key(f, 's');
	assert_int_equal(v->alloc, 1);
	key(f, 'o');
	assert_int_equal(v->objects, 1);
	key(f, 8);
	assert_int_equal(view_cur(v)->kind, VIEW_TABLE);
	key(f, 'C');
	assert_int_equal(v->sort, VIEW_SORT_CUM);
	key(f, '>');
	assert_int_equal(v->sort, VIEW_SORT_OBJS);
	key(f, 'F');
	assert_int_equal(v->sort, VIEW_SORT_FLAT);
	key(f, 's');
	key(f, 'o');
	assert_int_equal(v->alloc, 0);
	assert_int_equal(v->objects, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(help_lists_every_key),
		cmocka_unit_test(status_hints),
		cmocka_unit_test(screen_keys),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
