/* bench_rec.c - times core/recording on a recording directory: the open
 * (parallel parse and index), then jumps to N moments spread over the run
 * in a shuffled order (replay from the nearest checkpoint), and a jump to
 * the peak. Prints one line per figure. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/recording.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_rec DIR [JUMPS]\n");
		return 2;
	}
	int jumps = argc > 2 ? atoi(argv[2]) : 50;
	prof_error err;
	double t0 = now();
	recording *r = rec_open(argv[1], 0, &err);
	double t1 = now();
	if (!r) {
		fprintf(stderr, "bench_rec: %s\n", err.msg);
		return 2;
	}
	printf("open: %.3f s (%zu files, %llu events, %zu stacks, %zu buckets)\n", t1 - t0, r->nf,
	       (unsigned long long)(r->end_ev - r->first_ev), r->p->samples.len, r->ntl);
	double worst = 0, sum = 0;
	unsigned x = 12345;
	for (int i = 0; i < jumps; i++) {
		x = x * 1103515245u + 12345u;
		uint64_t ev = r->first_ev + (uint64_t)((double)(x >> 8) / (double)(1u << 24) * (double)(r->end_ev - r->first_ev));
		double a = now();
		rec_seek(r, ev);
		double d = now() - a;
		sum += d;
		if (d > worst)
			worst = d;
	}
	double a = now();
	rec_seek(r, r->peak_ev);
	double pk = now() - a;
	printf("jump: mean %.1f ms, worst %.1f ms over %d random moments; to the peak %.1f ms (%lld bytes)\n",
	       jumps ? sum / jumps * 1e3 : 0.0, worst * 1e3, jumps, pk * 1e3, (long long)r->cur_inuse);
	rec_close(r);
	return 0;
}
