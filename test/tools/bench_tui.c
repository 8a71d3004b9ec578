/* bench_tui FILE - time from a key to the redrawn screen for s, o, a re-sort
 * (C), Enter on the top row, the tree, and the focus (/) and hide (\\)
 * filters: the key goes through the TUI's own handler (app_key: state
 * change in core; for / and \\ what the prompt calls with the pattern
 * typed) and the screen is drawn into a headless ncurses terminal (newterm
 * on /dev/null), the same code that draws on a tty. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/agg.h"
#include "core/load.h"
#include "tui/app.h"
#include "tui/chrome.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One key: handler + redraw; returns milliseconds. */
static double timed_key(app *a, int key)
{
	double t0 = now();
	app_key(a, key);
	app_draw(a);
	return (now() - t0) * 1e3;
}

/* A prompt's pattern applied (as app.c does on Enter) + redraw. */
static double timed_filter(app *a, int (*set)(view *, const char *), const char *re)
{
	double t0 = now();
	if (set(&a->v, re))
		fprintf(stderr, "bench_tui: pattern %s refused\n", re);
	app_draw(a);
	return (now() - t0) * 1e3;
}

static void report(const char *what, double ms, const app *a, double *worst)
{
	if (ms > *worst)
		*worst = ms;
	printf("%-24s %7.1f ms  (target < 50 ms)%s\n", what, ms, a->v.status[0] ? "  status: " : "");
	if (a->v.status[0])
		printf("    %s\n", a->v.status);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bench_tui FILE\n");
		return 2;
	}
	prof_error err;
	double t0 = now();
	prof *p = prof_load(argv[1], &err);
	if (!p) {
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	prof_nodemap m;
	agg ag;
	if (nodemap_by_address(&m, p) || agg_compute(&ag, p, &m))
		return 1;
	double t1 = now();
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	SCREEN *scr = out && in ? newterm("xterm", out, in) : NULL;
	if (!scr) {
		fprintf(stderr, "bench_tui: no headless terminal (terminfo 'xterm')\n");
		return 1;
	}
	set_term(scr);
	resize_term(50, 160);
	static app a;
	a.w = stdscr;
	chrome_init_attrs(&a);
	if (view_init(&a.v, p, &m, &ag, argv[1]))
		return 1;
	double t2 = now();
	app_draw(&a);
	double first = (now() - t2) * 1e3;
	printf("%zu samples, %u nodes; load+agg %.0f ms; first draw %.1f ms\n", p->samples.len, m.nnodes,
	       (t1 - t0) * 1e3, first);
	struct { const char *what; int key; } steps[] = {
		{ "s (inuse -> alloc)", 's' }, { "s (alloc -> inuse)", 's' },
		{ "o (bytes -> objects)", 'o' }, { "o (objects -> bytes)", 'o' },
		{ "C (re-sort by cum)", 'C' }, { "F (re-sort by flat)", 'F' },
		{ "Enter on the top row", '\n' }, { "s in callers/callees", 's' },
		{ "Esc (back)", 27 }, { "t (call tree)", 't' }, { "* (heaviest path)", '*' },
	};
	double worst = 0;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (steps[i].key == '\n')
			app_key(&a, KEY_HOME);
		report(steps[i].what, timed_key(&a, steps[i].key), &a, &worst);
	}
	app_key(&a, 27);
	/* Names are func_N: about a tenth of them match func_.*7$. */
	report("/ focus func_.*7$", timed_filter(&a, view_filter_set, "func_.*7\\+"), &a, &worst);
	report("c (clear filters)", timed_key(&a, 'c'), &a, &worst);
	report("\\ hide func_.*7$", timed_filter(&a, view_hide_set, "func_.*7\\+"), &a, &worst);
	report("c (clear filters)", timed_key(&a, 'c'), &a, &worst);
	printf("worst key %.1f ms (target < 50 ms)\n", worst);
	view_free(&a.v);
	free(a.line_row);
	endwin();
	delscreen(scr);
	agg_free(&ag);
	nodemap_free(&m);
	prof_free(p);
	return 0;
}
