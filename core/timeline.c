/* timeline.c - buckets of local peaks; see timeline.h. */
#include "core/timeline.h"

#include <string.h>

void tl_init(timeline *t, int64_t bucket_ns)
{
	memset(t, 0, sizeof(*t));
	t->bucket_ns = bucket_ns > 0 ? bucket_ns : 100000000;
	t->last = -1;
}

void tl_advance(timeline *t, int64_t k)
{
	if (k <= t->last)
		return;
	/* Buckets with no event hold the value carried from before. */
	int64_t from = t->last + 1;
	if (k - from >= TL_KEEP)
		from = k - TL_KEEP + 1;
	for (int64_t i = from; i <= k; i++) {
		tl_bucket *b = &t->b[i % TL_KEEP];
		b->heap = t->cur;
		b->rss = t->cur_rss;
	}
	t->last = k;
}

void tl_rss(timeline *t, int64_t t_ns, int64_t rss)
{
	int64_t k = t_ns / t->bucket_ns;
	if (k > t->last)
		tl_advance(t, k);
	t->cur_rss = rss;
	t->b[(t->last < 0 ? 0 : t->last) % TL_KEEP].rss = rss;
	if (rss > t->peak_rss)
		t->peak_rss = rss;
}
