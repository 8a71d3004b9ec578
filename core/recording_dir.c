/* recording_dir.c - the files of a recording: a directory's
 * mprof-PID.NNNNNN.rec files (their pid, number and size), or one such
 * file given alone, for rec_open (recording.c) to choose from and parse. */
#include "core/recording_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int name_cmp(const void *a, const void *b)
{
	const rec_name *x = a, *y = b;
	return x->pid != y->pid ? (x->pid < y->pid ? -1 : 1) : x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The first n bytes of a recording file's header (n >= its magic); -1 when
 * path has fewer or is not one. */
static int file_header(const char *path, rec_file_header *h, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k = fd < 0 ? -1 : pread(fd, h, n, 0);
	if (fd >= 0)
		close(fd);
	return k == (ssize_t)n && !memcmp(h->magic, REC_MAGIC, sizeof(h->magic)) ? 0 : -1;
}

int rec_is_recording(const char *path)
{
	struct stat st;
	rec_file_header h;
	return !stat(path, &st) && (S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && !file_header(path, &h, sizeof(h.magic))));
}

/* One file of a recording (each is readable alone): r->dir names it. */
static int single_file(const char *path, rec_name **names, size_t *nn, prof_error *err)
{
	rec_file_header h;
	if (file_header(path, &h, REC_HEADER_V4_SIZE)) {
		prof_errorf(err, "%s: not a recording (a directory MPROF_RECORD wrote, or one of its .rec files)", path);
		return -1;
	}
	struct stat st;
	*names = calloc(1, sizeof(**names));
	if (!*names || stat(path, &st)) {
		prof_errorf(err, "%s: %s", path, *names ? strerror(errno) : "out of memory");
		return -1;
	}
	(*names)->size = st.st_size;
	(*names)->pid = (int)h.pid;
	(*names)->seq = h.seq;
	*nn = 1;
	return 0;
}

int rec_find_files(const char *dir, rec_name **out, size_t *nout, int *single_out, prof_error *err)
{
	rec_name *names = NULL;
	size_t nn = 0, capn = 0;
	struct stat st0;
	int single = *single_out = !stat(dir, &st0) && S_ISREG(st0.st_mode);
	if (single && single_file(dir, &names, &nn, err)) {
		free(names);
		return -1;
	}
	DIR *d = single ? NULL : opendir(dir);
	if (!d && !single) {
		prof_errorf(err, "%s: %s", dir, strerror(errno));
		return -1;
	}
	struct dirent *de;
	while (d && (de = readdir(d))) {
		rec_name x;
		int used = 0;
		if (sscanf(de->d_name, "mprof-%d.%u.rec%n", &x.pid, &x.seq, &used) != 2 || de->d_name[used])
			continue;
		char path[4200];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		x.size = st.st_size;
		if (PUSH(names, nn, capn, x)) {
			closedir(d);
			free(names);
			prof_errorf(err, "%s: out of memory", dir);
			return -1;
		}
	}
	if (d)
		closedir(d);
	if (!nn) {
		free(names);
		prof_errorf(err, "%s: no recording files (mprof-PID.NNNNNN.rec) here", dir);
		return -1;
	}
	qsort(names, nn, sizeof(*names), name_cmp);
	*out = names;
	*nout = nn;
	return 0;
}
