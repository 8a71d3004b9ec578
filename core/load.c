/* load.c - opens a profile: maps the file, detects the format by content,
 * runs the matching reader; and saves one in a chosen format. */
#include "core/load.h"
#include "core/savefile.h"
#include "core/foreign.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>


enum prof_format prof_detect(const uint8_t *d, size_t len)
{
	if (len >= 8 && !memcmp(d, PRO_NATIVE_MAGIC, 8))
		return PROF_FMT_NATIVE;
	/* v1 has no magic; its first word is the length of the rest. */
	if (len >= 8) {
		uint32_t body = (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
		if ((uint64_t)body + 4 == len)
			return PROF_FMT_V1;
	}
	/* The text formats say what they are on their first line; tcmalloc
	 * may put "%warn" lines before a legacy heap profile's. */
	size_t h = 0;
	while (h < len && h < 65536 && d[h] == '%') {
		const uint8_t *nl = memchr(d + h, '\n', len - h);
		h = nl ? (size_t)(nl - d) + 1 : len;
	}
	if (len - h >= 13 && !memcmp(d + h, "heap profile:", 13))
		return PROF_FMT_GPERF;   /* or Go debug=1: the reader tells them apart */
	if (len >= 8 && !memcmp(d, "heap_v2/", 8))
		return PROF_FMT_JEMALLOC;
	if (pprof_sniff(d, len))
		return PROF_FMT_PPROF;
	if (folded_sniff(d, len))
		return PROF_FMT_FOLDED;
	return PROF_FMT_UNKNOWN;
}

const char *prof_format_name(enum prof_format f)
{
	switch (f) {
	case PROF_FMT_V1: return "skynet-mprof v1";
	case PROF_FMT_NATIVE: return "mprof native";
	case PROF_FMT_GPERF: return "gperftools heap profile";
	case PROF_FMT_GOHEAP: return "Go heap profile (legacy text)";
	case PROF_FMT_JEMALLOC: return "jemalloc heap_v2";
	case PROF_FMT_FOLDED: return "folded stacks";
	case PROF_FMT_PPROF: return "pprof protobuf";
	default: return "unknown";
	}
}


/* Pipes and devices are read whole into memory; beyond this, ask for a file. */
#define PROF_STREAM_MAX (1 << 30)



static prof *load_src(const prof_src *src, prof_error *err)
{
	enum prof_format f = prof_detect(src->data, src->len);
	prof *p = prof_new();
	if (!p) {
		prof_errorf(err, "%s: out of memory", src->name);
		return NULL;
	}
	int r;
	switch (f) {
	case PROF_FMT_NATIVE:
		r = pro_native_read(p, src, err);
		break;
	case PROF_FMT_V1:
		r = pro_v1_read(p, src, err);
		break;
	case PROF_FMT_GPERF:
	case PROF_FMT_GOHEAP:
		r = heap_legacy_read(p, src, err);
		break;
	case PROF_FMT_JEMALLOC:
		r = jemalloc_read(p, src, err);
		break;
	case PROF_FMT_FOLDED:
		r = folded_read(p, src, err);
		break;
	case PROF_FMT_PPROF:
		r = pprof_read(p, src, err);
		break;
	default:
		if (src->len == 0)
			prof_errorf(err, "%s: offset 0: empty file", src->name);
		else if (src->len >= 4 && src->len < 8)
			prof_errorf(err, "%s: offset 0: file too short for a profile (%zu bytes)", src->name, src->len);
		else if (src->len >= 8 && src->data[0] == 0 && src->data[1] == 0)
			/* Looks like v1 whose length field disagrees: say so precisely. */
			r = pro_v1_read(p, src, err);
		else
			prof_errorf(err, "%s: offset 0: not a profile format mprof knows", src->name);
		r = -1;
		break;
	}
	if (r) {
		prof_free(p);
		return NULL;
	}
	return p;
}

prof *prof_load_mem(const uint8_t *data, size_t len, const char *name, prof_error *err)
{
	prof_src src = { .data = data, .len = len, .name = name, .mapped = 0 };
	return load_src(&src, err);
}

prof *prof_load(const char *path, prof_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		prof_errorf(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		prof_errorf(err, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		prof_errorf(err, "%s: is a directory", path);
		close(fd);
		return NULL;
	}
	prof *p;
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (m == MAP_FAILED) {
			prof_errorf(err, "%s: %s", path, strerror(errno));
			return NULL;
		}
		madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
		prof_src src = { .data = m, .len = (size_t)st.st_size, .name = path, .mapped = 1 };
		p = load_src(&src, err);
		munmap(m, (size_t)st.st_size);
		return p;
	}
	/* Pipes and empty files: read it all into memory. */
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			prof_errorf(err, "%s: out of memory", path);
			close(fd);
			return NULL;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			prof_errorf(err, "%s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len >= PROF_STREAM_MAX || len >= prof_mem_avail() / 2) {
			/* /dev/zero or a runaway pipe: refuse before memory runs out. */
			prof_errorf(err, "%s: offset %zu: streamed input over %d MiB refused (give a regular file)",
				    path, len, PROF_STREAM_MAX >> 20);
			free(buf);
			close(fd);
			return NULL;
		}
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	p = prof_load_mem(buf, len, path, err);
	free(buf);
	return p;
}

struct save_ctx {
	const prof *p;
	enum prof_format f;
};

static int save_fd(int fd, void *arg, prof_error *werr)
{
	const struct save_ctx *c = arg;
	return c->f == PROF_FMT_V1 ? pro_v1_write(c->p, fd, werr) : pro_native_write(c->p, fd, werr);
}

int prof_save(const prof *p, const char *path, enum prof_format f, prof_error *err)
{
	struct save_ctx c = { p, f };
	return savefile_fd(path, save_fd, &c, err);
}
