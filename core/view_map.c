/* view_map.c - which node map and aggregate the screens read: the
 * granularity (built on first use) and the hide filter (a copy of the map
 * without the hidden nodes and its aggregate). */
#include "core/view.h"
#include "core/view_int.h"

#include <stdlib.h>
#include <string.h>

void view_add_gran(view *v, const char *name)
{
	if (v->ngran < VIEW_MAX_GRAN)
		v->gran[v->ngran++] = (view_gran){ name, NULL, NULL, 0 };
}

void view_set_gran_builder(view *v, view_gran_fn build, void *ctx)
{
	v->gran_build = build;
	v->gran_ctx = ctx;
}

int view_apply_hide(view *v)
{
	view_drop_derived(v);
	view_drop_hidden(v);
	view_gran *g = &v->gran[v->cur_gran];
	v->m = g->m;
	v->a = g->a;
	if (filter_active(&v->hide)) {
		if (filter_hide_map(&v->hid_m, g->m, &v->hide))
			return view_oom(v);
		if (agg_hide(&v->hid_a, g->a, v->p, &v->hid_m)) {
			nodemap_free(&v->hid_m);
			return view_oom(v);
		}
		v->hid_owned = 1;
		v->m = &v->hid_m;
		v->a = &v->hid_a;
	}
	return 0;
}

/* After the map or aggregate changed: the tree's indices are stale, so tree
 * screens start again at the top; peek centres keep their node ids. */
static int remap(view *v)
{
	view_sel k = view_sel_save(v);
	for (int i = 0; i < v->depth; i++)
		if (v->hist[i].kind == VIEW_TREE)
			v->hist[i].sel = v->hist[i].top = 0;
	if (view_rows_rebuild(v))
		return view_oom(v);
	if (view_refresh(v))
		return -1;
	if (view_cur(v)->kind != VIEW_TREE)
		view_sel_restore(v, k);
	return 0;
}

int view_hide_set(view *v, const char *re)
{
	if (filter_set(&v->hide, re, v->status, sizeof(v->status)))
		return -1;
	if (view_apply_hide(v) || remap(v))
		return -1;
	return 0;
}

int view_filters_clear(view *v)
{
	if (!filter_active(&v->focus) && !filter_active(&v->hide)) {
		view_status(v, "no focus or hide regex to clear");
		return -1;
	}
	int had_hide = filter_active(&v->hide);
	filter_clear(&v->focus);
	filter_clear(&v->hide);
	if (had_hide)
		return view_apply_hide(v) || remap(v) ? -1 : 0;
	view_sel k = view_sel_save(v);
	if (view_rows_rebuild(v))
		return view_oom(v);
	view_sel_restore(v, k);
	return 0;
}

int view_gran_next(view *v)
{
	if (v->ngran <= 1) {
		view_status(v, "granularity: only %s is available", v->gran[0].name);
		return -1;
	}
	unsigned idx = (v->cur_gran + 1) % v->ngran;
	view_gran *g = &v->gran[idx];
	if (!g->m) {
		char err[VIEW_STATUS_LEN] = "no builder";
		prof_nodemap *m = calloc(1, sizeof(*m));
		agg *a = calloc(1, sizeof(*a));
		if (!m || !a || !v->gran_build ||
		    v->gran_build(v->gran_ctx, idx, v->p, m, err, sizeof(err))) {
			free(m);
			free(a);
			view_status(v, "granularity %s: %s", g->name, err);
			return -1;
		}
		if (agg_compute(a, v->p, m)) {
			nodemap_free(m);
			free(m);
			free(a);
			return view_oom(v);
		}
		g->m = m;
		g->a = a;
		g->owned = 1;
	}
	/* Node ids differ between maps: keep the selected name, reset history. */
	const char *was = NULL;
	uint32_t node = view_cur(v)->kind == VIEW_TABLE ? view_row_node(v, view_cur(v)->sel) : UINT32_MAX;
	char *name = node != UINT32_MAX ? strdup(view_node_name(v, node)) : NULL;
	was = name;
	v->cur_gran = idx;
	v->depth = 1;
	memset(&v->hist[0], 0, sizeof(v->hist[0]));
	if (view_apply_hide(v) || view_rows_rebuild(v)) {
		free(name);
		return view_oom(v);
	}
	for (size_t r = 0; was && r < v->nrows; r++)
		if (!strcmp(view_node_name(v, v->rows[r]), was)) {
			v->hist[0].sel = r;
			break;
		}
	free(name);
	view_clamp(v);
	view_status(v, "granularity: %s", g->name);
	return 0;
}
