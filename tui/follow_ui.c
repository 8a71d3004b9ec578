/* follow_ui.c - what the heap view (live mode) and the pages view (--faults)
 * share in following a live process: the refresh interval and its ticks,
 * the drain and sync of the hook's segment with its symbols reopened as
 * frames arrive (from the module table once the process is gone), the
 * command line of the title and the process's state (running, PAUSED,
 * EXITED with our child's status). Each view keeps what only it does. */
#include <stdio.h>
#include <sys/wait.h>

#include "tui/follow_ui.h"
#include "tui/clock.h"

void follow_ui_init(follow_ui *fu, const tui_live_opts *o)
{
	fu->interval_ms = o->interval_ms > 0 ? o->interval_ms : 500;
	fu->so = o->so;
}

void follow_ui_start(follow_ui *fu)
{
	fu->next_sync = app_mono_ms() + fu->interval_ms;
}

int follow_ui_due(follow_ui *fu, int64_t now, int force)
{
	if (now < fu->next_sync && !force)
		return 0;
	fu->next_sync = now + fu->interval_ms;
	return 1;
}

int follow_ui_wait_ms(int64_t next, int max)
{
	int64_t w = next - app_mono_ms();
	return w < 5 ? 5 : w > max ? max : (int)w;
}

void follow_ui_sym(follow_ui *fu, app *a, int shown)
{
	sym_close(fu->sy);
	fu->so.pid = fu->f.exited ? 0 : fu->f.pid;
	fu->sy = sym_open(fu->f.p, &fu->so);
	if (shown)
		a->sy = fu->sy;
}

int follow_ui_pull(follow_ui *fu, app *a, int shown)
{
	if (!fu->f.exited)
		follow_drain(&fu->f);   /* the events up to the moment of the counters */
	int ch = follow_sync(&fu->f);
	if (ch > 0 && (ch & FOLLOW_FRAMES))
		follow_ui_sym(fu, a, shown);
	return ch;
}

const char *follow_ui_cmdline(const prof *p)
{
	const char *c = prof_strat(p, p->meta.cmdline);
	return c ? c : "?";
}

void follow_ui_exit_text(const follow *f, char *buf, size_t len)
{
	int st = f ? f->child_status : -1;
	if (f && f->child > 0 && st >= 0 && WIFEXITED(st))
		snprintf(buf, len, "EXITED (status %d)", WEXITSTATUS(st));
	else if (f && f->child > 0 && st >= 0 && WIFSIGNALED(st))
		snprintf(buf, len, "EXITED (signal %d)", WTERMSIG(st));
	else
		snprintf(buf, len, "EXITED");
}

void follow_ui_state(const follow *f, int gone, int paused, char *buf, size_t len)
{
	if (gone)
		follow_ui_exit_text(f, buf, len);
	else
		snprintf(buf, len, "%s", paused ? "PAUSED" : "running");
}
