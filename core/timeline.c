/* timeline.c - buckets of local peaks and the run's summary; see timeline.h. */
#include "core/timeline.h"

#include <string.h>

void tl_init(timeline *t, int64_t bucket_ns)
{
	memset(t, 0, sizeof(*t));
	t->bucket_ns = bucket_ns > 0 ? bucket_ns : 100000000;
	t->last = -1;
}

static void peak_into(tl_bucket *d, int64_t heap, int64_t rss)
{
	if (heap > d->heap)
		d->heap = heap;
	if (rss > d->rss)
		d->rss = rss;
}

/* Folds buckets lo..hi, all holding heap and rss, into the summary; halves
 * its resolution (pairs merged, their peaks kept) until hi fits. */
static void run_fold(timeline *t, int64_t lo, int64_t hi, int64_t heap, int64_t rss)
{
	while (((hi - t->origin) >> t->run_shift) >= TL_RUN) {
		for (int j = 0; j < TL_RUN / 2; j++) {
			t->run[j] = t->run[2 * j];
			peak_into(&t->run[j], t->run[2 * j + 1].heap, t->run[2 * j + 1].rss);
		}
		memset(&t->run[TL_RUN / 2], 0, sizeof(t->run) / 2);
		t->run_shift++;
	}
	for (int64_t j = (lo - t->origin) >> t->run_shift; j <= (hi - t->origin) >> t->run_shift; j++)
		peak_into(&t->run[j], heap, rss);
}

void tl_advance(timeline *t, int64_t k)
{
	if (k <= t->last)
		return;
	if (t->last < 0) {
		t->origin = k;
	} else {
		/* The newest bucket is complete: into the summary, with the gap after it. */
		const tl_bucket *b = tl_at(t, t->last);
		run_fold(t, t->last, t->last, b->heap, b->rss);
		if (k - 1 > t->last)
			run_fold(t, t->last + 1, k - 1, t->cur, t->cur_rss);
	}
	/* Buckets with no event hold the value carried from before. */
	int64_t from = t->last < 0 ? k : t->last + 1;
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

tl_bucket tl_span(const timeline *t, int64_t from, int64_t to)
{
	tl_bucket r = { 0, 0 };
	if (from < t->origin)
		from = t->origin;
	if (to > t->last)
		to = t->last;
	int64_t kept = tl_first(t);
	for (int64_t k = from; k <= to;) {
		if (k >= kept) {
			const tl_bucket *b = tl_at(t, k++);
			peak_into(&r, b->heap, b->rss);
			continue;
		}
		int64_t j = (k - t->origin) >> t->run_shift;
		peak_into(&r, t->run[j].heap, t->run[j].rss);
		k = t->origin + ((j + 1) << t->run_shift);
	}
	return r;
}
