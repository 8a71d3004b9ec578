/* write_ui.c - w and W: a profile written as native (w) or skynet v1 (W)
 * .pro. It owns the one write prompt every mode feeds (write_ui_prompt:
 * what is written, the default base name, the profile, a mode's own
 * answers through a hook, as live mode's "#N FILE"), the free default
 * name (base.pro, base-2.pro ...) and the save with its status line; the
 * file modes' question (write_ui_ask) is one of its feeders. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/load.h"
#include "tui/app_state.h"
#include "tui/ask.h"
#include "tui/write_ui.h"

void write_ui_free_name(char *buf, size_t len, const char *base)
{
	struct stat st;
	snprintf(buf, len, "%s.pro", base);
	for (int i = 2; i < 1000 && !stat(buf, &st); i++)
		snprintf(buf, len, "%s-%d.pro", base, i);
}

void write_ui_save(app *a, const prof *p, const char *file, int v1)
{
	view *v = &a->v;
	prof_error err;
	if (prof_save(p, file, v1 ? PROF_FMT_V1 : PROF_FMT_NATIVE, &err))
		snprintf(v->status, sizeof(v->status), "%.250s", err.msg);
	else
		snprintf(v->status, sizeof(v->status), "wrote %.200s (%s, %zu samples)", file,
			 v1 ? "skynet v1" : "native", p->samples.len);
}

/* The hooks of the question asked (one prompt is open at a time); its
 * strings were the asker's and are not kept. */
static write_ask asked;

/* The answer: a file name, or empty for the default. */
static void write_answer(app *a, const char *ans)
{
	char file[512];
	while (*ans == ' ')
		ans++;
	if (asked.answer && asked.answer(a, ans))
		return;
	snprintf(file, sizeof(file), "%s", *ans ? ans : a->ask.dflt);
	write_ui_save(a, asked.profile ? asked.profile(a) : a->v.p, file, a->ask.arg);
}

int write_ui_prompt(app *a, int v1, const write_ask *w)
{
	char dflt[512], lead[sizeof(a->ask.lead)];
	write_ui_free_name(dflt, sizeof(dflt), w->base);
	snprintf(lead, sizeof(lead), "write %s (%s) to [%s]%s%s%s: ", w->what, v1 ? "skynet v1" : "native", dflt,
		 w->more ? " (" : "", w->more ? w->more : "", w->more ? ")" : "");
	asked = (write_ask){ .answer = w->answer, .profile = w->profile };
	return app_prompt(a, write_answer, v1, dflt, lead);
}

int write_ui_ask(app *a, int v1)
{
	const char *p = a->v.path, *sl = strrchr(p, '/');
	char base[300];
	snprintf(base, sizeof(base), "%.*s%s", (int)strcspn(sl ? sl + 1 : p, "."), sl ? sl + 1 : p,
		 v1 ? "-v1" : "-native");
	return write_ui_prompt(a, v1, &(write_ask){ .what = "the profile", .base = base });
}
