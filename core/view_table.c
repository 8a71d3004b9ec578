/* view_table.c - the main table: its rows (the nodes seen in the mode that
 * the focus regex lets through), their order (the sort keys), moving
 * between focus matches, and the values as the rows show them. */
#include "core/view.h"
#include "core/bytes.h"
#include "core/view_int.h"
#include "core/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *view_sort_name(enum view_sort s)
{
	static const char *const n[] = { "flat", "cum", "objects", "name" };
	return s < VIEW_NSORT ? n[s] : "?";
}

char *view_fmt_value(char *buf, size_t len, int64_t v, int objects)
{
	if (objects) {
		snprintf(buf, len, "%lld", (long long)v);
		return buf;
	}
	return bytes_fmt(buf, len, v);
}

/* Focus matches the name a row shows (skynet.so+0xb55d) as well as the whole one. */
static int focus_match(const view *v, uint32_t node)
{
	char sb[512];
	const char *name = nodemap_name(v->m, node);
	if (filter_match(&v->focus, name))
		return 1;
	const char *shown = name_short(v->p, name, sb, sizeof(sb));
	return shown != name && filter_match(&v->focus, shown);
}

static int row_cmp(const void *pa, const void *pb, void *ctx)
{
	const view *v = ctx;
	uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
	const agg_vals *a = &v->a->v[x], *b = &v->a->v[y];
	int m = view_metric(v), o = view_metric_other(v);
	int64_t k[3][2];
	int nk = 0, r = 0;
	switch (v->sort) {
	case VIEW_SORT_FLAT:
		k[0][0] = a->flat[m], k[0][1] = b->flat[m];
		k[1][0] = a->cum[m], k[1][1] = b->cum[m];
		nk = 2;
		break;
	case VIEW_SORT_CUM:
		k[0][0] = a->cum[m], k[0][1] = b->cum[m];
		k[1][0] = a->flat[m], k[1][1] = b->flat[m];
		nk = 2;
		break;
	case VIEW_SORT_OBJS:
		k[0][0] = a->cum[o], k[0][1] = b->cum[o];
		k[1][0] = a->cum[m], k[1][1] = b->cum[m];
		nk = 2;
		break;
	default:
		break;
	}
	for (int i = 0; i < nk && !r; i++)
		r = agg_order(k[i][0], k[i][1], v->by_change);
	if (!r)
		r = strcmp(nodemap_name(v->m, x), nodemap_name(v->m, y));
	if (!r)
		r = x < y ? -1 : x > y;
	return v->reverse ? -r : r;
}

int view_rows_rebuild(view *v)
{
	free(v->rows);
	v->nrows = 0;
	v->rows = malloc((v->a->nnodes ? v->a->nnodes : 1) * sizeof(*v->rows));
	if (!v->rows)
		return -1;
	uint8_t mask = view_seen_mask(v);
	for (uint32_t i = 0; i < v->a->nnodes; i++)
		if ((v->a->flags[i] & mask) && focus_match(v, i))
			v->rows[v->nrows++] = i;
	qsort_r(v->rows, v->nrows, sizeof(*v->rows), row_cmp, v);
	return 0;
}

static int table_only(view *v)
{
	if (view_cur(v)->kind != VIEW_TABLE) {
		view_status(v, "sorting applies to the main table (callers/callees and tree are by %s)",
		       "the metric");
		return -1;
	}
	return 0;
}

int view_sort_by(view *v, enum view_sort s)
{
	if (table_only(v) || s >= VIEW_NSORT)
		return -1;
	v->sort = s;
	v->reverse = 0;
	return view_resort(v);
}

int view_sort_step(view *v, int dir)
{
	if (table_only(v))
		return -1;
	v->sort = (enum view_sort)(((int)v->sort + VIEW_NSORT + (dir < 0 ? -1 : 1)) % VIEW_NSORT);
	v->reverse = 0;
	return view_resort(v);
}

int view_sort_by_change(view *v, int on)
{
	if (v->by_change == !!on)
		return 0;
	v->by_change = !!on;
	if (!v->rows)
		return 0;
	/* A diff opened or closed: its biggest row at the top, under the cursor. */
	if (view_rows_rebuild(v))
		return view_oom(v);
	v->hist[0].sel = v->hist[0].top = 0;
	return view_refresh(v);
}

int view_sort_reverse(view *v)
{
	if (table_only(v))
		return -1;
	v->reverse = !v->reverse;
	return view_resort(v);
}
int view_filter_set(view *v, const char *re)
{
	if (filter_set(&v->focus, re, v->status, sizeof(v->status)))
		return -1;
	view_sel k = view_sel_save(v);
	if (view_rows_rebuild(v))
		return view_oom(v);
	view_sel_restore(v, k);
	if (filter_active(&v->focus))
		view_status(v, "focus /%s/: %zu rows match", v->focus.pattern, v->nrows);
	return 0;
}

int view_next_match(view *v, int dir)
{
	if (!filter_active(&v->focus)) {
		view_status(v, "no focus regex");
		return -1;
	}
	view_screen *s = view_cur(v);
	size_t n = view_nrows(v);
	for (size_t i = 1; i <= n; i++) {
		size_t r = (s->sel + n + (dir < 0 ? n - i : i)) % n;
		uint32_t node = view_row_node(v, r);
		if (node != UINT32_MAX && focus_match(v, node)) {
			s->sel = r;
			view_clamp(v);
			return 0;
		}
	}
	view_status(v, "no row matches /%s/", v->focus.pattern);
	return -1;
}
