/* strip.h - what the timeline strips of live mode and of recordings share
 * (strip.c): a column's buckets and its bar. */
#ifndef MPROF_TUI_STRIP_H
#define MPROF_TUI_STRIP_H

#include <stdint.h>

#include "tui/app_state.h"

/* The columns of a timeline strip: the buckets one holds for n to
 * fit width (their peak is drawn), and one column's bar, v of max, drawn
 * with at at the cursor. */
int64_t strip_per(int64_t n, int64_t width);
void strip_bar(app *a, int64_t v, int64_t max, attr_t at);

#endif
