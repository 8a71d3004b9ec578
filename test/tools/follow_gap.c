/* follow_gap.c - the follower's beat (segment.h's ring_beat_ns) over a
 * hooked process that allocates all the time (test/progs/live_leaker.c):
 *   follow_gap PID SECONDS
 * opens the segment, syncs and drains, then neither drains nor beats for
 * SECONDS (the hook stops writing events once the beat is 2 s old), then
 * drains and syncs once more and prints
 *   before B after A timeline T
 * B and A: the heap in use from the counters before and after the gap; T:
 * the timeline's value after it, which must be A (the follower took the
 * counters again); a follower that missed its gap shows T short of A by
 * what was allocated while it slept.  Exit status 2 on an error (said). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "attach/live/follow.h"

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: follow_gap PID SECONDS\n");
		return 2;
	}
	follow f;
	prof_error err;
	if (follow_open(&f, atoi(argv[1]), NULL, &err)) {
		fprintf(stderr, "follow_gap: %s\n", err.msg);
		return 2;
	}
	if (follow_sync(&f) < 0) {
		fprintf(stderr, "follow_gap: out of memory\n");
		follow_close(&f);
		return 2;
	}
	follow_drain(&f);
	int64_t before = f.inuse_bytes;
	struct timespec ts = { atoi(argv[2]), 0 };
	nanosleep(&ts, NULL);
	follow_drain(&f);
	int rc = follow_sync(&f) < 0 ? 2 : 0;
	printf("before %lld after %lld timeline %lld\n", (long long)before, (long long)f.inuse_bytes,
	       (long long)f.tl.cur);
	follow_close(&f);
	return rc;
}
