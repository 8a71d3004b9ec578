/* chrome.h - what surrounds every screen (chrome.c): the title lines, the
 * status line, the key bar and the colours, and the text helpers every
 * screen draws its rows with (cut with an ellipsis, right-aligned, the
 * header line, bytes and percentages, a row's label and NEW/GONE mark,
 * the line map a mouse click reads). */
#ifndef MPROF_TUI_CHROME_H
#define MPROF_TUI_CHROME_H

#include <stddef.h>
#include <stdint.h>

#include "tui/app_state.h"

/* The colour roles, set once from the terminal and NO_COLOR. */
void chrome_init_attrs(app *a);
/* The title lines, the status line and the key bar around what ops drew. */
void chrome_draw(app *a, const screen_ops *ops);
/* Draws s at (y, x) in at most width columns, cutting with an ellipsis;
 * pads with spaces to width when pad. Returns the columns used. */
int put_text(app *a, int y, int x, int width, const char *s, attr_t at, int pad);
/* Right-aligns s in width columns. */
void put_right(app *a, int y, int x, int width, const char *s, attr_t at);
/* A column of a list's header line: width, label, and whether the list is
 * sorted by it (bold, with the sort arrow in its last column). */
typedef struct head_col {
	int width;
	const char *label;
	int sorted;
} head_col;
/* The header line above the list: the n cells right-aligned one column
 * apart, then title over the rest of the line (title_attr added). */
void head_line(app *a, const head_col *cols, int n, const char *title, attr_t title_attr);
/* Formats v (bytes in human units, or a count) / a percentage of total. */
const char *fmt_val(char *buf, size_t len, int64_t v, int objects);
const char *fmt_pct(char *buf, size_t len, int64_t v, int64_t total);
/* Formats a growth with its sign ("+2.81 KiB", "-3", "0"). */
const char *fmt_delta(char *buf, size_t len, int64_t v, int objects);
/* The label of row (of the screen on top): its node's name and, at
 * function granularity, its place in the source ("name  file.c:12",
 * nodeinfo_row_loc). Returns buf or the name. */
const char *row_label(app *a, size_t row, char *buf, size_t len);
/* "NEW " or "GONE " (bold) at (y, x) when a diff is on screen and node is
 * marked so in it (app_node_mark); returns the columns used (0, 4 or 5). */
int put_diff_mark(app *a, int y, int x, uint32_t node, attr_t at);
/* The word of a mark with its space ("NEW ", "GONE "), "" for none. */
const char *diff_mark_word(int mark);
/* The same as the row shows it in width columns: unresolved frames as
 * "module+0xoffset", long C++ names cut inside their arguments. Returns buf. */
const char *row_label_fit(app *a, size_t row, int width, char *buf, size_t len);
/* The row at screen line y, or -1; and marks line y as showing row. */
void line_set(app *a, int y, long row);
/* Keeps the selection in view for a list whose row r is drawn on list line
 * line_of(r), in height lines; returns the first list line to draw. */
long scroll_lines(app *a, long sel_line, long nlines, long height);

#endif
