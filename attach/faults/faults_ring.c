/* faults_ring.c - the rings read with the kernel's head/tail protocol:
 * each record copied out (a record that wraps the ring's end made
 * contiguous) into a queue, faults on pages counted already dropped as
 * they are read, the queue handled a bounded number of samples at a time
 * after every mapping and exec queued before them (faults_poll), and the
 * bytes still to read (faults_backlog). */
#include "attach/faults/faults_int.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

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

/* A fault on a page counted already (or of another process): its record
 * is dropped as it is read, never queued or unwound. */
static int sample_known(faults *f, const uint8_t *rec, size_t len)
{
	uint64_t pidtid, addr;
	if (len < sizeof(struct perf_event_header) + 32)
		return 0;
	memcpy(&pidtid, rec + sizeof(struct perf_event_header) + 16, 8);
	memcpy(&addr, rec + sizeof(struct perf_event_header) + 24, 8);
	if ((int)(uint32_t)pidtid != f->pid) {
		f->st.others++;
		return 1;
	}
	uint64_t key = ((uint64_t)(f->gen & 0xffff) << 48) ^ (addr / (uint64_t)f->page_size);
	if (u64map_get(&f->pages, key) == U64MAP_NONE)
		return 0;
	f->st.repeats++;
	return 1;
}

/* Copies what the kernel wrote out of the rings into the queue, so a burst
 * of faults outruns the unwinder only by the queue's size, not the rings'.
 * -1 when out of memory. */
static int drain(faults *f)
{
	for (int c = 0; c < f->ncpu; c++) {
		fring *r = &f->rings[c];
		if (!r->mp)
			continue;
		uint64_t head = __atomic_load_n(&r->mp->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = r->mp->data_tail;
		while (tail < head) {
			size_t len;
			const uint8_t *rec = ring_rec(f, r, tail, &len);
			if (!rec)
				return -1;
			int sample = ((const struct perf_event_header *)rec)->type == PERF_RECORD_SAMPLE;
			f->st.samples += sample;
			if (!sample || !sample_known(f, rec, len)) {
				if (f->q_len - f->q_head + len > FAULTS_QUEUE_MAX) {
					f->st.samples -= sample;   /* left in the ring: read again later */
					break;
				}
				/* The handled part goes once it is half the queue: moving
				 * a large backlog at every append would be quadratic. */
				if (f->q_len + len > f->q_cap && f->q_head >= f->q_cap / 2) {
					memmove(f->q, f->q + f->q_head, f->q_len - f->q_head);
					f->q_len -= f->q_head;
					f->q_meta -= f->q_head;
					f->q_head = 0;
				}
				if (vec_grow((void **)&f->q, &f->q_cap, f->q_len + len, 1))
					return -1;
				memcpy(f->q + f->q_len, rec, len);
				f->q_len += len;
			}
			tail += len;
		}
		/* The kernel may reuse what we read only after this store. */
		__atomic_store_n(&r->mp->data_tail, tail, __ATOMIC_RELEASE);
	}
	return 0;
}

/* Handles at most max queued samples; returns how many, -1 on ENOMEM. */
static long process(faults *f, long max)
{
	/* First every queued mapping and exec, whichever ring it came from: a
	 * sample in a library another CPU mapped finds its module. */
	while (f->q_meta < f->q_len) {
		const struct perf_event_header *h = (const void *)(f->q + f->q_meta);
		if (h->type != PERF_RECORD_SAMPLE)
			faults_on_meta(f, f->q + f->q_meta, h->size);
		f->q_meta += h->size;
	}
	long done = 0;
	while (f->q_head < f->q_meta && done < max) {
		const struct perf_event_header *h = (const void *)(f->q + f->q_head);
		if (h->type == PERF_RECORD_SAMPLE) {
			if (faults_on_sample(f, f->q + f->q_head, h->size) < 0)
				return -1;
			done++;
		}
		f->q_head += h->size;
	}
	if (f->q_head == f->q_len)
		f->q_head = f->q_len = f->q_meta = 0;
	return done;
}

long faults_poll(faults *f, long max)
{
	long done = 0;
	for (;;) {
		if (drain(f))
			return -1;
		long n = process(f, max && max - done < 16 ? max - done : 16);   /* drained often: rings fill in milliseconds */
		if (n < 0)
			return -1;
		done += n;
		if (f->q_len == f->q_head || (max && done >= max))
			return done;
	}
}

uint64_t faults_backlog(const faults *f)
{
	uint64_t n = f->q_len - f->q_head;
	for (int c = 0; c < f->ncpu; c++)
		if (f->rings[c].mp)
			n += __atomic_load_n(&f->rings[c].mp->data_head, __ATOMIC_ACQUIRE) - f->rings[c].mp->data_tail;
	return n;
}
