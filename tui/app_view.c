/* app_view.c - the view a mode opens over a profile (a file's, a diff's,
 * the live process's, a recording's moment): its map and aggregate built
 * from the symbols over it, and the other granularities g cycles through,
 * built on demand by the same builder. */
#include <stdio.h>
#include <stdlib.h>

#include "symbols/sym.h"
#include "tui/app_state.h"
#include "tui/app_view.h"

/* The builder of every mode: the symbols over the profile on screen (a
 * file's, a diff's, the live process's, a recording's moment); with none,
 * the recorded names. */
static int gran_build(void *ctx, unsigned idx, const prof *p, prof_nodemap *m, char *err, size_t errlen)
{
	app *a = ctx;
	if (sym_nodemap(m, p, app_sym(a), (enum sym_gran)a->gran_order[idx])) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

void app_set_grans(app *a, int first)
{
	a->gran_order[0] = first;
	a->v.gran[0].name = sym_gran_name((enum sym_gran)first);
	if (app_sym(a)) {
		static const int all[] = { SYM_GRAN_FUNCTION, SYM_GRAN_LINE, SYM_GRAN_ADDRESS, SYM_GRAN_MODULE };
		for (unsigned i = 0; i < 4; i++)
			if (all[i] != first) {
				a->gran_order[a->v.ngran] = all[i];
				view_add_gran(&a->v, sym_gran_name((enum sym_gran)all[i]));
			}
	}
	/* Always a builder: a diff toggle rebuilds the maps through it. */
	view_set_gran_builder(&a->v, gran_build, a);
}

int app_view_open(app *a, const prof *p, int first, const char *title)
{
	prof_nodemap *m = calloc(1, sizeof(*m));
	agg *ag = calloc(1, sizeof(*ag));
	int built = m && ag && !sym_nodemap_agg(m, ag, p, app_sym(a), (enum sym_gran)first);
	if (!built || view_init(&a->v, p, m, ag, title)) {
		if (built) {
			nodemap_free(m);
			agg_free(ag);
		}
		free(m);
		free(ag);
		return -1;
	}
	a->v.gran[0].owned = 1;   /* the view frees m and ag from here on */
	app_set_grans(a, first);
	return 0;
}
