/* faults_ring.c - the rings read with the kernel's head/tail protocol:
 * each record copied out (a record that wraps the ring's end made
 * contiguous) into a queue in the order of their times, other processes'
 * faults dropped as they are read, by a drainer thread of its own (the
 * unwinder, waiting for a CPU or loading a module's CFI, must not leave
 * the rings to overflow) and by faults_poll; the queue handled a bounded
 * number of samples at a time after every mapping and exec queued before
 * them (faults_poll), and the bytes still to read (faults_backlog). */
#include "attach/faults/faults_int.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The record at pos of ring r, contiguous (copied when it wraps). */
static const uint8_t *ring_rec(faults *f, fring *r, uint64_t pos, size_t *len)
{
	uint64_t off = pos & (r->size - 1);
	struct perf_event_header h;
	if (off + sizeof(h) <= r->size) {
		memcpy(&h, r->data + off, sizeof(h));
	} else {
		size_t first = (size_t)(r->size - off);
		memcpy(&h, r->data + off, first);
		memcpy((uint8_t *)&h + first, r->data, sizeof(h) - first);
	}
	*len = h.size;
	if (h.size < sizeof(h))
		return NULL;
	if (off + h.size <= r->size)
		return r->data + off;
	if (f->scratch_cap < h.size) {
		uint8_t *n = realloc(f->scratch, h.size);
		if (!n)
			return NULL;
		f->scratch = n;
		f->scratch_cap = h.size;
	}
	size_t first = (size_t)(r->size - off);
	memcpy(f->scratch, r->data + off, first);
	memcpy(f->scratch + first, r->data, h.size - first);
	return f->scratch;
}

/* Bytes [off, off + n) of the record at pos of ring r, across its end. */
static void ring_peek(const fring *r, uint64_t pos, size_t off, void *out, size_t n)
{
	uint64_t at = (pos + off) & (r->size - 1);
	size_t first = at + n <= r->size ? n : (size_t)(r->size - at);
	memcpy(out, r->data + at, first);
	memcpy((uint8_t *)out + first, r->data, n - first);
}

/* Where the next record of ring c sorts: a mapping, exec or loss first
 * (0), a sample by its time; UINT64_MAX when the ring has no more. */
static uint64_t ring_next_time(const faults *f, int c)
{
	const fring *r = &f->rings[c];
	if (!r->mp || f->tails[c] >= f->heads[c])
		return UINT64_MAX;
	struct perf_event_header h;
	ring_peek(r, f->tails[c], 0, &h, sizeof(h));
	uint64_t t = 0;
	if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 32)
		ring_peek(r, f->tails[c], sizeof(h) + 24, &t, 8);   /* after IDENTIFIER, IP, TID */
	return t < UINT64_MAX ? t : UINT64_MAX - 1;
}

/* A fault of another process (a child's, where the kernel cannot keep
 * them out): dropped as it is read, never queued or unwound. */
static int sample_other(faults *f, const uint8_t *rec, size_t len)
{
	uint64_t pidtid;
	if (len < sizeof(struct perf_event_header) + 24)
		return 0;
	memcpy(&pidtid, rec + sizeof(struct perf_event_header) + 16, 8);
	if ((int)(uint32_t)pidtid == f->pid)
		return 0;
	f->in_others++;
	return 1;
}

/* A loss on ring c: between that ring's last sample before it and the
 * record's time (its sample_id, the last 24 bytes: TID, TIME,
 * IDENTIFIER), as times after the first sample read. */
static void lost_when(faults *f, int c, const uint8_t *rec, size_t len)
{
	uint64_t to;
	if (((const struct perf_event_header *)rec)->type != PERF_RECORD_LOST || len < sizeof(struct perf_event_header) + 40)
		return;
	memcpy(&to, rec + len - 16, 8);
	uint64_t from = f->last_t[c] ? f->last_t[c] : f->first_t;
	if (!f->in_lost_to || from < f->in_lost_from)
		f->in_lost_from = from;
	if (to > f->in_lost_to)
		f->in_lost_to = to;
}

int faults_queue_put(faults *f, const uint8_t *rec, size_t len)
{
	if (f->q_len - f->q_head + len > FAULTS_QUEUE_MAX)
		return 1;
	/* The handled part goes once it is half the queue: moving a large
	 * backlog at every append would be quadratic. */
	if (f->q_head && f->q_len + len > f->q_cap && f->q_head >= f->q_cap / 2) {
		memmove(f->q, f->q + f->q_head, f->q_len - f->q_head);
		f->q_len -= f->q_head;
		f->q_meta -= f->q_head;
		f->q_head = 0;
	}
	if (vec_grow((void **)&f->q, &f->q_cap, f->q_len + len, 1))
		return -1;
	memcpy(f->q + f->q_len, rec, len);
	f->q_len += len;
	return 0;
}

/* Copies what the kernel wrote out of the rings into the queue, the rings
 * merged in the order of the samples' times (two faults on one page from
 * two CPUs: the later one holds it), so a burst of faults outruns the
 * unwinder only by the queue's size, not the rings'.  -1 when out of
 * memory.  The caller holds qlock. */
static int drain(faults *f)
{
	if (!f->tails && !(f->tails = calloc(3 * (size_t)f->ncpu, sizeof(*f->tails))))
		return -1;
	f->heads = f->tails + f->ncpu;
	f->last_t = f->heads + f->ncpu;
	for (int c = 0; c < f->ncpu; c++)
		if (f->rings[c].mp) {
			f->heads[c] = __atomic_load_n(&f->rings[c].mp->data_head, __ATOMIC_ACQUIRE);
			f->tails[c] = f->rings[c].mp->data_tail;
		}
	int rc = 0;
	for (;;) {
		int c = -1;
		uint64_t best = UINT64_MAX;
		for (int i = 0; i < f->ncpu && best; i++) {
			uint64_t t = ring_next_time(f, i);
			if (t < best)
				best = t, c = i;
		}
		if (c < 0)
			break;
		fring *r = &f->rings[c];
		size_t len;
		const uint8_t *rec = ring_rec(f, r, f->tails[c], &len);
		if (!rec) {
			rc = -1;
			break;
		}
		int sample = ((const struct perf_event_header *)rec)->type == PERF_RECORD_SAMPLE;
		if (sample)
			f->last_t[c] = best;
		else
			lost_when(f, c, rec, len);
		if (!sample || !sample_other(f, rec, len)) {
			int q = sample ? faults_queue_sample(f, rec, len) : faults_queue_put(f, rec, len);
			if (q) {
				rc = q < 0 ? -1 : 0;   /* full: the rest is read again later */
				break;
			}
		}
		f->in_samples += sample;
		if (sample && !f->first_t)
			f->first_t = best;
		f->tails[c] += len;
	}
	/* The kernel may reuse what we read only after this store. */
	for (int c = 0; c < f->ncpu; c++)
		if (f->rings[c].mp)
			__atomic_store_n(&f->rings[c].mp->data_tail, f->tails[c], __ATOMIC_RELEASE);
	return rc;
}

static int drain_locked(faults *f)
{
	pthread_mutex_lock(&f->qlock);
	int rc = drain(f);
	f->st.samples = f->in_samples;
	f->st.others = f->in_others;
	f->st.copies_shared = f->in_repeats;
	if (f->in_lost_to && f->first_t) {
		f->st.lost_from_ns = f->in_lost_from > f->first_t ? f->in_lost_from - f->first_t : 0;
		f->st.lost_to_ns = f->in_lost_to > f->first_t ? f->in_lost_to - f->first_t : 0;
	}
	pthread_mutex_unlock(&f->qlock);
	return rc;
}

static int is_sample(const struct perf_event_header *h)
{
	return h->type == PERF_RECORD_SAMPLE || h->type == FAULTS_REC_REPEAT;
}

/* Appends the queued record h to f->work at *w: 0, or -1 on ENOMEM. */
static int work_add(faults *f, size_t *w, const struct perf_event_header *h)
{
	if (vec_grow((void **)&f->work, &f->work_cap, *w + h->size, 1))
		return -1;
	memcpy(f->work + *w, h, h->size);
	*w += h->size;
	return 0;
}

/* Takes out of the queue, into f->work, every mapping and exec queued
 * (work_meta bytes) then at most max samples: handled without qlock, the
 * drainer goes on meanwhile.  0, or -1 on ENOMEM. */
static int take(faults *f, long max)
{
	int rc = 0;
	size_t w = 0;
	pthread_mutex_lock(&f->qlock);
	while (f->q_meta < f->q_len) {
		const struct perf_event_header *h = (const void *)(f->q + f->q_meta);
		if (!is_sample(h) && (rc = work_add(f, &w, h)))
			break;
		f->q_meta += h->size;
	}
	f->work_meta = w;
	for (long n = 0; !rc && f->q_head < f->q_meta && n < max;) {
		const struct perf_event_header *h = (const void *)(f->q + f->q_head);
		if (is_sample(h)) {
			if ((rc = work_add(f, &w, h)))
				break;
			n++;
		}
		f->q_head += h->size;
	}
	if (f->q_head == f->q_len)
		f->q_head = f->q_len = f->q_meta = 0;
	pthread_mutex_unlock(&f->qlock);
	f->work_len = w;
	return rc;
}

/* Handles at most max queued samples; returns how many, -1 on ENOMEM. */
static long process(faults *f, long max)
{
	/* First every queued mapping and exec, whichever ring it came from: a
	 * sample in a library another CPU mapped finds its module. */
	if (take(f, max))
		return -1;
	size_t at = 0;
	for (; at < f->work_meta; at += ((const struct perf_event_header *)(f->work + at))->size)
		faults_on_meta(f, f->work + at, ((const struct perf_event_header *)(f->work + at))->size);
	long done = 0;
	while (at < f->work_len) {
		size_t len = ((const struct perf_event_header *)(f->work + at))->size;
		size_t wl = len;
		const uint8_t *rec = faults_sample_whole(f, f->work + at, &wl);
		if (!rec || faults_on_sample(f, rec, wl) < 0)
			return -1;
		done++;
		at += len;
	}
	return done;
}

static int queue_empty(faults *f)
{
	pthread_mutex_lock(&f->qlock);
	int e = f->q_len == f->q_head;
	pthread_mutex_unlock(&f->qlock);
	return e;
}

long faults_poll(faults *f, long max)
{
	long done = 0;
	for (;;) {
		if (drain_locked(f))
			return -1;
		long n = process(f, max && max - done < 16 ? max - done : 16);   /* drained often: rings fill in milliseconds */
		if (n < 0)
			return -1;
		done += n;
		int empty = queue_empty(f);
		if (empty && faults_backlog(f) == 0)
			faults_resident_tick(f);   /* every fault so far counted: the reading matches them */
		if (empty || (max && done >= max))
			return done;
	}
}

static void *drainer(void *arg)
{
	faults *f = arg;
	faults_reader_boost();
	while (!__atomic_load_n(&f->drain_stop, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&f->qlock);
		uint64_t had = f->in_samples + f->in_others;
		drain(f);
		int got = f->in_samples + f->in_others != had;
		pthread_mutex_unlock(&f->qlock);
		if (!got) {
			struct timespec ts = { 0, FAULTS_DRAIN_NS };
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

int faults_drain_start(faults *f)
{
	if (pthread_create(&f->drainer, NULL, drainer, f))
		return -1;
	f->draining = 1;
	return 0;
}

void faults_drain_stop(faults *f)
{
	if (!f->draining)
		return;
	__atomic_store_n(&f->drain_stop, 1, __ATOMIC_RELEASE);
	pthread_join(f->drainer, NULL);
	f->draining = 0;
}

uint64_t faults_backlog(faults *f)
{
	pthread_mutex_lock(&f->qlock);
	uint64_t n = f->q_len - f->q_head;
	pthread_mutex_unlock(&f->qlock);
	for (int c = 0; c < f->ncpu; c++)
		if (f->rings[c].mp)
			n += __atomic_load_n(&f->rings[c].mp->data_head, __ATOMIC_ACQUIRE) - f->rings[c].mp->data_tail;
	return n;
}
