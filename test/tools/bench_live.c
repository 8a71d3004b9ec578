/* bench_live.c - the live consumer's costs:
 *   bench_live drain [EVENTS]  the ring drain rate (events/s), over an
 *                              in-memory ring the tool fills as a producer;
 *   bench_live refresh PID [N] one refresh of a hooked process's profile as
 *                              the UI does it (read the segment, recompute
 *                              the aggregate, re-sort, keep the place). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attach/live/follow.h"
#include "core/view.h"
#include "symbols/sym.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int drain(long total)
{
	const uint64_t cap = 1u << 15;
	seg_slot *ring = calloc(cap, sizeof(*ring));
	if (!ring)
		return 1;
	timeline tl;
	tl_init(&tl, 100000000);
	uint64_t pos = 0, head = 0, lost = 0, got = 0, made = 0;
	int64_t value = 0;
	double spent = 0;
	while (made < (uint64_t)total) {
		/* Produce one lap: alternating allocs and frees, 1 us apart, as
		 * many to a slot as fit (the hook's encoding). */
		for (uint64_t i = 0; i < cap; i++, head++) {
			seg_slot *sl = &ring[head & (cap - 1)];
			seg_event prev = { .time_ns = made * 1000 };
			sl->time_ns = prev.time_ns;
			sl->n = 0;
			sl->len = 0;
			while (sl->len + SEG_EV_MAXLEN <= SEG_SLOT_DATA) {
				seg_event e = { .time_ns = made * 1000, .size = 32 + (made & 255),
						.kind = made & 1 ? SEG_EV_FREE : SEG_EV_ALLOC,
						.stack = (uint32_t)(made & 4095), .key = (uint32_t)(made * 40) };
				sl->len = (uint16_t)(seg_slot_put(sl->data + sl->len, &prev, &e) - sl->data);
				sl->n++;
				made++;
			}
			__atomic_store_n(&sl->seq, head + 1, __ATOMIC_RELEASE);
		}
		double t0 = now_s();
		got += follow_drain_ring(ring, cap, head, &pos, &value, &tl, &lost, 0);
		spent += now_s() - t0;
	}
	printf("ring drain: %llu events in %.3f s = %.1f million events/s (target >= 10 million/s); lost %llu\n",
	       (unsigned long long)got, spent, (double)got / spent / 1e6, (unsigned long long)lost);
	free(ring);
	return got == made ? 0 : 1;
}

static int gran_fn(void *ctx, unsigned idx, const prof *p, prof_nodemap *m, char *err, size_t errlen)
{
	(void)idx;
	(void)err;
	(void)errlen;
	return sym_nodemap(m, p, ctx, SYM_GRAN_FUNCTION);
}

static int refresh(int pid, int rounds)
{
	follow f;
	prof_error err;
	if (follow_open(&f, pid, NULL, &err)) {
		fprintf(stderr, "bench_live: %s\n", err.msg);
		return 1;
	}
	double t0 = now_s();
	if (follow_sync(&f) < 0)
		return 1;
	double t_first = now_s() - t0;
	sym_opts so = { .pid = pid };
	sym *sy = sym_open(f.p, &so);
	prof_nodemap *m = calloc(1, sizeof(*m));
	agg *a = calloc(1, sizeof(*a));
	view v;
	if (!sy || !m || !a || sym_nodemap(m, f.p, sy, SYM_GRAN_FUNCTION) || agg_compute(a, f.p, m) ||
	    view_init(&v, f.p, m, a, "bench"))
		return 1;
	v.gran[0].owned = 1;
	view_set_gran_builder(&v, gran_fn, sy);
	double t_open = now_s() - t0;
	view_move(&v, 3);
	double worst = 0, sum = 0, sync_sum = 0;
	int changed = 0;
	for (int i = 0; i < rounds; i++) {
		struct timespec pause = { 0, 20000000 };   /* let the target move */
		nanosleep(&pause, NULL);
		double s = now_s();
		int ch = follow_sync(&f);
		sync_sum += now_s() - s;
		if (ch < 0 || view_reload(&v, f.p, ch & FOLLOW_FRAMES))
			return 1;
		double d = now_s() - s;
		changed += ch != 0;
		sum += d;
		if (d > worst)
			worst = d;
	}
	double ms = sum / rounds * 1000;
	printf("live refresh: %zu stacks, %zu frames, %u nodes; first read %.1f ms, open with symbols %.1f ms\n",
	       f.p->stacks.len, f.p->frames.len, v.m->nnodes, t_first * 1000, t_open * 1000);
	printf("live refresh: reading the segment %.2f ms, aggregate + re-sort + place %.2f ms\n",
	       sync_sum / rounds * 1000, (sum - sync_sum) / rounds * 1000);
	printf("live refresh: %.2f ms per refresh (worst %.2f ms, %d of %d saw changes) = %.1f %% of one core at 10 Hz "
	       "(target < 20 %%)\n", ms, worst * 1000, changed, rounds, ms * 10 / 1000 * 100);
	view_free(&v);
	sym_close(sy);
	follow_close(&f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "drain"))
		return drain(argc > 2 ? atol(argv[2]) : 50000000L);
	if (argc >= 3 && !strcmp(argv[1], "refresh"))
		return refresh(atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 20);
	fprintf(stderr, "usage: bench_live drain [EVENTS] | refresh PID [ROUNDS]\n");
	return 2;
}
