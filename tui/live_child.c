/* live_child.c - the life of the program live mode started (-- CMD): its
 * start under the hook, the question before q stops it (y stop, d detach
 * and leave it running), and at the end what became of it, said on stderr
 * with where its output went (or it is stopped).  Also the question before
 * q leaves a hook mprof-tui injected (d detach it, k keep it recording):
 * every quit question is one key on the screen, Esc stays. */
#include <stdio.h>
#include <time.h>

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

/* Says how a -- CMD child ended, or stops it when it still runs (asked
 * to detach: leaves it running, and says where to follow it again). */
void live_child_end(live_ui *lv)
{
	char said[600];
	/* Seen exiting (the hook's mark) but not yet reaped: it is ending, give it a second. */
	for (int i = 0; i < 100 && lv->fu.f.exited && lv->fu.f.child > 0 && lv->fu.f.child_status < 0; i++) {
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
		follow_check_exit(&lv->fu.f);
	}
	if (lv->cmd && lv->ran && lv->fu.f.child_status < 0 && lv->leave) {
		fprintf(stderr, "mprof-tui: left %s (pid %d) running under the hook; its output is in %s; "
			"mprof-tui --attach %d follows it again\n", lv->cmd, (int)lv->fu.f.child, lv->out, (int)lv->fu.f.child);
	} else if (lv->cmd && lv->ran && lv->fu.f.child_status < 0) {
		live_child_stop(lv);
		launch_out_settle(lv->out, said, sizeof(said));
		fprintf(stderr, "mprof-tui: stopped %s (pid %d); %s\n", lv->cmd, (int)lv->fu.f.child, said);
	} else if (lv->cmd && lv->ran) {
		launch_out_settle(lv->out, said, sizeof(said));
		fprintf(stderr, "mprof-tui: %s (pid %d) ended; %s\n", lv->cmd, (int)lv->fu.f.child, said);
	} else if (lv->cmd) {
		live_child_stop(lv);
		launch_out_settle(lv->out, said, sizeof(said));
	}
}

/* -- CMD: started under the hook, Ctrl-C from then on stopping it too;
 * 2 (said on stderr) when it could not be. */
int live_child_start(live_ui *lv, char *const *argv, const char *lib, int have_lib, prof_error *err, pid_t *pid)
{
	if (!have_lib) {
		fprintf(stderr, "mprof-tui: %s\n", err->msg);
		return 2;
	}
	app_signals_install();   /* Ctrl-C from here on stops the child too */
	if (launch_start(argv, lib, lv->out, sizeof(lv->out), 5000, pid, err)) {
		fprintf(stderr, "mprof-tui: %s\n", err->msg);
		return 2;
	}
	return 0;
}
