/* app_state.h - what every screen, mode and helper of tui/ reads and
 * writes: the application state (struct app), the reactions a key handler
 * returns (applied in one place, app.c), the colour roles, the two ops
 * tables (a screen's: what is drawn; a mode's: where profiles come from)
 * and the tables that fill them, and the questions asked of the state
 * through its mode (app_state.c): which mode, which symbols, whether a diff
 * is on screen and a node's mark in it. Types and queries only: nothing
 * here calls up into the event loop. */
#ifndef MPROF_TUI_APP_STATE_H
#define MPROF_TUI_APP_STATE_H

#include <curses.h>

#include "core/view.h"
#include "symbols/sym.h"
#include "tui/ask.h"

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

struct mode_ops;
struct new_marks;

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

/* The mode of a; a bare app (the headless bench) gets one with no hooks. */
const mode_ops *app_mode(const app *a);
/* The mode's answers: a diff is on screen (values are signed), a
 * node's mark in it (NEW: nothing at the earlier moment or in BASE; GONE:
 * nothing at the later moment or in NEW; as the mode defines them), and
 * the marks of another map's nodes (newmarks_map; -1 when not in a diff). */
int app_in_diff(const app *a);
int app_node_mark(app *a, uint32_t node);
int app_map_marks(app *a, const prof_nodemap *m, uint8_t *out);
/* The symbols over the profile on screen (NULL: raw names only). */
struct sym *app_sym(const app *a);

#endif
