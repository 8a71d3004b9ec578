/* nodeinfo.h - per node facts the screens show beside a name (nodeinfo.c),
 * cached for the node map on screen: a row's source location, a call
 * site, whether a caller/callee edge is inlined. */
#ifndef MPROF_TUI_NODEINFO_H
#define MPROF_TUI_NODEINFO_H

#include <stddef.h>
#include <stdint.h>

struct app;

/* The source location row of the screen on top shows at
 * function granularity ("file.c:123", "" for none; frame and inline level
 * it comes from, may be NULL), for the metric on screen: a node's place
 * carrying the most of it; on the callers/callees screen, a caller's or a
 * callee's row shows its edge's call site (in the caller; in the centre).
 * And whether the edge inner -> outer (callee -> caller) is an inline one.
 * Cached per map, for every metric at once, until the profile or its
 * totals change (symbols/nodeloc.h, core/callgraph.h and
 * core/inline_edges.h compute them). */
const char *nodeinfo_row_loc(struct app *a, size_t row, uint32_t *frame, uint32_t *level);
int nodeinfo_inline_edge(struct app *a, uint32_t inner, uint32_t outer);
void nodeinfo_free(struct app *a);

#endif
