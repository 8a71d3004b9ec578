/* live_child.c - the life of the program live mode started (-- CMD): its
 * start under the hook, the question before q stops it (y stop, d detach
 * and leave it running), and at the end what became of it, said on stderr
 * with where its output went (or it is stopped).  Also the question before
 * q leaves a hook mprof-tui injected (d detach it, k keep it recording):
 * every quit question is one key on the screen, Esc stays. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach/inject/inject.h"
#include "attach/live/launch.h"
#include "core/path.h"
#include "tui/app.h"
#include "tui/live_ui.h"

/* Stops our child (-- CMD) when the user quits before it ends. */
void live_child_stop(live_ui *lv)
{
	if (lv->fu.f.child > 0 && lv->fu.f.child_status < 0)
		launch_stop(lv->fu.f.child, &lv->fu.f.child_status);
}

/* The answer to "stop it?": y (or Enter) stops the child, d leaves it
 * running, n stays. */
static void quit_answer(app *a, const char *text)
{
	live_ui *lv = LV(a);
	char c = text[0];
	if (c == 'y') {
		a->quit = 1;
	} else if (c == 'd') {
		lv->leave = 1;
		a->quit = 1;
	} else {
		snprintf(a->v.status, sizeof(a->v.status), "still following %s (pid %d)", lv->cmd, (int)lv->fu.f.child);
	}
}

/* The answer to "detach the hook we injected?": d takes it out after the
 * screen closes, k leaves it recording. */
static void unhook_answer(app *a, const char *text)
{
	LV(a)->unhook = text[0] == 'd';
	a->quit = 1;
}

/* q and Q: a program this session started is never stopped without asking;
 * q in a diff closes it first (it is "back" there). */
int live_quit_key(app *a, int key)
{
	live_ui *lv = LV(a);
	if (key == 'q' && a->v.depth > 1)
		return REACT_UNHANDLED;
	if (key == 'q' && lv->diff) {
		live_diff_close(a);
		return REACT_REDRAW;
	}
	char lead[sizeof(a->ask.lead)];
	int pid = lv->fu.f.pid;
	if (!lv->cmd && lv->late && !lv->fu.f.exited) {
		if (!inject_still_records(pid))
			return REACT_QUIT;
		snprintf(lead, sizeof(lead), "quit: the hook still records in pid %d: d detach it (its calls go to "
			 "libc again), k keep it recording: ", pid);
		return app_choose(a, unhook_answer, "dk", 0, lead) | REACT_REDRAW;
	}
	if (!lv->cmd || lv->fu.f.child <= 0 || lv->fu.f.child_status >= 0 || lv->fu.f.exited)
		return REACT_QUIT;
	snprintf(lead, sizeof(lead), "quit: stop %.40s (pid %d)? y stop, d detach (it runs on), n stay [y]: ",
		 path_base(lv->cmd), (int)lv->fu.f.child);
	return app_choose(a, quit_answer, "ydn", 'y', lead) | REACT_REDRAW;
}

/* "; profile written to FILE" once the child ended (or that none was),
 * "" when MPROF_OUT from the environment names it. */
static void dump_said(const live_ui *lv, int running, char *buf, size_t len)
{
	if (!lv->dump[0])
		buf[0] = 0;
	else if (running)
		snprintf(buf, len, "; its profile goes to %s when it exits", lv->dump);
	else if (!access(lv->dump, R_OK))
		snprintf(buf, len, "; profile written to %s", lv->dump);
	else
		snprintf(buf, len, "; no profile was written to %s", lv->dump);
}

/* Says how a -- CMD child ended, or stops it when it still runs (asked
 * to detach: leaves it running, and says where to follow it again). */
void live_child_end(live_ui *lv)
{
	char said[600], pro[4200];
	/* Seen exiting (the hook's mark) but not yet reaped: it is ending, give it a second. */
	for (int i = 0; i < 100 && lv->fu.f.exited && lv->fu.f.child > 0 && lv->fu.f.child_status < 0; i++) {
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
		follow_check_exit(&lv->fu.f);
	}
	if (lv->cmd && lv->ran && lv->fu.f.child_status < 0 && lv->leave) {
		dump_said(lv, 1, pro, sizeof(pro));
		fprintf(stderr, "mprof-tui: left %s (pid %d) running under the hook; its output is in %s; "
			"mprof-tui --attach %d follows it again%s\n", lv->cmd, (int)lv->fu.f.child, lv->out,
			(int)lv->fu.f.child, pro);
	} else if (lv->cmd && lv->ran && lv->fu.f.child_status < 0) {
		live_child_stop(lv);
		launch_out_settle(lv->out, said, sizeof(said));
		dump_said(lv, 0, pro, sizeof(pro));
		fprintf(stderr, "mprof-tui: stopped %s (pid %d); %s%s\n", lv->cmd, (int)lv->fu.f.child, said, pro);
	} else if (lv->cmd && lv->ran) {
		launch_out_settle(lv->out, said, sizeof(said));
		dump_said(lv, 0, pro, sizeof(pro));
		fprintf(stderr, "mprof-tui: %s (pid %d) ended; %s%s\n", lv->cmd, (int)lv->fu.f.child, said, pro);
	} else if (lv->cmd) {
		live_child_stop(lv);
		launch_out_settle(lv->out, said, sizeof(said));
	}
}

/* Where a launch's profile goes: -o FILE, MPROF_OUT's own (NULL: left to
 * the environment, lv->dump ""), else mprof.PROG.%p.pro in the current
 * directory, or in TMPDIR when that is not writable; absolute, as the
 * program may change directory. */
static const char *dump_pattern(live_ui *lv, const tui_live_opts *o, char *buf, size_t len)
{
	char dir[2048];   /* leaves room in buf for the name */
	if (o->out && o->out[0] == '/') {
		snprintf(buf, len, "%s", o->out);
	} else if (o->out) {
		if (!getcwd(dir, sizeof(dir)))
			snprintf(dir, sizeof(dir), ".");
		snprintf(buf, len, "%s/%s", dir, o->out);
	} else if (getenv("MPROF_OUT") && *getenv("MPROF_OUT")) {
		lv->dump[0] = 0;
		return NULL;
	} else {
		const char *tmp = getenv("TMPDIR");
		if (!getcwd(dir, sizeof(dir)) || access(dir, W_OK))
			snprintf(dir, sizeof(dir), "%s", tmp && *tmp ? tmp : "/tmp");
		launch_dump_name(buf, len, dir, o->argv[0], "%p");
	}
	return buf;
}

/* The pattern with each %p the child's pid, as its hook reads MPROF_OUT. */
static void dump_resolve(live_ui *lv, const char *pat, pid_t pid)
{
	size_t k = 0;
	for (const char *s = pat; *s && k + 16 < sizeof(lv->dump); s++) {
		if (s[0] == '%' && s[1] == 'p') {
			k += (size_t)snprintf(lv->dump + k, sizeof(lv->dump) - k, "%d", (int)pid);
			s++;
		} else {
			lv->dump[k++] = *s;
		}
	}
	lv->dump[k] = 0;
}

/* A launch that ended before its screen was up, said as what: with its
 * profile there, o->ended gets it and TUI_LIVE_ENDED; else 0. */
static int ended_early(live_ui *lv, const tui_live_opts *o, const char *what)
{
	if (!lv->dump[0] || !o->ended || access(lv->dump, R_OK))
		return 0;
	snprintf(o->ended, o->ended_len, "%s", lv->dump);
	fprintf(stderr, "mprof-tui: %s; profile written to %s\n", what, lv->dump);
	return TUI_LIVE_ENDED;
}

/* -- CMD: started under the hook, Ctrl-C from then on stopping it too;
 * 2 (said on stderr) when it could not be, TUI_LIVE_ENDED when it ended
 * before its segment was seen and left its profile (path in o->ended). */
int live_child_start(live_ui *lv, const tui_live_opts *o, const char *lib, int have_lib, prof_error *err, pid_t *pid)
{
	if (!have_lib) {
		fprintf(stderr, "mprof-tui: %s\n", err->msg);
		return 2;
	}
	app_signals_install();   /* Ctrl-C from here on stops the child too */
	char pat[4096];
	const char *dump = dump_pattern(lv, o, pat, sizeof(pat));
	int early;
	if (launch_start(o->argv, lib, dump, lv->out, sizeof(lv->out), 5000, pid, &early, err)) {
		if (dump)
			dump_resolve(lv, dump, *pid);
		if (early >= 0 && ended_early(lv, o, err->msg))
			return TUI_LIVE_ENDED;
		fprintf(stderr, "mprof-tui: %s\n", err->msg);
		return 2;
	}
	if (dump)
		dump_resolve(lv, dump, *pid);
	return 0;
}

/* -- CMD whose segment went between the launch seeing it and the screen
 * opening it: the program ended meanwhile (its hook removes the segment at
 * exit). Reaped within a second, with its profile there: TUI_LIVE_ENDED
 * as live_child_start; else 0 (the caller says why and stops it). */
int live_child_gone(live_ui *lv, const tui_live_opts *o, pid_t pid)
{
	int st;
	if (!launch_reap(pid, 1000, &st) || !lv->dump[0] || access(lv->dump, R_OK))
		return 0;
	char said[600], what[900];
	launch_out_settle(lv->out, said, sizeof(said));
	snprintf(what, sizeof(what), "%.200s exited (%s %d) before its screen was up; %s", o->argv[0],
		 WIFEXITED(st) ? "status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), said);
	return ended_early(lv, o, what);
}
