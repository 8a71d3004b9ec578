/* write_ui.c - w and W: the profile on screen written as native (w) or
 * skynet v1 (W) .pro. The file modes ask here; live mode asks its own
 * question (a snapshot may be named) and saves through write_ui_save. */
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

/* The answer: a file name, or empty for the default. */
static void write_answer(app *a, const char *ans)
{
	char file[512];
	while (*ans == ' ')
		ans++;
	snprintf(file, sizeof(file), "%s", *ans ? ans : a->ask.dflt);
	write_ui_save(a, a->v.p, file, a->ask.arg);
}

int write_ui_ask(app *a, int v1)
{
	const char *p = a->v.path, *sl = strrchr(p, '/');
	char base[300], dflt[512], lead[sizeof(a->ask.lead)];
	snprintf(base, sizeof(base), "%.*s%s", (int)strcspn(sl ? sl + 1 : p, "."), sl ? sl + 1 : p,
		 v1 ? "-v1" : "-native");
	write_ui_free_name(dflt, sizeof(dflt), base);
	snprintf(lead, sizeof(lead), "write the profile (%s) to [%s]: ", v1 ? "skynet v1" : "native", dflt);
	return app_prompt(a, write_answer, v1, dflt, lead);
}
