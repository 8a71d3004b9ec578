/* help.c - every key, from the view's own list. */
#include <string.h>

#include "tui/app.h"

static void help_draw(app *a)
{
	view *v = &a->v;
	view_screen *s = view_cur(v);
	int y = a->list_y - 1;
	wattrset(a->w, a->attr[ATTR_HEAD]);
	mvwhline(a->w, y, 0, ' ', a->wd);
	put_text(a, y, 0, a->wd, " key            action        (q, Esc, ? or Enter: back)", a->attr[ATTR_HEAD], 1);
	long n = (long)view_help_count;
	long top = scroll_lines(a, (long)s->sel, n, a->list_h);
	for (int i = 0; i < a->list_h && top + i < n; i++) {
		const view_help_line *h = &view_help_lines[top + i];
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
