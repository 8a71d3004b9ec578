/* export.c - the export formats by name, and writing one to a path. */
#include "core/export.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

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

int export_write(const prof *p, const prof_nodemap *m, enum export_format f, enum agg_metric metric,
		 const char *path, prof_error *err)
{
	if (f == EXPORT_SKYNET || f == EXPORT_NATIVE)
		return prof_save(p, path, f == EXPORT_SKYNET ? PROF_FMT_V1 : PROF_FMT_NATIVE, err);
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		prof_errorf(err, "%s: path too long", path);
		return -1;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		prof_errorf(err, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	prof_error werr = { { 0 } };
	int r;
	if (f == EXPORT_PPROF) {
		r = export_pprof(fd, p, m, &werr);
		if (close(fd) < 0 && !r) {
			r = -1;
			snprintf(werr.msg, sizeof(werr.msg), "%s", strerror(errno));
		}
	} else {
		FILE *out = fdopen(fd, "w");
		if (!out) {
			close(fd);
			r = -1;
			snprintf(werr.msg, sizeof(werr.msg), "%s", strerror(errno));
		} else {
			r = export_folded(out, p, m, metric);
			if (fclose(out) && !r)
				r = -1;
			if (r && !werr.msg[0])
				snprintf(werr.msg, sizeof(werr.msg), "write failed: %s", strerror(errno));
		}
	}
	if (!r && rename(tmp, path) < 0) {
		r = -1;
		snprintf(werr.msg, sizeof(werr.msg), "%s", strerror(errno));
	}
	if (r) {
		unlink(tmp);
		prof_errorf(err, "%s: %s", path, werr.msg);
	}
	return r;
}
