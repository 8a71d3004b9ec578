/* bench_load FILE - load + flat + cum of a profile: wall time and peak RSS. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "core/agg.h"
#include "core/load.h"
#include "core/report.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bench_load FILE\n");
		return 2;
	}
	struct stat st;
	if (stat(argv[1], &st)) {
		perror(argv[1]);
		return 2;
	}
	double t0 = now();
	prof_error err;
	prof *p = prof_load(argv[1], &err);
	if (!p) {
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	double t1 = now();
	prof_nodemap m;
	agg a;
	nodemap_by_address(&m, p);
	agg_compute(&a, p, &m);
	report_opts o = { .sort = REPORT_FLAT };
	uint32_t *rows;
	long n = report_rows(&a, &m, &o, &rows);
	o.sort = REPORT_CUM;
	uint32_t *rows2;
	report_rows(&a, &m, &o, &rows2);
	double t2 = now();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("file %.1f MB, %zu samples, %zu frames, %ld rows\n", st.st_size / 1e6, p->samples.len,
	       p->frames.len, n);
	printf("load %.3f s, flat+cum %.3f s, total %.3f s (target < 0.2 s)\n", t1 - t0, t2 - t1, t2 - t0);
	printf("peak RSS %.1f MB = %.2fx the file (target < 1x)\n", ru.ru_maxrss / 1024.0,
	       ru.ru_maxrss * 1024.0 / (double)st.st_size);
	return 0;
}
