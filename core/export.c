/* export.c - the export formats by name, and writing one to a path. */
#include "core/export.h"
#include "core/savefile.h"

#include <string.h>

int export_parse(const char *name)
{
	if (!strcmp(name, "pprof"))
		return EXPORT_PPROF;
	if (!strcmp(name, "folded"))
		return EXPORT_FOLDED;
	if (!strcmp(name, "skynet") || !strcmp(name, "v1"))
		return EXPORT_SKYNET;
	if (!strcmp(name, "native"))
		return EXPORT_NATIVE;
	return -1;
}

struct export_ctx {
	const prof *p;
	const prof_nodemap *m;
	const export_lines *lines;
	enum agg_metric metric;
};

static int write_pprof(int fd, void *arg, prof_error *werr)
{
	const struct export_ctx *c = arg;
	return export_pprof(fd, c->p, c->m, c->lines, werr);
}

static int write_folded(FILE *out, void *arg, prof_error *werr)
{
	const struct export_ctx *c = arg;
	(void)werr;
	return export_folded(out, c->p, c->m, c->metric, c->lines != NULL);   /* with symbols: stable names */
}

int export_write(const prof *p, const prof_nodemap *m, const export_lines *lines, enum export_format f,
		 enum agg_metric metric, const char *path, prof_error *err)
{
	if (f == EXPORT_SKYNET || f == EXPORT_NATIVE)
		return prof_save(p, path, f == EXPORT_SKYNET ? PROF_FMT_V1 : PROF_FMT_NATIVE, err);
	struct export_ctx c = { p, m, lines, metric };
	if (f == EXPORT_PPROF)
		return savefile_fd(path, write_pprof, &c, err);
	return savefile_stream(path, write_folded, &c, err);
}
