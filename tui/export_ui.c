/* export_ui.c - e: the view on screen (its profile: NEW, the diff or the
 * live state; its granularity with hidden frames dropped; its metric for
 * folded weights and the call graph) written for other tools through
 * core/export.h, or drawn as a call graph through core/graph.h. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/export.h"
#include "core/graph.h"
#include "tui/app_state.h"
#include "tui/export_ui.h"

int export_ui_parse(const char *name)
{
	return !strcmp(name, "callgraph") ? EXPORT_UI_CALLGRAPH : export_parse(name);
}

const char *export_ui_default(const app *a, int f, char *buf, size_t len)
{
	/* Without graphviz the call graph is offered as dot text. */
	const char *const ext[] = { ".pb.gz", ".folded", "-v1.pro", "-native.pro",
				    graph_can_render() ? "-callgraph.svg" : "-callgraph.dot" };
	const char *p = a->mode && a->mode->file_stem ? a->mode->file_stem(a) : a->v.path, *sl = strrchr(p, '/');
	const char *b = sl ? sl + 1 : p;
	char base[200];
	snprintf(base, sizeof(base), "%.*s%s", (int)strcspn(b, ". "), b, app_in_diff(a) ? "-diff" : "");
	const char *e = f >= 0 && f <= EXPORT_UI_CALLGRAPH ? ext[f] : ".out";
	struct stat st;
	snprintf(buf, len, "%s%s", base, e);
	for (int i = 2; i < 1000 && !stat(buf, &st); i++)
		snprintf(buf, len, "%s-%d%s", base, i, e);
	return buf;
}

/* The call graph of the view: the diff's when the diff is on. */
static void graph_ui_write(app *a, const char *file)
{
	view *v = &a->v;
	prof_error err;
	graph_opts o = graph_defaults(view_metric(v), app_in_diff(a), v->path);
	graph g;
	if (graph_save(v->p, v->m, &o, file, &g, &err))
		snprintf(v->status, sizeof(v->status), "call graph: %.240s", err.msg);
	else
		snprintf(v->status, sizeof(v->status),
			 "wrote %.160s (%scall graph, granularity %s: %zu nodes and %zu edges shown, %zu and %zu dropped)",
			 file, o.diff ? "diff " : "", v->gran[v->cur_gran].name, g.nnodes, g.nedges,
			 g.dropped_nodes + g.capped, g.dropped_edges);
}

void export_ui_write(app *a, int f, const char *file)
{
	view *v = &a->v;
	prof_error err;
	if (f == EXPORT_UI_CALLGRAPH) {
		graph_ui_write(a, file);
		return;
	}
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
