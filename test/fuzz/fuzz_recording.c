/* fuzz_recording - the recording reader: the input is written as the one
 * file of a recording directory, opened, and walked (seek to start, peak
 * and end; leaks and lifetimes over the whole run). The seeds hold
 * version 2 and version 4 files as written (zstd frames with checksums:
 * the frame checks) and the same with their inner chunks uncompressed at
 * the top level, which the reader also takes (the event decoder, its
 * varints and references, version 4's age deltas). */
// FUZZ_SEEDS: test/data/recordings/*.rec
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/recording.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static char dir[64], path[128];
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/mprof-fuzzrec-%d", (int)getpid());
		mkdir(dir, 0700);
		snprintf(path, sizeof(path), "%s/mprof-1.000001.rec", dir);
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	close(fd);
	prof_error err;
	recording *r = rec_open(dir, 1, &err);
	if (!r)
		return 0;
	rec_seek(r, r->first_ev);
	rec_seek(r, r->peak_ev);
	rec_seek(r, r->end_ev);
	prof *l = rec_leaks(r, r->first_ev, r->end_ev, &err);
	prof_free(l);
	rec_life *life = rec_lifetimes(r, 1, 0);
	if (life) {
		prof *t = rec_temp_prof(r, life, &err);
		prof_free(t);
		free(life);
	}
	rec_close(r);
	return 0;
}
