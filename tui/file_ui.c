/* file_ui.c - one profile file on the screens: the mode with nothing of its
 * own (no source to poll, no strip, no keys beyond the screens' and the
 * common ones), and the entry that opens it (or two files: filediff.c). */
#include <stdio.h>
#include <string.h>

#include "symbols/sym.h"
#include "tui/app.h"
#include "tui/app_view.h"
#include "tui/filediff.h"
#include "tui/missing_syms.h"
#include "tui/tui.h"

const mode_ops file_mode = { .name = "file" };

int tui_run(const tui_file_opts *o)
{
	static app a;   /* static: the crash handler and atexit may need it */
	memset(&a, 0, sizeof(a));
	if (view_init(&a.v, o->p, o->m, o->a, o->path)) {
		fprintf(stderr, "mprof-tui: %s: out of memory\n", o->path);
		return 1;
	}
	a.sy = o->sy;
	app_set_grans(&a, o->gran);
	if (o->alloc)
		view_toggle_alloc(&a.v);
	if (o->objects)
		view_toggle_objects(&a.v);
	app_missing_status(&a, "keep the recorded names");
	if (o->status && !a.v.status[0])
		snprintf(a.v.status, sizeof(a.v.status), "%s", o->status);
	a.mode = &file_mode;
	if (o->base && filediff_init(&a, o->base, o->base_path, o->so, o->diff_open)) {
		fprintf(stderr, "mprof-tui: out of memory\n");
		app_free(&a);
		return 1;
	}
	int rc = app_run(&a);
	app_free(&a);
	return rc;
}
