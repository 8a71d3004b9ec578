/* filediff.c - the mode of two files given (BASE NEW): d toggles the diff
 * NEW - BASE (core/diff.h, rows matched across runs despite ASLR) under
 * every screen. The view keeps its screens through view_reload; values
 * become signed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/path.h"
#include "symbols/sym.h"
#include "tui/app_state.h"
#include "tui/chrome.h"
#include "tui/filediff.h"
#include "tui/newmarks.h"

typedef struct file_diff {
	const prof *newp;        /* borrowed: the profile of NEW */
	const prof *base;        /* borrowed */
	sym *sy_new;             /* borrowed: symbols over NEW (may be NULL) */
	prof *d;                 /* owned: NEW - BASE, built at the first d */
	sym *sy_d;               /* owned: symbols over d */
	const sym_opts *so;
	const char *new_path, *base_path;
	char title[1200];
	char note[512];          /* what the diff says of the two builds, or "" */
	int builds;              /* BASE and NEW are different builds */
	int on;
	int open_pending;        /* --diff: open it at the first tick */
	new_marks marks;         /* NEW and GONE marks (over newp) */
} file_diff;

static file_diff *FD(const app *a)
{
	return a->mode_data;
}

int filediff_init(app *a, const prof *base, const char *base_path, const sym_opts *so, int open)
{
	file_diff *fd = calloc(1, sizeof(*fd));
	if (!fd)
		return -1;
	fd->newp = a->v.p;
	fd->marks.newp = fd->newp;
	fd->base = base;
	fd->sy_new = a->sy;
	fd->so = so;
	fd->new_path = a->v.path;
	fd->base_path = base_path;
	a->mode = &filediff_mode;
	a->mode_data = fd;
	if (!a->v.status[0])
		snprintf(a->v.status, sizeof(a->v.status), "two files: d shows the diff NEW - BASE (BASE %.200s)",
			 path_base(base_path));
	fd->open_pending = open;
	return 0;
}

static const char *filediff_path(const app *a)
{
	return FD(a)->new_path;
}

static int filediff_on(const app *a)
{
	return FD(a)->on;
}

static int filediff_toggle(app *a)
{
	file_diff *fd = FD(a);
	view *v = &a->v;
	if (!fd->on && !fd->d) {
		prof_error err;
		sym_opts bso = *fd->so;
		bso.profile_path = fd->base_path;
		diff_stats ds;
		fd->d = sym_diff_build(fd->base, &bso, fd->newp, fd->sy_new, fd->so, &ds, &err);
		if (fd->d && diff_stats_say(&ds, fd->note, sizeof(fd->note)))
			fd->builds = ds.rebuilt > 0;
		if (!fd->d) {
			snprintf(v->status, sizeof(v->status), "diff: %.240s", err.msg);
			return REACT_REDRAW;
		}
		if (fd->sy_new && !(fd->sy_d = sym_open(fd->d, fd->so))) {
			prof_free(fd->d);
			fd->d = NULL;
			snprintf(v->status, sizeof(v->status), "diff: out of memory");
			return REACT_REDRAW;
		}
	}
	fd->on = !fd->on;
	fd->marks.gen++;
	a->sy = fd->on ? fd->sy_d : fd->sy_new;
	const char *minus = a->utf8 ? "\xe2\x88\x92" : "-";
	if (fd->on)
		snprintf(fd->title, sizeof(fd->title), "diff NEW %s BASE%s: %s %s %s", minus,
			 fd->builds ? " (other builds)" : "", fd->new_path, minus, fd->base_path);
	v->path = fd->on ? fd->title : fd->new_path;
	if (view_reload(v, fd->on ? fd->d : fd->newp, 1) == 0) {
		if (fd->on) {
			char g[48];
			fmt_delta(g, sizeof(g), v->a->total[view_metric(v)], v->objects);
			if (fd->note[0])
				snprintf(v->status, sizeof(v->status), "diff NEW %s BASE: total %s; %.180s", minus, g, fd->note);
			else
				snprintf(v->status, sizeof(v->status),
					 "diff NEW %s BASE: total %s; largest growth first; d closes", minus, g);
		} else {
			snprintf(v->status, sizeof(v->status), "diff closed: NEW (%.200s) again", path_base(fd->new_path));
		}
	}
	/* The largest growth (or the top row) under the cursor. */
	v->hist[0].sel = v->hist[0].top = 0;
	return REACT_REDRAW;
}

/* The diff asked for at the start opens here, before the first draw: the
 * terminal's charset (the title's minus sign) is known by then. */
static int filediff_tick(app *a)
{
	file_diff *fd = FD(a);
	if (!fd->open_pending)
		return 0;
	fd->open_pending = 0;
	filediff_toggle(a);
	return 1;
}

static new_marks *filediff_marks(app *a)
{
	return &FD(a)->marks;
}

static void filediff_free(app *a)
{
	file_diff *fd = FD(a);
	newmarks_free(&fd->marks);
	sym_close(fd->sy_d);
	prof_free(fd->d);
	free(fd);
	a->mode_data = NULL;
}

static int filediff_key(app *a, int key)
{
	return key == 'd' ? filediff_toggle(a) | REACT_REDRAW : REACT_UNHANDLED;
}

const mode_ops filediff_mode = {
	.name = "two files",
	.tick = filediff_tick,
	.key = filediff_key,
	.in_diff = filediff_on,
	.marks = filediff_marks,
	.file_stem = filediff_path,
	.free = filediff_free,
};
