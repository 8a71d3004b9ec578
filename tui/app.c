/* app.c - the terminal's life cycle and the one event loop: read a key, let
 * the mode and then the screen on top map it to a state change (the keys
 * every screen shares are here), apply the reactions (redraw; read a line
 * on the status line for the focus, hide and export prompts and the ask
 * line's question; quit), lay out and draw. The terminal is restored on
 * quit, on SIGINT/SIGTERM/SIGHUP, on a fatal error and, best effort, on a
 * crash. */
#include <ctype.h>
#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "tui/app.h"
#include "tui/ask.h"
#include "tui/chrome.h"
#include "tui/export_ui.h"
#include "tui/help.h"
#include "tui/nodeinfo.h"
#include "tui/source.h"
#include "tui/write_ui.h"

static volatile sig_atomic_t got_signal;

static int curses_on;

static void on_signal(int sig)
{
	got_signal = sig;
}

/* A crash: give the terminal back, then die of the same signal. */
static void on_crash(int sig)
{
	if (curses_on)
		endwin();
	raise(sig);
}

static void restore_terminal(void)
{
	if (curses_on && !isendwin())
		endwin();
	curses_on = 0;
}

const screen_ops *app_ops(const app *a)
{
	switch (a->v.hist[a->v.depth - 1].kind) {
	case VIEW_PEEK: return &peek_ops;
	case VIEW_TREE: return &tree_ops;
	case VIEW_HELP: return &help_ops;
	case VIEW_SOURCE: return &source_ops;
	default: return &table_ops;
	}
}

void app_layout(app *a)
{
	getmaxyx(a->w, a->h, a->wd);
	const mode_ops *mo = app_mode(a);
	int strip = mo->strip_height ? mo->strip_height(a) : 0;   /* the timeline, under the title */
	a->list_y = 3 + strip;
	a->list_h = a->h - 5 - strip;   /* 2 title lines, column header, status, key bar */
	if (a->list_h < 1)
		a->list_h = 1;
	if (a->line_row_n < a->h) {
		int *lr = realloc(a->line_row, (size_t)a->h * sizeof(int));
		if (lr) {
			a->line_row = lr;
			a->line_row_n = a->h;
		}
	}
	int page = app_ops(a)->page(a);
	a->v.page = page > 0 ? (size_t)page : 1;
}

void app_draw(app *a)
{
	/* A diff's table: the biggest change first, whichever mode diffs. */
	view_sort_by_change(&a->v, app_in_diff(a));
	app_layout(a);
	for (int i = 0; i < a->line_row_n; i++)
		a->line_row[i] = -1;
	werase(a->w);
	if (a->h < 6 || a->wd < 30) {
		put_text(a, 0, 0, a->wd, "terminal too small for mprof-tui (needs 30x6); q quits", A_BOLD, 0);
	} else {
		const screen_ops *ops = app_ops(a);
		ops->draw(a);
		chrome_draw(a, ops);
		if (app_mode(a)->strip_draw)
			app_mode(a)->strip_draw(a);
	}
	wnoutrefresh(a->w);
	doupdate();
}

static void mouse_key(app *a)
{
	MEVENT ev;
	if (getmouse(&ev) != OK)
		return;
	if (ev.bstate & BUTTON4_PRESSED) {
		view_move(&a->v, -3);
		return;
	}
#ifdef BUTTON5_PRESSED
	if (ev.bstate & BUTTON5_PRESSED) {
		view_move(&a->v, 3);
		return;
	}
#endif
	if (ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_RELEASED | BUTTON1_DOUBLE_CLICKED)) {
		if (ev.y < 0 || ev.y >= a->line_row_n || a->line_row[ev.y] < 0)
			return;
		view_move_to(&a->v, (size_t)a->line_row[ev.y]);
		if (ev.bstate & BUTTON1_DOUBLE_CLICKED)
			view_enter(&a->v);
	}
}

/* A key whose mode is not the one on screen (m, p). */
static void key_unavailable(view *v, int key)
{
	const char *what = key == 'm' ? "snapshot" : key == 'p' ? "pause" : "this key";
	snprintf(v->status, sizeof(v->status), "'%c' (%s): not available in this mode", key, what);
}

/* The keys every screen shares. */
static int common_key(app *a, int key)
{
	view *v = &a->v;
	switch (key) {
	case KEY_UP: case 'k': view_move(v, -1); break;
	case KEY_DOWN: case 'j': view_move(v, 1); break;
	case KEY_PPAGE: view_page(v, -1); break;
	case KEY_NPAGE: case ' ': view_page(v, 1); break;
	case KEY_HOME: view_move_to(v, 0); break;
	case KEY_END: case 'G': view_move_to(v, SIZE_MAX); break;
	case 's': view_toggle_alloc(v); break;
	case 'o': view_toggle_objects(v); break;
	case 't': view_open_tree(v); break;
	case 'g': view_gran_next(v); break;
	case 'F': view_sort_by(v, VIEW_SORT_FLAT); break;
	case 'C': view_sort_by(v, VIEW_SORT_CUM); break;
	case '<': case '>': view_sort_step(v, key == '<' ? -1 : 1); break;
	case 'r': view_sort_reverse(v); break;
	case '/': return REACT_PROMPT_FOCUS;
	case '\\': case 'h': return REACT_PROMPT_HIDE;
	case 'c': view_filters_clear(v); break;
	case 'n': case 'N':
		if (!filter_active(&v->focus))   /* the hint names the key that sets one */
			snprintf(v->status, sizeof(v->status), "no focus regex: press / first");
		else
			view_next_match(v, key == 'n' ? 1 : -1);
		break;
	case '?': case KEY_F(1): view_help(v, help_count); break;
	case '\n': case '\r': case KEY_ENTER: view_enter(v); break;
	case 27: case KEY_BACKSPACE: case 127: case 8:
		if (v->depth <= 1)   /* the hint names the key that quits from here */
			snprintf(v->status, sizeof(v->status), "already at the main table (q quits)");
		else
			view_back(v);
		break;
	case 'q':
		if (v->depth > 1) {
			view_back(v);
			break;
		}
		return REACT_QUIT;
	case 'Q': return REACT_QUIT;
	/* Keys a mode takes for itself; here, where it did not. */
	case 'd':
		snprintf(v->status, sizeof(v->status),
			 "'d' (diff): not available in this mode: give two files (mprof-tui BASE NEW)");
		break;
	case 'm': case 'p': key_unavailable(v, key); break;
	case 'w': case 'W': return write_ui_ask(a, key == 'W') | REACT_REDRAW;
	case 'e': return REACT_PROMPT_EXPORT | REACT_REDRAW;
	case 'l': return source_open(a) | REACT_REDRAW;
	case KEY_MOUSE: mouse_key(a); break;
	case KEY_RESIZE: break;
	default:
		snprintf(v->status, sizeof(v->status), "unknown key (press ? for help)");
		break;
	}
	return REACT_REDRAW;
}

int app_key(app *a, int key)
{
	if (key != KEY_RESIZE)   /* a resize is no answer to the last message: it stays */
		a->v.status[0] = 0;
	const mode_ops *mo = app_mode(a);
	int r = mo->key ? mo->key(a, key) : REACT_UNHANDLED;   /* the mode's keys first */
	if (!(r & REACT_UNHANDLED))
		return r;
	r = app_ops(a)->key(a, key);
	if (r & REACT_UNHANDLED)
		r = common_key(a, key);
	return r;
}

/* Reads one line on the status line; NULL when cancelled with Esc.
 * The caller frees the result. */
static char *prompt(app *a, const char *lead)
{
	char buf[256] = "";
	size_t len = 0;
	curs_set(1);
	for (;;) {
		int y = a->h - 2;
		char line[300];
		snprintf(line, sizeof(line), "%s%s", lead, buf);
		put_text(a, y, 0, a->wd, line, A_BOLD, 1);
		int cx = (int)(strlen(lead) + mbstowcs(NULL, buf, 0));
		wmove(a->w, y, cx < a->wd ? cx : a->wd - 1);
		wnoutrefresh(a->w);
		doupdate();
		wint_t c;
		int rc = wget_wch(a->w, &c);
		if (got_signal) {
			curs_set(0);
			return NULL;
		}
		if (rc == ERR)
			continue;
		if (rc == KEY_CODE_YES) {
			if (c == KEY_ENTER)
				break;
			if (c == KEY_BACKSPACE)
				goto backspace;
			if (c == KEY_RESIZE)
				app_draw(a);
			continue;
		}
		if (c == '\n' || c == '\r')
			break;
		if (c == 27) {
			curs_set(0);
			return NULL;
		}
		if (c == 127 || c == 8) {
backspace:
			while (len > 0 && ((unsigned char)buf[len - 1] & 0xc0) == 0x80)
				len--;   /* UTF-8 continuation bytes */
			if (len > 0)
				len--;
			buf[len] = 0;
			continue;
		}
		if (c == 21) {   /* Ctrl-U */
			len = 0;
			buf[0] = 0;
			continue;
		}
		if (c < 32)
			continue;
		char mb[MB_LEN_MAX];
		mbstate_t st;
		memset(&st, 0, sizeof(st));
		size_t n = wcrtomb(mb, (wchar_t)c, &st);
		if (n == (size_t)-1 || len + n >= sizeof(buf))
			continue;
		memcpy(buf + len, mb, n);
		len += n;
		buf[len] = 0;
	}
	curs_set(0);
	return strdup(buf);
}

/* Reads one key of a->ask.keys on the status line (see app_choose): the
 * key, or 0 when cancelled with Esc. */
static int choose(app *a)
{
	const char *lead = a->ask.lead;
	int again = 0;
	for (;;) {
		char line[700];
		snprintf(line, sizeof(line), "%s%s", again ? "(one key, Esc cancels) " : "", lead);
		put_text(a, a->h - 2, 0, a->wd, line, A_BOLD, 1);
		wnoutrefresh(a->w);
		doupdate();
		int c = wgetch(a->w);
		if (got_signal || c == 27)
			return 0;
		if (c == ERR || c == KEY_RESIZE) {
			if (c == KEY_RESIZE)
				app_draw(a);
			continue;
		}
		if ((c == '\n' || c == '\r' || c == KEY_ENTER) && a->ask.dflt[0])
			return a->ask.dflt[0];
		if (c > 0 && c < 128 && strchr(a->ask.keys, tolower(c)))
			return tolower(c);
		again = 1;
	}
}

static void apply_prompts(app *a, int r)
{
	if (r & REACT_PROMPT_FOCUS) {
		char *re = prompt(a, "focus regex (empty clears): /");
		if (re)
			view_filter_set(&a->v, re);
		free(re);
	}
	if (r & REACT_PROMPT_HIDE) {
		char *re = prompt(a, "hide frames matching (empty clears): \\");
		if (re)
			view_hide_set(&a->v, re);
		free(re);
	}
	if ((r & REACT_PROMPT) && a->ask.answer) {
		void (*fn)(app *, const char *) = a->ask.answer;
		a->ask.answer = NULL;   /* asked once */
		char key[2] = { 0, 0 }, *line = NULL;   /* a choice's key, or a line (freed here) */
		if (a->ask.keys[0])
			key[0] = (char)choose(a);
		else
			line = prompt(a, a->ask.lead);
		const char *ans = line ? line : key[0] ? key : NULL;
		if (ans)
			fn(a, ans);
		else
			snprintf(a->v.status, sizeof(a->v.status), "cancelled");
		free(line);
	}
	if (r & REACT_PROMPT_EXPORT) {
		char *fmt = prompt(a, "export as pprof, folded, skynet, native or callgraph [folded]: ");
		if (!fmt) {
			snprintf(a->v.status, sizeof(a->v.status), "export cancelled");
			return;
		}
		int f = export_ui_parse(*fmt ? fmt : "folded");
		if (f < 0) {
			snprintf(a->v.status, sizeof(a->v.status),
				 "export: '%.60s' is not pprof, folded, skynet, native or callgraph", fmt);
			free(fmt);
			return;
		}
		free(fmt);
		char dflt[300], lead[400];
		export_ui_default(a, f, dflt, sizeof(dflt));
		snprintf(lead, sizeof(lead), "export to file [%s]: ", dflt);
		char *file = prompt(a, lead);
		if (!file)
			snprintf(a->v.status, sizeof(a->v.status), "export cancelled");
		else
			export_ui_write(a, f, *file ? file : dflt);
		free(file);
	}
}

void app_free(app *a)
{
	view_free(&a->v);
	source_free(a);
	nodeinfo_free(a);
	if (app_mode(a)->free)
		app_mode(a)->free(a);
	a->mode = NULL;
	a->mode_data = NULL;
	free(a->line_row);
	a->line_row = NULL;
	a->line_row_n = 0;
}

void app_signals_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
}

int app_run(app *a)
{
	setlocale(LC_ALL, "");
	const char *cs = nl_langinfo(CODESET);
	a->utf8 = cs && !strcmp(cs, "UTF-8");
	atexit(restore_terminal);
	app_signals_install();
	set_escdelay(25);
	if (!initscr()) {
		fprintf(stderr, "mprof-tui: cannot open the terminal\n");
		return 1;
	}
	curses_on = 1;
	a->w = stdscr;
	cbreak();   /* not raw: Ctrl-C stays a signal, handled below */
	noecho();
	nonl();
	keypad(a->w, TRUE);
	curs_set(0);
	mousemask(BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
		  | BUTTON5_PRESSED
#endif
		  , NULL);
	mouseinterval(200);
	chrome_init_attrs(a);

	int rc = 0, dirty = 1;
	while (!got_signal) {
		/* A live mode polls its process between keys; a file just
		 * waits, waking now and then to notice a signal. */
		const mode_ops *mo = app_mode(a);
		if (mo->tick && mo->tick(a))
			dirty = 1;
		if (dirty)
			app_draw(a);
		dirty = 0;
		wtimeout(a->w, mo->wait_ms ? mo->wait_ms(a) : 250);
		wint_t c;
		int k = wget_wch(a->w, &c);
		if (k == ERR)
			continue;
		int key = k == KEY_CODE_YES ? (int)c : (c < 256 ? (int)c : -1);
		if (key < 0)
			continue;
		int r = app_key(a, key);
		if (r & REACT_QUIT)
			break;
		apply_prompts(a, r);
		if (a->quit)
			break;
		dirty = 1;
	}
	restore_terminal();
	if (got_signal)
		rc = 128 + got_signal;
	return rc;
}
