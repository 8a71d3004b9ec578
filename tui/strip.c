/* strip.c - what the timeline strips of live mode and of recordings share:
 * how many buckets a column holds for a run to fit a width, and a column's
 * bar (eight heights, or ASCII without UTF-8). */
#include "tui/app_state.h"
#include "tui/strip.h"

int64_t strip_per(int64_t n, int64_t width)
{
	return width > 0 && n > width ? (n + width - 1) / width : 1;
}

void strip_bar(app *a, int64_t v, int64_t max, attr_t at)
{
	static const char *const bars[] = { " ", "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
					    "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88" };
	static const char ascii[] = " .:-=+*#@";
	int lvl = max > 0 && v > 0 ? (int)((v * 8 + max - 1) / max) : 0;
	if (lvl > 8)
		lvl = 8;
	wattrset(a->w, at);
	if (a->utf8)
		waddstr(a->w, bars[lvl]);
	else
		waddch(a->w, (chtype)ascii[lvl]);
}
