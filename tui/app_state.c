/* app_state.c - the questions asked of the app state through its mode
 * (see app_state.h): the mode itself, the symbols, whether a diff is on
 * screen and the NEW/GONE marks of its nodes. */
#include "tui/app_state.h"
#include "tui/newmarks.h"

/* The mode of a; a bare app (the headless bench) gets one with no hooks. */
const mode_ops *app_mode(const app *a)
{
	static const mode_ops bare = { .name = "bare" };
	return a->mode ? a->mode : &bare;
}

int app_in_diff(const app *a)
{
	const mode_ops *mo = app_mode(a);
	return mo->in_diff && mo->in_diff(a);
}

int app_node_mark(app *a, uint32_t node)
{
	const mode_ops *mo = app_mode(a);
	return mo->marks && app_in_diff(a) ? newmarks_node(mo->marks(a), a, node) : 0;
}

int app_map_marks(app *a, const prof_nodemap *m, uint8_t *out)
{
	const mode_ops *mo = app_mode(a);
	return mo->marks && app_in_diff(a) ? newmarks_map(mo->marks(a), a, m, out) : -1;
}

struct sym *app_sym(const app *a)
{
	return a->sy;
}
