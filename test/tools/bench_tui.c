/* bench_tui FILE - time from a key to the redrawn screen for s, o, a re-sort
 * (C) and Enter on the top row: the key goes through the TUI's own handler
 * (app_key: state change in core) and the screen is drawn into a headless
 * ncurses terminal (newterm on /dev/null), the same code that draws on a tty. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/agg.h"
#include "core/load.h"
#include "tui/app.h"

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
		double ms = timed_key(&a, steps[i].key);
		if (ms > worst)
			worst = ms;
		printf("%-24s %7.1f ms  (target < 100 ms)%s\n", steps[i].what, ms, a.v.status[0] ? "  status: " : "");
		if (a.v.status[0])
			printf("    %s\n", a.v.status);
	}
	printf("worst key %.1f ms (target < 100 ms)\n", worst);
	view_free(&a.v);
	free(a.line_row);
	endwin();
	delscreen(scr);
	agg_free(&ag);
	nodemap_free(&m);
	prof_free(p);
	return 0;
}
