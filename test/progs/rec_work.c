/* rec_work.c - a known workload for sampling and rotation: work_fn makes
 * N allocations of sizes 16 B to 8 KiB (a fixed pseudo-random sequence)
 * and keeps every Kth (default 10); prints the exact totals of work_fn on stdout at
 * the end: "alloc_objs A alloc_bytes B inuse_objs C inuse_bytes D". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void **kept;

__attribute__((noinline)) static void work_fn(long n, long keep, unsigned long long *ab, long *io,
					     unsigned long long *ib)
{
	unsigned x = 12345;
	long k = 0;
	for (long i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		size_t sz = 16 + (x >> 8) % 8177;
		char *p = malloc(sz);
		p[0] = 1;
		*ab += sz;
		if (i % keep == 0) {
			kept[k++] = p;
			*ib += sz;
		} else {
			free(p);
		}
	}
	*io = k;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	long keep = argc > 2 && atol(argv[2]) > 0 ? atol(argv[2]) : 10;
	kept = calloc((size_t)(n / keep) + 1, sizeof(void *));
	unsigned long long ab = 0, ib = 0;
	long io = 0;
	work_fn(n, keep, &ab, &io, &ib);
	printf("alloc_objs %ld alloc_bytes %llu inuse_objs %ld inuse_bytes %llu\n", n, ab, io, ib);
	return 0;
}
