/* export_ui.c - e: the view on screen (its profile: NEW, the diff or the
 * live state; its granularity with hidden frames dropped; its metric for
 * folded weights) written for other tools through core/export.h. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/export.h"
#include "tui/app.h"

const char *export_ui_default(const app *a, int f, char *buf, size_t len)
{
	static const char *const ext[] = { ".pb.gz", ".folded", "-v1.pro", "-native.pro" };
	const char *p = a->mode && a->mode->file_stem ? a->mode->file_stem(a) : a->v.path, *sl = strrchr(p, '/');
	const char *b = sl ? sl + 1 : p;
	char base[200];
	snprintf(base, sizeof(base), "%.*s%s", (int)strcspn(b, ". "), b, app_in_diff(a) ? "-diff" : "");
	const char *e = f >= 0 && f < 4 ? ext[f] : ".out";
	struct stat st;
	snprintf(buf, len, "%s%s", base, e);
	for (int i = 2; i < 1000 && !stat(buf, &st); i++)
		snprintf(buf, len, "%s-%d%s", base, i, e);
	return buf;
}

void export_ui_write(app *a, int f, const char *file)
{
	view *v = &a->v;
	prof_error err;
	static const char *const name[] = { "pprof", "folded", "skynet v1", "native" };
	/* Source lines from the symbols, unless frames are hidden: the map has them dropped. */
	export_lines el = { sym_export_lines, app_sym(a) };
	const export_lines *lines = app_sym(a) && !v->hide.pattern ? &el : NULL;
	if (export_write(v->p, v->m, lines, (enum export_format)f, view_metric(v), file, &err))
		snprintf(v->status, sizeof(v->status), "export: %.240s", err.msg);
	else
		snprintf(v->status, sizeof(v->status), "exported %.200s (%s, granularity %s)", file, name[f],
			 v->gran[v->cur_gran].name);
}
