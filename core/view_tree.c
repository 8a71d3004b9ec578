/* view_tree.c - the call tree screen's operations: open, expand, collapse,
 * the heaviest path; the cursor follows the node it was on. */
#include "core/view.h"
#include "core/view_int.h"

int view_open_tree(view *v)
{
	if (view_cur(v)->kind == VIEW_TREE) {
		view_status(v, "already in the call tree");
		return -1;
	}
	return view_push(v, VIEW_TREE, UINT32_MAX);
}

static uint32_t tree_sel(view *v)
{
	view_screen *s = view_cur(v);
	if (s->kind != VIEW_TREE) {
		view_status(v, "expand and collapse work in the call tree");
		return UINT32_MAX;
	}
	if (s->sel >= v->tree.nvis) {
		view_status(v, "the tree is empty");
		return UINT32_MAX;
	}
	return v->tree.vis[s->sel];
}

void view_tree_select(view *v, uint32_t ti)
{
	long r = tree_row_of(&v->tree, ti);
	if (r >= 0)
		view_cur(v)->sel = (size_t)r;
	view_clamp(v);
}

int view_tree_expand(view *v)
{
	uint32_t ti = tree_sel(v);
	if (ti == UINT32_MAX)
		return -1;
	if (tree_expand(&v->tree, ti))
		return view_oom(v);
	if (!v->tree.n[ti].nkids) {
		view_status(v, "no callees below this node");
		return -1;
	}
	view_tree_select(v, ti);
	return 0;
}

int view_tree_collapse(view *v)
{
	uint32_t ti = tree_sel(v);
	if (ti == UINT32_MAX)
		return -1;
	tree_node *x = &v->tree.n[ti];
	if (x->expanded && x->nkids) {
		tree_collapse(&v->tree, ti);
		view_tree_select(v, ti);
		return 0;
	}
	if (x->parent == 0 || x->parent == UINT32_MAX) {
		view_status(v, "at the top level");
		return -1;
	}
	view_tree_select(v, x->parent);
	return 0;
}

int view_tree_heaviest(view *v)
{
	uint32_t ti = view_cur(v)->kind == VIEW_TREE && v->tree.nvis ? tree_sel(v) : 0;
	if (view_cur(v)->kind != VIEW_TREE)
		return (void)tree_sel(v), -1;
	uint32_t deep = tree_expand_heaviest(&v->tree, ti);
	if (deep == UINT32_MAX)
		return view_oom(v);
	view_tree_select(v, deep);
	return 0;
}
