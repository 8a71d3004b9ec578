/* timeline.h - heap in use over time in fixed buckets (100 ms in the live
 * UI), each bucket its local peak, beside the process RSS sampled now and
 * then: a window of the newest buckets at full resolution, and the whole
 * run since the first bucket in a bounded summary of coarser buckets
 * (pairs merged, their peak kept, each time it fills). No I/O. */
#ifndef MPROF_TIMELINE_H
#define MPROF_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#define TL_KEEP 1024   /* buckets kept at full resolution: the newest */
#define TL_RUN 1024    /* coarse buckets summarising the whole run */

typedef struct tl_bucket {
	int64_t heap;      /* peak heap in use in the bucket */
	int64_t rss;       /* last RSS sampled in the bucket (carried over); in the summary, the peak */
} tl_bucket;

typedef struct timeline {
	int64_t bucket_ns;
	tl_bucket b[TL_KEEP];   /* bucket k lives in b[k % TL_KEEP] */
	int64_t last;           /* index of the newest bucket; -1 before any value */
	int64_t origin;         /* index of the first bucket (the run starts there) */
	int run_shift;          /* a summary bucket holds 2^run_shift buckets */
	tl_bucket run[TL_RUN];  /* run[j]: buckets origin + (j << run_shift) on; all before last folded in */
	int64_t cur, cur_rss;   /* the latest values */
	int64_t peak, peak_rss; /* the highest ever seen */
} timeline;

void tl_init(timeline *t, int64_t bucket_ns);
/* The heap in use is v at time t_ns (monotonic, from any origin); times
 * earlier than the newest bucket count in the newest bucket. */
static inline void tl_heap(timeline *t, int64_t t_ns, int64_t v);
void tl_rss(timeline *t, int64_t t_ns, int64_t rss);
/* Makes bucket k the newest, carrying the current values into the gap;
 * the first call sets the run's origin. */
void tl_advance(timeline *t, int64_t k);
/* Oldest bucket kept at full resolution (to last); the bucket of index k. */
static inline int64_t tl_first(const timeline *t)
{
	int64_t f = t->last - TL_KEEP + 1;
	return f > t->origin ? f : t->origin;
}
static inline const tl_bucket *tl_at(const timeline *t, int64_t k)
{
	return &t->b[k % TL_KEEP];
}
/* The peaks of heap and RSS over buckets from..to (clipped to the run):
 * exact where the buckets are kept, from the summary before that (a
 * summary bucket that overlaps the span counts whole). */
tl_bucket tl_span(const timeline *t, int64_t from, int64_t to);

static inline void tl_heap(timeline *t, int64_t t_ns, int64_t v)
{
	int64_t k = t_ns / t->bucket_ns;
	if (k > t->last)
		tl_advance(t, k);
	tl_bucket *b = &t->b[(t->last < 0 ? 0 : t->last) % TL_KEEP];
	t->cur = v;
	if (v > b->heap)
		b->heap = v;
	if (v > t->peak)
		t->peak = v;
}

#endif
