/* view_reload.c - a profile that changes under the view (live mode, a
 * snapshot diff): new maps and aggregate, and every screen put back by
 * node name. */
#include "core/view.h"
#include "core/view_int.h"

#include <stdlib.h>
#include <string.h>

static uint32_t node_by_name(const view *v, const char *name)
{
	for (uint32_t n = 0; name && n < v->m->nnodes; n++)
		if (!strcmp(nodemap_name(v->m, n), name))
			return n;
	return UINT32_MAX;
}

/* A tree path as node names joined by '\x1f', root first; the caller frees. */
static char *tree_path(const view *v, uint32_t ti)
{
	size_t len = 1;
	for (uint32_t i = ti; i && i != UINT32_MAX; i = v->tree.n[i].parent)
		len += strlen(view_node_name(v, v->tree.n[i].node)) + 1;
	char *s = malloc(len);
	if (!s)
		return NULL;
	size_t at = len - 1;
	s[at] = 0;
	for (uint32_t i = ti; i && i != UINT32_MAX; i = v->tree.n[i].parent) {
		const char *nm = view_node_name(v, v->tree.n[i].node);
		size_t n = strlen(nm);
		if (at < len - 1)
			s[--at] = '\x1f';
		at -= n;
		memcpy(s + at, nm, n);
	}
	return s;
}

/* Expands the tree along path (see tree_path); the tree index reached, 0
 * (the root) when the first step is not found. */
static uint32_t tree_follow(view *v, const char *path)
{
	uint32_t ti = 0;
	while (*path) {
		size_t n = strcspn(path, "\x1f");
		if (tree_expand(&v->tree, ti))
			return ti;
		uint32_t next = UINT32_MAX;
		for (uint32_t k = 0; k < v->tree.n[ti].nkids; k++) {
			uint32_t c = v->tree.n[ti].kids[k];
			const char *nm = view_node_name(v, v->tree.n[c].node);
			if (strlen(nm) == n && !memcmp(nm, path, n)) {
				next = c;
				break;
			}
		}
		if (next == UINT32_MAX)
			return ti;
		ti = next;
		path += n + (path[n] ? 1 : 0);
	}
	return ti;
}

int view_reload(view *v, const prof *p, int frames_changed)
{
	if (!v->gran_build) {
		view_status(v, "this view cannot reload");
		return -1;
	}
	/* What the screens show, by name. */
	char *centre[VIEW_HISTORY] = { 0 }, *tsel = NULL, *top_sel = NULL;
	char **expanded = NULL;
	size_t nexp = 0;
	int top_part = 0, rc = 0;
	view_screen *cur = view_cur(v);
	for (int i = 1; i < v->depth; i++)
		if (v->hist[i].kind == VIEW_PEEK || v->hist[i].kind == VIEW_SOURCE)
			centre[i] = strdup(view_node_name(v, v->hist[i].node));
	if (v->hist[0].sel < v->nrows)
		tsel = strdup(view_node_name(v, v->rows[v->hist[0].sel]));
	if (cur->kind == VIEW_TREE && v->tree_valid) {
		expanded = calloc(v->tree.len ? v->tree.len : 1, sizeof(*expanded));
		for (uint32_t i = 1; expanded && i < v->tree.len; i++)
			if (v->tree.n[i].expanded && v->tree.n[i].nkids)
				expanded[nexp++] = tree_path(v, i);
		if (cur->sel < v->tree.nvis)
			top_sel = tree_path(v, v->tree.vis[cur->sel]);
	} else if (cur->kind == VIEW_PEEK && v->cg_valid) {
		view_sel k = view_sel_save(v);
		top_part = k.part;
		if (k.node != UINT32_MAX)
			top_sel = strdup(view_node_name(v, k.node));
	}

	/* New data: maps (if frames changed) and the current aggregate. */
	view_drop_derived(v);
	view_drop_hidden(v);
	if (v->peak)
		p = view_peak_of(v, p);
	v->p = p;
	for (unsigned i = 0; i < v->ngran; i++) {
		view_gran *g = &v->gran[i];
		int keep_map = g->owned && !frames_changed && i == v->cur_gran;
		if (g->owned) {
			agg_free(g->a);
			if (!keep_map) {
				nodemap_free(g->m);
				free(g->m);
				free(g->a);
			}
		}
		if (!keep_map)
			*g = (view_gran){ g->name, NULL, NULL, 0 };
	}
	view_gran *g = &v->gran[v->cur_gran];
	char err[VIEW_STATUS_LEN] = "";
	if (!g->m) {
		g->m = calloc(1, sizeof(*g->m));
		g->a = calloc(1, sizeof(*g->a));
		if (!g->m || !g->a || v->gran_build(v->gran_ctx, v->cur_gran, p, g->m, err, sizeof(err))) {
			free(g->m);
			free(g->a);
			g->m = NULL;
			g->a = NULL;
			rc = -1;
			goto out;
		}
		g->owned = 1;
	}
	if (agg_compute(g->a, p, g->m)) {
		nodemap_free(g->m);
		free(g->m);
		free(g->a);
		*g = (view_gran){ g->name, NULL, NULL, 0 };
		rc = -1;
		goto out;
	}
	if (view_apply_hide(v) || view_rows_rebuild(v)) {
		rc = -1;
		goto out;
	}

	/* Put the screens back. */
	for (int i = 1; i < v->depth; i++) {
		if (v->hist[i].kind == VIEW_SOURCE) {   /* its text stays; the node may go */
			v->hist[i].node = node_by_name(v, centre[i]);
			continue;
		}
		if (v->hist[i].kind != VIEW_PEEK)
			continue;
		uint32_t n = node_by_name(v, centre[i]);
		if (n == UINT32_MAX) {
			view_status(v, "%s: no longer in the profile", centre[i] ? centre[i] : "?");
			v->depth = i;
			break;
		}
		v->hist[i].node = n;
	}
	for (size_t r = 0; tsel && r < v->nrows; r++)
		if (!strcmp(view_node_name(v, v->rows[r]), tsel)) {
			v->hist[0].sel = r;
			break;
		}
	cur = view_cur(v);
	if (view_refresh(v)) {
		rc = -1;
		goto out;
	}
	if (cur->kind == VIEW_TREE && v->tree_valid && (expanded || top_sel)) {
		for (size_t i = 0; i < nexp; i++)
			if (expanded[i])
				tree_follow(v, expanded[i]);
		uint32_t ti = top_sel ? tree_follow(v, top_sel) : 0;
		/* tree_follow expands its target too: keep the user's choice. */
		if (ti && top_sel) {
			int was_open = 0;
			for (size_t i = 0; i < nexp; i++)
				if (expanded[i] && !strcmp(expanded[i], top_sel))
					was_open = 1;
			if (!was_open)
				tree_collapse(&v->tree, ti);
		}
		if (tree_visible(&v->tree, view_metric(v), view_seen_mask(v))) {
			rc = -1;
			goto out;
		}
		if (ti)
			view_tree_select(v, ti);
	} else if (cur->kind == VIEW_PEEK && top_sel) {
		view_sel_restore(v, (view_sel){ node_by_name(v, top_sel), top_part });
	}
	view_clamp(v);
	for (int i = 0; i < v->depth; i++) {   /* lower screens: keep in range */
		size_t n = i == 0 ? v->nrows : SIZE_MAX;
		if (v->hist[i].sel >= n)
			v->hist[i].sel = n ? n - 1 : 0;
	}
out:
	if (rc && !v->status[0])
		view_status(v, "reloading: %s", err[0] ? err : "out of memory");
	if (rc) {   /* leave a consistent (empty) table rather than stale maps */
		v->depth = 1;
		memset(&v->hist[0], 0, sizeof(v->hist[0]));
	}
	for (int i = 0; i < VIEW_HISTORY; i++)
		free(centre[i]);
	for (size_t i = 0; i < nexp; i++)
		free(expanded[i]);
	free(expanded);
	free(tsel);
	free(top_sel);
	return rc;
}
