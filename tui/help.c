/* help.c - the help screen: every key and what it does. The text is the
 * UI's own (core knows operations, not keys). */
#include <string.h>

#include "tui/app_state.h"
#include "tui/chrome.h"
#include "tui/help.h"

const help_line help_lines[] = {
	{ "", "Screens" },
	{ "Enter", "callers/callees of the selected row (re-centres on a caller/callee)" },
	{ "t", "top-down call tree from the outermost frames" },
	{ "l", "source pane: the row's inline chain (addr2line -Cif), its file with bytes per line" },
	{ "Backspace Esc", "back to the previous screen" },
	{ "q", "back from a sub-screen; quit from the main table" },
	{ "Q", "quit from anywhere" },
	{ "? F1", "this help" },
	{ "", "What is counted" },
	{ "s", "switch in use / alloc space" },
	{ "o", "switch bytes / objects" },
	{ "g", "granularity: the next of function, line, address, module (after the one opened with)" },
	{ "", "Two files (mprof-tui BASE NEW) and exports" },
	{ "d", "toggle the diff NEW - BASE on every screen (signed deltas, NEW/GONE marks)" },
	{ "e", "export the view: pprof, folded, skynet, native, or callgraph (a picture; the diff's when d is on)" },
	{ "", "Sorting (main table)" },
	{ "F", "sort by flat (the node is the leaf)" },
	{ "C", "sort by cum (the node is anywhere in the stack)" },
	{ "< >", "sort by the previous / next column: flat, cum, objects, name" },
	{ "r", "reverse the order" },
	{ "", "Filters (shown in the header)" },
	{ "/", "focus: table rows whose name matches a regex (smart case)" },
	{ "n N", "next / previous row matching the focus regex" },
	{ "\\ h", "hide frames matching a regex from every stack (pprof's hide)" },
	{ "c", "clear the focus and hide regexes" },
	{ "", "Call tree" },
	{ "Right +", "expand the selected node" },
	{ "Left -", "collapse it (or go to its parent)" },
	{ "*", "expand the heaviest path below the selected node" },
	{ "", "Moving" },
	{ "Up Down k j", "previous / next row" },
	{ "PgUp PgDn", "previous / next page" },
	{ "Home End", "first / last row" },
	{ "mouse", "wheel scrolls, click selects" },
	{ "", "Live mode (--attach PID, -- CMD) and writing" },
	{ "m", "take a snapshot (numbered, with its time and total)" },
	{ "d", "diff two snapshots (now counts as one): growth per row, NEW/GONE rows; d again closes" },
	{ "p", "pause / resume the updates" },
	{ "z Z", "strip: zoom in / out, 100 ms to 1 h a column (the newest at the right)" },
	{ "=", "strip: fit the whole run since the attach (the default)" },
	{ "w W", "write now, a snapshot (#N FILE) or the diff: native (w) or skynet v1 (W)" },
	{ "", "Recordings (mprof-tui DIR): every screen shows the heap at the cursor" },
	{ "Left Right", "move the cursor a 100 ms bucket (Shift-Left/Right in the tree)" },
	{ "{ }", "move ten buckets" },
	{ "[ ]", "previous / next local peak" },
	{ "P", "the run's peak" },
	{ "Home End", "the start / the end of the run (the last row: G)" },
	{ "m", "set the mark at the cursor" },
	{ "d", "growth from the mark to the cursor, NEW/GONE rows; d again closes" },
	{ "L", "allocations made between mark and cursor still alive at the end" },
	{ "T", "temporary allocations per stack, lifetime histogram of the row" },
	{ "", "Pages (--faults --attach PID): in use = resident now, alloc = every fault" },
	{ "v", "switch to the heap of the same process (under the hook) and back" },
	{ "w W", "write the profile on screen: native (w) or skynet v1 (W)" },
	{ "", "Marks in a diff (table, callers/callees, tree, source lines)" },
	{ "NEW", "nothing went through it in BASE, or at the earlier moment" },
	{ "GONE", "nothing goes through it in NEW; moments: all it held is freed" },
};
const size_t help_count = sizeof(help_lines) / sizeof(help_lines[0]);

static void help_draw(app *a)
{
	view *v = &a->v;
	view_screen *s = view_cur(v);
	int y = a->list_y - 1;
	wattrset(a->w, a->attr[ATTR_HEAD]);
	mvwhline(a->w, y, 0, ' ', a->wd);
	put_text(a, y, 0, a->wd, " key            action        (q, Esc, ? or Enter: back)", a->attr[ATTR_HEAD], 1);
	long n = (long)help_count;
	long top = scroll_lines(a, (long)s->sel, n, a->list_h);
	for (int i = 0; i < a->list_h && top + i < n; i++) {
		const help_line *h = &help_lines[top + i];
		int yy = a->list_y + i;
		line_set(a, yy, top + i);
		attr_t at = (size_t)(top + i) == s->sel ? a->attr[ATTR_SEL] : A_NORMAL;
		if (!h->key[0]) {
			put_text(a, yy, 0, a->wd, h->what, at | a->attr[ATTR_LABEL], 1);
			continue;
		}
		put_text(a, yy, 0, 16, "", at, 1);
		put_text(a, yy, 1, 14, h->key, at | A_BOLD, 1);
		put_text(a, yy, 16, a->wd - 16, h->what, at, 1);
	}
}

static int help_key(app *a, int key)
{
	switch (key) {
	case 'q': case '?': case KEY_F(1): view_back(&a->v); return REACT_REDRAW;
	}
	return REACT_UNHANDLED;
}

static int help_page(const app *a)
{
	return a->list_h;
}

static const keybar_item help_keys[] = {
	{ "Esc", "Back " }, { "Up/Dn", "Scroll " }, { "Q", "Quit " }, { NULL, NULL },
};

const screen_ops help_ops = { "Help", help_keys, help_draw, help_key, help_page };
