/* faults_repeat.c - a stack copy queued once for its repeats: a thread
 * faulting in a loop sends the same 8 KiB of stack with every sample, so
 * the drainer keeps each thread's last copy (a slot per tid, direct
 * mapped) and queues a sample whose copy is byte for byte that one as
 * FAULTS_REC_REPEAT (its record up to the registers, and the slot); the
 * unwinder, reading the queue in the same order, keeps the same copies
 * and makes the sample whole again.  The unwind gets the very bytes it
 * would have had: the profile is the same, the queue holds 40 times more
 * samples while the unwinder catches up. */
#include "attach/faults/faults_int.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

int faults_slots_new(faults *f)
{
	for (int i = 0; i < FAULTS_SLOTS; i++)
		if (!(f->in_slot[i].bytes = malloc(FAULTS_STACK_USER)) || !(f->out_slot[i].bytes = malloc(FAULTS_STACK_USER)))
			return -1;
	return 0;
}

void faults_slots_free(faults *f)
{
	for (int i = 0; i < FAULTS_SLOTS; i++) {
		free(f->in_slot[i].bytes);
		free(f->out_slot[i].bytes);
	}
	free(f->whole);
}

/* IDENTIFIER, IP, TID, TIME, ADDR, then REGS_USER's abi and registers,
 * then STACK_USER: u64 size, size bytes, u64 dyn_size.  0 with the tid,
 * the offset of the size field and the bytes copied (dyn_size), or -1:
 * no registers or no stack copy. */
int faults_sample_stack(const uint8_t *rec, size_t len, int *tid, size_t *at, size_t *n)
{
	size_t o = sizeof(struct perf_event_header) + 40;
	uint64_t abi, pidtid, size, dyn;
	if (len < o + 8)
		return -1;
	memcpy(&pidtid, rec + sizeof(struct perf_event_header) + 16, 8);
	memcpy(&abi, rec + o, 8);
	o += 8 + (size_t)FAULTS_NREGS * 8;
	if (!abi || len < o + 8)
		return -1;
	memcpy(&size, rec + o, 8);
	if (!size || size > FAULTS_STACK_USER || len - o - 8 < size + 8)
		return -1;
	memcpy(&dyn, rec + o + 8 + size, 8);
	*tid = (int)(pidtid >> 32);
	*at = o;
	*n = dyn < size ? (size_t)dyn : (size_t)size;
	return 0;
}

static fslot *slot_of(fslot *s, int tid)
{
	return &s[(unsigned)tid % FAULTS_SLOTS];
}

static void slot_keep(fslot *s, int tid, const uint8_t *bytes, size_t n)
{
	s->tid = tid;
	s->len = (uint32_t)n;
	memcpy(s->bytes, bytes, n);
}

/* The drainer's side: rec queued whole, or as a repeat of its thread's
 * last copy.  faults_queue_put's result; the slot changes only once the
 * record is queued (a full queue leaves it in its ring, read again). */
int faults_queue_sample(faults *f, const uint8_t *rec, size_t len)
{
	int tid;
	size_t at, n;
	if (f->repeat_off || faults_sample_stack(rec, len, &tid, &at, &n))
		return faults_queue_put(f, rec, len);
	fslot *s = slot_of(f->in_slot, tid);
	if (s->tid == tid && s->len == n && !memcmp(s->bytes, rec + at + 8, n)) {
		uint8_t rep[sizeof(struct perf_event_header) + 48 + FAULTS_NREGS * 8 + 8];
		struct perf_event_header h = *(const struct perf_event_header *)rec;
		h.type = FAULTS_REC_REPEAT;
		h.size = (uint16_t)(at + 8);
		memcpy(rep, &h, sizeof(h));
		memcpy(rep + sizeof(h), rec + sizeof(h), at - sizeof(h));
		uint64_t slot = (unsigned)tid % FAULTS_SLOTS;
		memcpy(rep + at, &slot, 8);
		int rc = faults_queue_put(f, rep, at + 8);
		f->in_repeats += rc == 0;
		return rc;
	}
	int rc = faults_queue_put(f, rec, len);
	if (rc == 0)
		slot_keep(s, tid, rec + at + 8, n);
	return rc;
}

/* The unwinder's side, in queue order: a whole sample's copy kept, a
 * repeat made whole (in f->whole) from the copy kept.  The sample to
 * count, NULL when out of memory or the slot does not hold its thread. */
const uint8_t *faults_sample_whole(faults *f, const uint8_t *rec, size_t *len)
{
	const struct perf_event_header *h = (const void *)rec;
	int tid;
	size_t at, n;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (!f->repeat_off && !faults_sample_stack(rec, *len, &tid, &at, &n))
			slot_keep(slot_of(f->out_slot, tid), tid, rec + at + 8, n);
		return rec;
	}
	uint64_t pidtid;
	at = *len - 8;
	memcpy(&pidtid, rec + sizeof(*h) + 16, 8);
	tid = (int)(pidtid >> 32);
	const fslot *s = slot_of(f->out_slot, tid);
	size_t whole = at + 8 + s->len + 8;
	if (s->tid != tid || vec_grow((void **)&f->whole, &f->whole_cap, whole, 1))
		return NULL;
	uint64_t n64 = s->len;
	struct perf_event_header w = *h;
	w.type = PERF_RECORD_SAMPLE;
	w.size = (uint16_t)whole;
	memcpy(f->whole, rec, at);
	memcpy(f->whole, &w, sizeof(w));
	memcpy(f->whole + at, &n64, 8);
	memcpy(f->whole + at + 8, s->bytes, s->len);
	memcpy(f->whole + at + 8 + s->len, &n64, 8);
	*len = whole;
	return f->whole;
}
