/* savefile.c - write to a temporary of its own beside PATH, rename it over
 * PATH on success (core/atomicfile.h: no symlink followed, nothing
 * truncated). */
#include "core/savefile.h"
#include "core/atomicfile.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* One of fd_fn or file_fn is set. */
static int save(const char *path, savefile_fd_fn fd_fn, savefile_file_fn file_fn, void *ctx,
		prof_error *err)
{
	char tmp[4096 + ATOMICFILE_SUFFIX];
	int fd = atomicfile_open(path, tmp, sizeof(tmp), 0644);
	if (fd < 0) {
		prof_errorf(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	prof_error werr = { { 0 } };
	int r;
	errno = 0;
	if (fd_fn) {
		r = fd_fn(fd, ctx, &werr);
		if (close(fd) < 0 && !r)
			r = -1;
	} else {
		FILE *out = fdopen(fd, "w");
		if (!out) {
			close(fd);
			r = -1;
		} else {
			r = file_fn(out, ctx, &werr);
			if (fclose(out) && !r)
				r = -1;
		}
	}
	if (r && !werr.msg[0])
		snprintf(werr.msg, sizeof(werr.msg), "write failed: %s", strerror(errno ? errno : EIO));
	if (r)
		unlink(tmp);
	else if (atomicfile_commit(tmp, path) < 0) {
		r = -1;
		snprintf(werr.msg, sizeof(werr.msg), "%s", strerror(errno));
	}
	if (r)
		prof_errorf(err, "%s: %s", path, werr.msg);
	return r;
}

int savefile_fd(const char *path, savefile_fd_fn fn, void *ctx, prof_error *err)
{
	return save(path, fn, NULL, ctx, err);
}

int savefile_stream(const char *path, savefile_file_fn fn, void *ctx, prof_error *err)
{
	return save(path, NULL, fn, ctx, err);
}
