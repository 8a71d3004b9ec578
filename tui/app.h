/* app.h - what the screens share: the application state, the reactions a
 * key handler returns (applied in one place, app.c), the two ops tables (a
 * screen's: what is drawn; a mode's: where profiles come from) and the
 * drawing helpers of chrome.c.
 *
 * tui/ is presentation only, over core/'s views: main.c (the command line,
 * one function per mode), app.c (the event loop and reactions), screens
 * (table.c, tree.c, peek.c callers/callees, source.c, help.c), modes
 * (file_ui.c, filediff.c, live_ui.c, rec_ui.c + rec_main.c, faults_ui.c), what they
 * share (chrome.c, newmarks.c, nodeinfo.c), and the questions a user is
 * asked (write_ui.c, export_ui.c, inject_ui.c).  It owns no profile logic. */
#ifndef MPROF_TUI_APP_H
#define MPROF_TUI_APP_H

#include <curses.h>

#include "core/view.h"
#include "symbols/sym.h"

/* What a key handler asks for; app.c acts on it. No handler draws. */
enum {
	REACT_NONE = 0,
	REACT_REDRAW = 1,        /* the state changed: draw again */
	REACT_QUIT = 2,
	REACT_PROMPT_FOCUS = 4,  /* read a focus regex on the status line */
	REACT_PROMPT_HIDE = 8,   /* read a hide regex */
	REACT_UNHANDLED = 16,    /* not this screen's key: try the common keys */
	REACT_PROMPT = 32,       /* read the answer to a->ask and hand it to its callback */
	REACT_PROMPT_EXPORT = 64,/* read an export format and file name (e) */
};

/* Colour/attribute roles, set once from the terminal and NO_COLOR. */
enum { ATTR_TITLE, ATTR_HEAD, ATTR_SEL, ATTR_KEY, ATTR_KEYLABEL, ATTR_STATUS, ATTR_LABEL,
       ATTR_MATCH, ATTR_DIM, ATTR_N };

struct app;
struct mode_ops;
/* What a REACT_PROMPT reads: answer gets the line typed (never NULL: Esc
 * says "cancelled" instead), with arg and dflt as the asker left them. */
typedef struct app_ask {
	char lead[600];
	char dflt[512];
	int arg;
	void (*answer)(struct app *a, const char *text);
} app_ask;

typedef struct app {
	view v;
	WINDOW *w;
	int h, wd;               /* screen size */
	int list_y, list_h;      /* the scrolling list's first line and height */
	int *line_row;           /* per screen line: the row drawn there, or -1 */
	int line_row_n;
	int utf8;                /* the locale can show the box/arrow glyphs */
	attr_t attr[ATTR_N];
	const struct mode_ops *mode; /* where profiles come from; NULL: one file */
	void *mode_data;         /* the mode's own state, owned by it */
	struct sym *sy;          /* symbols over v.p, kept by the mode (NULL: raw names) */
	int gran_order[VIEW_MAX_GRAN]; /* sym_gran of each view granularity */
	struct source_pane *src; /* the source screen's text (source.c) */
	struct node_info *ni;    /* per node locations and inline edges (nodeinfo.c) */
	app_ask ask;             /* the question of the last REACT_PROMPT */
	int quit;                /* set by an answer: leave after the prompt */
} app;

/* A mode: where the profiles on screen come from and what it adds around
 * the screens (tmux's window_mode). Each mode file fills one; app.c calls
 * through it and never asks which mode it is in. A NULL hook: nothing. */
typedef struct mode_ops {
	const char *name;
	/* Polls the source; 1 when the screen must be drawn again. */
	int (*tick)(app *a);
	/* Milliseconds the loop may sleep before tick is due (NULL: 250). */
	int (*wait_ms)(const app *a);
	/* The mode's own keys, tried before the screen's; REACT_* flags,
	 * REACT_UNHANDLED for a key it leaves to the screen. */
	int (*key)(app *a, int key);
	/* Lines of the strip under the title, and its drawing. */
	int (*strip_height)(const app *a);
	void (*strip_draw)(app *a);
	/* Text for the right end of the status line. */
	const char *(*status_note)(const app *a);
	/* Where the source stands (pid, running, PAUSED, EXITED, DIFF ...):
	 * the title's start, so 80 columns keep it; the path stays last. */
	const char *(*title_state)(const app *a);
	/* The mode's own keys for the key bar, after the screen's first
	 * (help); NULL-terminated, or NULL. */
	const struct keybar_item *keys;
	/* A diff is on screen (values signed), and its NEW/GONE marks (read
	 * only while in_diff; owned by the mode). */
	int (*in_diff)(const app *a);
	struct new_marks *(*marks)(app *a);
	/* The path the default names of e start from (NULL: v.path). */
	const char *(*file_stem)(const app *a);
	/* Frees mode_data; the view is gone already. */
	void (*free)(app *a);
} mode_ops;

extern const mode_ops file_mode, filediff_mode, live_mode, rec_mode, faults_mode;

typedef struct keybar_item {
	const char *key, *label;
} keybar_item;

/* A screen: tig's view_ops, reduced to what a read-only screen needs. */
typedef struct screen_ops {
	const char *name;
	const keybar_item *keys;     /* NULL-terminated */
	/* Draws the column header at list_y - 1 and the rows in the list area,
	 * filling line_row. Must not change the view state but for scroll. */
	void (*draw)(app *a);
	/* Maps a key to a state change; returns REACT_* flags. */
	int (*key)(app *a, int key);
	/* List lines per page (for PgUp/PgDn). */
	int (*page)(const app *a);
} screen_ops;

extern const screen_ops table_ops, peek_ops, tree_ops, help_ops, source_ops;

/* help.c: the help screen's lines, every key and what it does (key "": a
 * heading). */
typedef struct help_line {
	const char *key, *what;
} help_line;
extern const help_line help_lines[];
extern const size_t help_count;

/* chrome.c: title, status line, key bar and the text helpers. */
void chrome_init_attrs(app *a);
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

/* strip.c: the timeline strips' columns: the buckets one holds for n to
 * fit width (their peak is drawn), and one column's bar, v of max, drawn
 * with at at the cursor. */
int64_t strip_per(int64_t n, int64_t width);
void strip_bar(app *a, int64_t v, int64_t max, attr_t at);

/* newmarks.c: the diff a mode shows and its NEW and GONE marks (enum
 * diff_mark, core/diff_marks.h).  Between two moments (live, recording):
 * d, a snap_delta result, and its SNAP_STACK_* flags per stack, both
 * owned.  Two files: newp, NEW's profile, borrowed. */
typedef struct new_marks {
	prof *d;                 /* owned: the diff shown, or NULL */
	uint8_t *flags;          /* owned: per stack of d */
	const prof *newp;        /* borrowed (two files) */
	unsigned gen;            /* bumped when d or the map under the view changes */
	uint8_t *node_mark;      /* owned: per node of map, built at gen built */
	const prof_nodemap *map;
	uint32_t n;
	unsigned built;
} new_marks;
/* Shows d with flags (owned from now on; either may be NULL), freeing the
 * previous ones. */
void newmarks_set(new_marks *nm, prof *d, uint8_t *flags);
/* The mark of node (of the map on screen): DIFF_MARK_NEW, _GONE or _NONE. */
int newmarks_node(new_marks *nm, const app *a, uint32_t node);
/* The marks of every node of m, another map over the profile on screen
 * (the source pane's lines), into out (m->nnodes bytes). 0, or -1 when
 * out of memory or no diff is known. */
int newmarks_map(const new_marks *nm, const app *a, const prof_nodemap *m, uint8_t *out);
/* Frees the diff and the marks. */
void newmarks_free(new_marks *nm);

/* app.c: the mode's answers: a diff is on screen (values are signed), a
 * node's mark in it (NEW: nothing at the earlier moment or in BASE; GONE:
 * nothing at the later moment or in NEW; as the mode defines them), and
 * the marks of another map's nodes (newmarks_map; -1 when not in a diff). */
int app_in_diff(const app *a);
int app_node_mark(app *a, uint32_t node);
int app_map_marks(app *a, const prof_nodemap *m, uint8_t *out);
/* The symbols over the profile on screen (NULL: raw names only). */
struct sym *app_sym(const app *a);
/* The view's granularities: first (the one its maps were built at), then,
 * with symbols, the other three; maps are built from app_sym(a). */
void app_set_grans(app *a, int first);
/* Opens the view over p (live or a recording's moment) at granularity
 * first, its map and aggregate built from app_sym(a) and owned by the
 * view, then app_set_grans. 0, or -1 when out of memory. */
int app_view_open(app *a, const prof *p, int first, const char *title);
/* Modules whose symbols could not be read, each once, and what their frames
 * show instead (then): one line each on stderr (batch reports), or the
 * first status line (the screens). */
void app_say_missing(struct sym *sy, const char *then);
void app_missing_status(app *a, const char *then);

/* filediff.c: two files, BASE and NEW, as a's mode (filediff_mode): d
 * toggles NEW - BASE on every screen; with open the diff is on from the
 * first tick (one that cannot be built says why on the status line). base
 * and the strings are borrowed. 0, or -1 when out of memory. */
int filediff_init(app *a, const prof *base, const char *base_path, const sym_opts *so, int open);

/* write_ui.c: w and W, the profile on screen written as native or skynet
 * v1: a default file name that does not exist yet (base.pro, base-2.pro,
 * ...), the save with its status line, and the prompt of the file modes. */
void write_ui_free_name(char *buf, size_t len, const char *base);
void write_ui_save(app *a, const prof *p, const char *file, int v1);
int write_ui_ask(app *a, int v1);

/* export_ui.c: e. The formats of export_parse, and "callgraph" (the
 * picture, a diff's when the diff is on); -1 if unknown. A default file
 * name for format f (does not exist yet) and the write of the view on
 * screen (its profile, granularity and metric). */
#define EXPORT_UI_CALLGRAPH 4
int export_ui_parse(const char *name);
const char *export_ui_default(const app *a, int f, char *buf, size_t len);
void export_ui_write(app *a, int f, const char *file);

/* source.c: l opens the source pane of the selected row (returns REACT_*);
 * source_free drops its text. */
int source_open(app *a);
void source_free(app *a);

/* nodeinfo.c: the source location row of the screen on top shows at
 * function granularity ("file.c:123", "" for none; frame and inline level
 * it comes from, may be NULL), for the metric on screen: a node's place
 * carrying the most of it; on the callers/callees screen, a caller's or a
 * callee's row shows its edge's call site (in the caller; in the centre).
 * And whether the edge inner -> outer (callee -> caller) is an inline one.
 * Cached per map, for every metric at once, until the profile or its
 * totals change (symbols/nodeloc.h, core/callgraph.h and
 * core/inline_edges.h compute them). */
const char *nodeinfo_row_loc(app *a, size_t row, uint32_t *frame, uint32_t *level);
int nodeinfo_inline_edge(app *a, uint32_t inner, uint32_t outer);
void nodeinfo_free(app *a);

/* app.c: milliseconds on the monotonic clock (the modes' refresh timers). */
int64_t app_mono_ms(void);
/* app.c: runs the UI over a (view and mode set up) on the terminal until
 * the user quits; restores the terminal. Returns the exit status. */
int app_run(app *a);
/* app.c: the one teardown of every mode: the view, the source pane, the
 * node info, the mode's state and the line map. */
void app_free(app *a);
/* app.c: asks lead on the status line; the answer goes to fn with arg and
 * dflt kept in a->ask. Returns REACT_PROMPT for the key handler to return. */
/* SIGINT, SIGTERM and SIGHUP end app_run (the terminal is restored, the
 * mode's free runs); installed early by a mode that must clean up after
 * them before the loop starts (a launched child). */
void app_signals_install(void);
int app_prompt(app *a, void (*fn)(app *a, const char *text), int arg, const char *dflt, const char *lead);

/* app.c: sizes the list to the terminal, draws everything once (erase, draw,
 * wnoutrefresh + doupdate: no flicker), and applies one key's reactions.
 * Exposed for the headless bench (newterm on /dev/null). */
const screen_ops *app_ops(const app *a);
void app_layout(app *a);
void app_draw(app *a);
int app_key(app *a, int key);

#endif
