/* timeline.h - heap in use over time in fixed buckets (100 ms in the live
 * UI), each bucket its local peak, beside the process RSS sampled now and
 * then; a bounded window of the latest buckets. No I/O. */
#ifndef MPROF_TIMELINE_H
#define MPROF_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#define TL_KEEP 1024   /* buckets kept: the strip scrolls past older ones */

typedef struct tl_bucket {
	int64_t heap;      /* peak heap in use in the bucket */
	int64_t rss;       /* last RSS sampled in the bucket (carried over) */
} tl_bucket;

typedef struct timeline {
	int64_t bucket_ns;
	tl_bucket b[TL_KEEP];   /* bucket k lives in b[k % TL_KEEP] */
	int64_t last;           /* index of the newest bucket; -1 before any value */
	int64_t cur, cur_rss;   /* the latest values */
	int64_t peak, peak_rss; /* the highest ever seen */
} timeline;

void tl_init(timeline *t, int64_t bucket_ns);
/* The heap in use is v at time t_ns (monotonic, from any origin); times
 * earlier than the newest bucket count in the newest bucket. */
static inline void tl_heap(timeline *t, int64_t t_ns, int64_t v);
void tl_rss(timeline *t, int64_t t_ns, int64_t rss);
/* Makes bucket k the newest, carrying the current values into the gap. */
void tl_advance(timeline *t, int64_t k);
/* Oldest kept bucket index (to last); the bucket of index k. */
static inline int64_t tl_first(const timeline *t)
{
	return t->last < TL_KEEP ? 0 : t->last - TL_KEEP + 1;
}
static inline const tl_bucket *tl_at(const timeline *t, int64_t k)
{
	return &t->b[k % TL_KEEP];
}

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
