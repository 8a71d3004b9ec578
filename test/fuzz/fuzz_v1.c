/* fuzz_v1 - the skynet v1 reader on its own, then a write and re-read
 * that must agree. FUZZ_SEEDS: test/data/*.pro */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	prof_error err;
	prof *p = prof_new();
	prof_src src = { .data = data, .len = len, .name = "fuzz" };
	if (p && !pro_v1_read(p, &src, &err)) {
		/* Round trip through a pipe-free memfd: what we write, we read back. */
		int fd = memfd_create("v1", 0);
		if (fd >= 0 && !pro_v1_write(p, fd, &err)) {
			off_t n = lseek(fd, 0, SEEK_END);
			uint8_t *b = malloc((size_t)n + 1);
			if (b && pread(fd, b, (size_t)n, 0) == n) {
				prof *q = prof_load_mem(b, (size_t)n, "again", &err);
				if (!q || q->samples.len != p->samples.len)
					abort();
				prof_free(q);
			}
			free(b);
		}
		if (fd >= 0)
			close(fd);
	}
	prof_free(p);
	return 0;
}
