/* roundtrip.h - for the reader fuzzers: what a reader accepted, written back
 * in the same format and read again, must give the same sample and frame
 * counts; anything else aborts (libFuzzer keeps the input). */
#ifndef MPROF_FUZZ_ROUNDTRIP_H
#define MPROF_FUZZ_ROUNDTRIP_H

#include <stdlib.h>
#include <unistd.h>

#include "core/load.h"

static void fuzz_roundtrip(const prof *p, enum prof_format f)
{
	prof_error err;
	int fd = memfd_create("roundtrip", 0);
	if (fd < 0)
		return;
	int r = f == PROF_FMT_V1 ? pro_v1_write(p, fd, &err) : pro_native_write(p, fd, &err);
	off_t n = lseek(fd, 0, SEEK_END);
	uint8_t *b = r || n < 0 ? NULL : malloc((size_t)n + 1);
	if (b && pread(fd, b, (size_t)n, 0) == n) {
		prof *q = prof_load_mem(b, (size_t)n, "again", &err);
		/* v1 has no frame table of its own for pcs outside the function
		 * table, so only native must keep the frame count. */
		if (!q || q->samples.len != p->samples.len ||
		    (f == PROF_FMT_NATIVE && q->frames.len != p->frames.len))
			abort();
		prof_free(q);
	}
	free(b);
	close(fd);
}

#endif
