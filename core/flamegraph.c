/* flamegraph.c - stub until the SVG writer lands. */
#include "core/flamegraph.h"

int flamegraph_write(FILE *out, const prof *p, const prof_nodemap *m, enum agg_metric metric, int diff,
		     const char *title, prof_error *err)
{
	(void)out; (void)p; (void)m; (void)metric; (void)diff; (void)title;
	prof_errorf(err, "flame graphs are not written yet");
	return -1;
}

int flamegraph_save(const prof *p, const prof_nodemap *m, enum agg_metric metric, int diff,
		    const char *title, const char *path, prof_error *err)
{
	(void)path;
	return flamegraph_write(NULL, p, m, metric, diff, title, err);
}
