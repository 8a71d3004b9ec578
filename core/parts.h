/* parts.h - one pass over the samples cut in slices, a thread per slice:
 * agg_compute and callgraph_compute on big profiles. */
#ifndef MPROF_PARTS_H
#define MPROF_PARTS_H

#include <pthread.h>
#include <stddef.h>

#define PARTS_MAX 2

/* How many parts for nsamples: one below 200,000, where a thread costs
 * more than it saves. */
static inline int parts_for(size_t nsamples)
{
	return nsamples >= 200000 ? PARTS_MAX : 1;
}

/* Runs run on each of the n (<= PARTS_MAX) parts of size bytes at base:
 * part 0 here, the others on their own threads (here when one cannot
 * start); returns when all are done. */
static inline void parts_run(void *(*run)(void *), void *base, size_t size, int n)
{
	pthread_t tid[PARTS_MAX];
	int started[PARTS_MAX] = { 0 };
	for (int i = 1; i < n; i++)
		started[i] = !pthread_create(&tid[i], NULL, run, (char *)base + (size_t)i * size);
	for (int i = 1; i < n; i++)
		if (!started[i])
			run((char *)base + (size_t)i * size);
	run(base);
	for (int i = 1; i < n; i++)
		if (started[i])
			pthread_join(tid[i], NULL);
}

#endif
