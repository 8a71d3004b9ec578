/* record.c - the recording writer (see record.h). Events are copied out
 * of the ring in ring order; ring_read is moved after each batch so that
 * producers waiting for room go on. The counters written in checkpoints
 * are those of the stream itself (plus the segment's at a late attach), so
 * a reader replaying a file from its checkpoint gets the same numbers.
 * Chunks gather in buf and go into the file's open zstd frame at the end
 * of each poll, as whole blocks (record_file.c), all on this thread. */
#include "attach/shared/record.h"
#include "attach/shared/mapmem.h"
#include "core/heap_scale.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RECW_BUF (8u << 20)
#define RECW_FLUSH (4u << 20)   /* a frame ends past this many raw bytes */
#define RECW_AHEAD 8            /* put_slot's prefetch distance, in events */
#define RECW_COUNTS_PER_CHUNK 16384
#define RECW_IDLE_NS 100000000LL     /* a writer idle this long ends its frame */
/* Long chunks: a free refers back within its chunk (a few bytes) rather
 * than repeating its stack and size; a chunk still decodes in milliseconds. */
#define RECW_EV_PER_CHUNK 262144
#define RECW_FLUSH_NS 1000000000LL   /* a frame ends within a second */
/* A free held for its allocation, when no sweep says what is still staged
 * (a recorder outside the process): threads publishing slots sweep every
 * RING_STAGE_NS, so an allocation comes within a few of those. */
#define RECW_HOLD_NS 50000000LL
#define RECW_HOLD_MAX_NS 1000000000LL   /* and at most this even when a stage seems to hold one back */

/* Room for n more bytes in buf (flushing first if needed); NULL on error. */
static uint8_t *room(rec_writer *w, size_t n)
{
	if (w->len + n > RECW_BUF && recf_push(w, 0))
		return NULL;
	return n <= RECW_BUF ? w->buf + w->len : NULL;
}

static void ev_close(rec_writer *w)
{
	if (w->ev_chunk == SIZE_MAX)
		return;
	while (w->len & 7)   /* chunks stay 8-byte aligned in buf: the writer fills them through structs */
		w->buf[w->len++] = 0;
	uint32_t len = (uint32_t)(w->len - w->ev_chunk - sizeof(rec_chunk));
	memcpy(w->buf + w->ev_chunk + 4, &len, 4);
	memcpy(w->buf + w->ev_chunk + sizeof(rec_chunk), &w->ev_count, 4);
	w->ev_chunk = SIZE_MAX;
	w->ev_count = 0;
}

/* Appends a chunk of len payload bytes (a multiple of 8); returns where
 * the payload goes. */
static uint8_t *chunk(rec_writer *w, uint32_t type, size_t len)
{
	ev_close(w);
	uint8_t *p = room(w, sizeof(rec_chunk) + len);
	if (!p)
		return NULL;
	rec_chunk c = { type, (uint32_t)len };
	memcpy(p, &c, sizeof(c));
	memset(p + sizeof(c), 0, len);
	w->len += sizeof(c) + len;
	return p + sizeof(c);
}

static int put_modules(rec_writer *w)
{
	uint64_t n = __atomic_load_n(&w->hw->module_count, __ATOMIC_ACQUIRE);
	if (n > w->hc.module_cap)
		n = w->hc.module_cap;
	const seg_module *mods = (const seg_module *)(w->base + w->hc.off[SEG_R_MODULES]);
	for (; w->nmods < n; w->nmods++) {
		rec_module *m = (rec_module *)chunk(w, REC_C_MODULE, sizeof(rec_module));
		if (!m)
			return -1;
		const seg_module *s = &mods[w->nmods];
		m->index = (uint32_t)w->nmods;
		m->state = s->state;
		m->base = s->base;
		m->size = s->size;
		m->offset = s->offset;
		m->bias = s->bias;
		memcpy(m->build_id, s->build_id, sizeof(m->build_id) - 1);
		memcpy(m->path, s->path, sizeof(m->path) - 1);
	}
	return 0;
}

/* Writes the ready stacks not yet in this file (all = from id 0). */
static int put_stacks(rec_writer *w)
{
	uint64_t n = __atomic_load_n(&w->hw->stack_count, __ATOMIC_ACQUIRE);
	if (n > w->hc.stack_cap)
		n = w->hc.stack_cap;
	const seg_stack *sts = (const seg_stack *)(w->base + w->hc.off[SEG_R_STACKS]);
	const uint64_t *pcs = (const uint64_t *)(w->base + w->hc.off[SEG_R_FRAMES]);
	uint64_t nf = w->hc.frame_cap;
	size_t hdr = SIZE_MAX;
	uint32_t count = 0, bytes = 0;
	int low_moves = 1;
	for (uint64_t id = w->stack_low; id < n; id++) {
		if (w->written[id >> 3] & (1u << (id & 7)))
			goto done;
		uint32_t st = __atomic_load_n(&sts[id].state, __ATOMIC_ACQUIRE);
		if (st == SEG_STACK_DUP)
			goto mark;
		if (st != SEG_STACK_READY) {
			low_moves = 0;
			continue;
		}
		uint32_t depth = sts[id].depth;
		uint64_t fo = sts[id].frame_off;
		if (depth > SEG_MAX_PCS || fo > nf || depth > nf - fo)
			goto mark;   /* corrupt: never referenced usefully */
		size_t need = 8 + (size_t)depth * 8;
		if (hdr == SIZE_MAX || bytes + need > (1u << 20)) {
			if (hdr != SIZE_MAX) {
				memcpy(w->buf + hdr + 8, &count, 4);
				((rec_chunk *)(w->buf + hdr))->len = bytes;
			}
			ev_close(w);
			if (!room(w, 8 + 8 + (1u << 20) + need))
				return -1;
			hdr = w->len;
			rec_chunk c = { REC_C_STACKS, 0 };
			memcpy(w->buf + hdr, &c, 8);
			memset(w->buf + hdr + 8, 0, 8);
			w->len += 16;
			count = 0;
			bytes = 8;
		}
		uint32_t rec[2] = { (uint32_t)id, depth };
		memcpy(w->buf + w->len, rec, 8);
		memcpy(w->buf + w->len + 8, pcs + fo, (size_t)depth * 8);
		w->len += need;
		bytes += (uint32_t)need;
		count++;
mark:
		w->written[id >> 3] |= (uint8_t)(1u << (id & 7));
done:
		if (low_moves)
			w->stack_low = id + 1;
	}
	if (hdr != SIZE_MAX) {
		memcpy(w->buf + hdr + 8, &count, 4);
		((rec_chunk *)(w->buf + hdr))->len = bytes;
	}
	return 0;
}

/* The counters of every stack with any, as a CHECKPOINT chunk followed by
 * COUNTS chunks of at most RECW_COUNTS_PER_CHUNK entries. */
static int put_checkpoint(rec_writer *w)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < w->cnt_n; i++)
		n += w->cnt[i].c.alloc_objs || w->cnt[i].c.free_objs;
	rec_checkpoint *c = (rec_checkpoint *)chunk(w, REC_C_CHECKPOINT, sizeof(*c));
	if (!c)
		return -1;
	c->events = w->events;
	c->time_ns = w->tmax;
	c->nstacks = n;
	c->lost = w->lost;
	for (uint64_t i = 0; i < w->cnt_n;) {
		const uint32_t max = RECW_COUNTS_PER_CHUNK;
		uint8_t *p = chunk(w, REC_C_COUNTS, (size_t)max * sizeof(rec_counts));
		if (!p)
			return -1;
		uint32_t k = 0;
		for (; i < w->cnt_n && k < max; i++) {
			if (!w->cnt[i].c.alloc_objs && !w->cnt[i].c.free_objs)
				continue;
			rec_counts rc = w->cnt[i];
			rc.id = (uint32_t)i;
			memcpy(p + (size_t)k * sizeof(rc), &rc, sizeof(rc));
			k++;
		}
		((rec_chunk *)(p - sizeof(rec_chunk)))->len = k * (uint32_t)sizeof(rec_counts);
		w->len -= (size_t)(max - k) * sizeof(rec_counts);
	}
	return 0;
}

/* Opens file seq and writes its header, modules, stacks and checkpoint:
 * pushed out at once, so the file is readable from its first poll on. */
static int file_open(rec_writer *w)
{
	w->len = 0;
	if (recf_create(w))
		return -1;
	w->file_events = 0;
	w->nmods = 0;
	memset(w->written, 0, (size_t)(w->hc.stack_cap + 7) / 8);
	w->stack_low = 0;
	if (put_modules(w) || put_stacks(w) || put_checkpoint(w))
		return -1;
	return recf_push(w, 0);
}

static int file_close(rec_writer *w)
{
	rec_end *e = (rec_end *)chunk(w, REC_C_END, sizeof(*e));
	if (!e)
		return -1;
	e->events = w->events;
	int64_t now = recw_now(w);   /* the heap stayed as it was until now */
	e->time_ns = (uint64_t)now > w->tmax ? (uint64_t)now : w->tmax;
	e->how = w->end_how;
	if (recf_push(w, 1))
		return -1;
	close(w->fd);
	w->fd = -1;
	return 0;
}

int recw_open(rec_writer *w, const void *base, const seg_header *hc, seg_header *hw, const char *dir,
	      uint64_t max_size, unsigned max_files, int from_counters, settings_warn_fn *warn)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->ev_chunk = SIZE_MAX;
	w->stage_low = -1;
	w->owed.any = 1;
	w->base = base;
	w->hc = *hc;
	w->hw = hw;
	w->pid = (int)hc->pid;
	w->max_size = max_size ? max_size : settings_num("MPROF_RECORD_SIZE", RECW_DEFAULT_SIZE, 1, UINT64_MAX, warn);
	w->max_files = max_files ? max_files
				 : (unsigned)settings_num("MPROF_RECORD_FILES", RECW_DEFAULT_FILES, 1, 1000000, warn);
	w->dirfd = -1;
	if (recf_dir(w, dir))
		return -1;
	w->buf = hook_map(RECW_BUF);
	w->zbuf = hook_map(RECW_ZPIECE);
	hook_populate(w->buf, RECW_FLUSH + (256u << 10));   /* what a frame fills */
	hook_populate(w->zbuf, RECW_ZPIECE);
	w->cnt = hook_map((size_t)hc->stack_cap * sizeof(rec_counts));
	w->written = hook_map((size_t)(hc->stack_cap + 7) / 8);
	if (!w->buf || !w->zbuf || !w->cnt || !w->written || recf_zinit(w)) {
		snprintf(w->err, sizeof(w->err), "%.200s: out of memory", w->dir);
		recw_close(w);
		return -1;
	}
	memcpy(w->fh.magic, REC_MAGIC, 8);
	w->fh.version = REC_VERSION;
	w->fh.header_size = sizeof(w->fh);
	w->fh.pid = hc->pid;
	w->fh.unwind = hc->unwind;
	w->fh.start_time_ns = hc->start_time_ns;
	w->fh.sample_rate = hc->sample_rate;
	memcpy(w->fh.cmdline, hc->cmdline, sizeof(w->fh.cmdline) - 1);
	seg_ring_beat(hw, recw_now(w));   /* events go to the ring from here on */
	w->pos = __atomic_load_n(&hw->ring_head, __ATOMIC_ACQUIRE);
	w->stuck_pos = UINT64_MAX;
	/* Blocks alive before the stream began: their frees come without an
	 * allocation (w->late); a late start takes the counters as they are. */
	uint64_t n = __atomic_load_n(&hw->stack_count, __ATOMIC_ACQUIRE);
	if (n > hc->stack_cap)
		n = hc->stack_cap;
	const mp_counts *reg = (const mp_counts *)(w->base + hc->off[SEG_R_COUNTERS]);
	for (uint64_t i = 0; i < n; i++) {
		mp_counts c;
		seg_counter_estimate(hc, reg, i, &c);   /* the segment holds what was sampled */
		w->late |= c.alloc_objs > c.free_objs;
		if (from_counters)
			w->cnt[i] = (rec_counts){ .c = c };
	}
	if (from_counters) {
		w->cnt_n = n;
		w->tmax = (uint64_t)recw_now(w);
	}
	w->waits_seen = __atomic_load_n(&hw->rec_waits, __ATOMIC_RELAXED);
	w->lost_seen = __atomic_load_n(&hw->rec_lost, __ATOMIC_RELAXED);
	w->wait_ns_seen = __atomic_load_n(&hw->rec_wait_ns, __ATOMIC_RELAXED);
	w->seq = 1;
	if (file_open(w)) {
		recw_close(w);
		return -1;
	}
	recw_beat(w, 1);
	return 0;
}

uint64_t recw_backlog(const rec_writer *w)
{
	return __atomic_load_n(&w->hw->ring_head, __ATOMIC_ACQUIRE) - w->pos;
}

/* Opens an EVENTS chunk with room for n more events unless the open one
 * has it; one that continues the run of the frame's last (REC_EV_CONT)
 * while the run has room: each poll closes a chunk so that it reaches the
 * file, and a free still refers back across those chunks in a few bytes. */
static int ev_room(rec_writer *w, uint32_t n)
{
	int fits = w->events + n - w->ev_first <= RECW_EV_PER_CHUNK;
	if (w->ev_chunk != SIZE_MAX && fits && w->len + (size_t)n * REC_EV_MAX + 8 <= RECW_BUF)
		return 0;
	ev_close(w);
	if (!room(w, 16 + (size_t)(n > SEG_SLOT_MAX_EVENTS ? n : SEG_SLOT_MAX_EVENTS) * REC_EV_MAX + 8))
		return -1;
	uint32_t cont = w->ev_run && fits ? REC_EV_CONT : 0;   /* room() may have pushed: the frame goes on */
	w->ev_chunk = w->len;
	rec_chunk c = { REC_C_EVENTS, 8 };
	memcpy(w->buf + w->len, &c, 8);
	memset(w->buf + w->len + 8, 0, 4);
	memcpy(w->buf + w->len + 12, &cont, 4);
	w->len += 16;
	w->ev_count = 0;
	w->ev_run = 1;
	if (cont)
		return 0;
	w->ev_first = w->events;
	w->ev_time_us = 0;
	w->ev_stack = 0;
	w->ev_tid = 0;
	w->ev_age = 0;
	return 0;
}

/* The encoder's running state in the open EVENTS chunk, in locals while a
 * slot is put (stores through a byte pointer would make the compiler
 * reload it from w after each). */
typedef struct rec_enc {
	uint8_t *p;
	uint64_t pos, first, time_us, tmax, age0, cnt_n;
	uint32_t stack, tid;
} rec_enc;

static inline void enc_load(const rec_writer *w, rec_enc *s)
{
	*s = (rec_enc){ w->buf + w->len, w->events, w->ev_first, w->ev_time_us, w->tmax, w->ev_age, w->cnt_n,
			w->ev_stack, w->ev_tid };
}

static inline void enc_store(rec_writer *w, const rec_enc *s)
{
	uint64_t k = s->pos - w->events;
	w->len = (size_t)(s->p - w->buf);
	w->ev_count += (uint32_t)k;
	w->events = s->pos;
	w->file_events += k;
	w->ev_time_us = s->time_us;
	w->ev_stack = s->stack;
	w->ev_tid = s->tid;
	w->ev_age = s->age0;
	w->tmax = s->tmax;
	w->cnt_n = s->cnt_n;
}

/* Encodes e at position s->pos (recfmt.h) and counts it; paired: a free
 * whose allocation is at apos. */
static inline __attribute__((always_inline)) void enc_put(rec_enc *s, const seg_event *e, int paired, uint64_t apos,
							  rec_counts *cnt, uint64_t rate, uint64_t cap)
{
	uint64_t tus = e->time_ns / 1000, x = 0;
	int is_free = e->kind == SEG_EV_FREE;
	/* A free refers back within the chunk when it can, else says all. */
	if (is_free && paired && apos >= s->first) {
		x = zigzag((int64_t)(s->pos - apos) - (int64_t)s->age0) + 1;   /* ages repeat: a queue, a pool */
		s->age0 = s->pos - apos;
	} else if (!is_free)
		x = zigzag((int64_t)e->stack - (int64_t)s->stack);
	int tchg = tus != s->time_us, tidchg = e->tid != s->tid;
	uint8_t *p = s->p;
	p = varint_put(p, x << 3 | (uint64_t)tchg << 2 | (uint64_t)tidchg << 1 | (uint64_t)is_free);
	if (tchg)
		p = varint_put(p, zigzag((int64_t)(tus - s->time_us)));
	if (tidchg)
		p = varint_put(p, e->tid);
	if (!is_free) {
		p = varint_put(p, e->size);
		s->stack = e->stack;
	} else if (!x) {
		p = varint_put(p, zigzag((int64_t)e->stack - (int64_t)s->stack));
		p = varint_put(p, e->size);
		p = varint_put(p, paired ? s->pos - apos : 0);
		s->stack = e->stack;
	}
	s->p = p;
	s->time_us = tus;
	s->tid = e->tid;
	if (e->time_ns > s->tmax)
		s->tmax = e->time_ns;
	if (e->stack < cap) {
		uint64_t o, b;
		rec_weight_at(e->size, rate, paired ? apos : s->pos, 1, &o, &b);
		rec_counts *rc = &cnt[e->stack];
		if (is_free) {
			rc->c.free_objs += o;
			rc->c.free_bytes += b;
		} else {
			rc->c.alloc_objs += o;
			rc->c.alloc_bytes += b;
		}
		if (e->stack >= s->cnt_n)
			s->cnt_n = (uint64_t)e->stack + 1;
	}
	s->pos++;
}

/* What pairs a free with its allocation: the stack and the size the hook
 * recorded for the block, and its address.  With the size in it, blocks of
 * one stack at one address are told apart when the free between them comes
 * late (threads stage their events: a block freed and made again at its
 * address by other threads can arrive before the free does). */
static inline uint64_t pair_key(const seg_event *e)
{
	return ((uint64_t)e->stack << 32 | e->key) ^ e->size * 0xff51afd7ed558ccdull;
}

/* Takes the allocation free e (its pair key given) ends: 1 with its
 * position.  One pushed out of pairs is older than the one there. */
static inline int take_alloc(rec_writer *w, const seg_event *e, uint64_t key, uint64_t *apos)
{
	rec_held_ent d;
	if (__builtin_expect(w->dups.n != 0, 0) && recheld_take(&w->dups, e, &d)) {
		*apos = d.aux;
		return 1;
	}
	return recpairs_take(&w->pairs, key, apos);
}

/* Puts the events of slot copy c (whole: its seq held while it was
 * copied) at the end of the open EVENTS chunk.  They are decoded first,
 * so that each one's bucket in the pairs table is asked for RECW_AHEAD
 * events before it is used (a bucket is most often a line from memory,
 * slower than an event's own work).  A free with no allocation is held
 * (record_held.c): its allocation may still wait in another thread's
 * stage; when it comes, the allocation is written and the free after it. */
static long put_slot(rec_writer *w, const seg_slot *c)
{
	seg_event ev[SEG_SLOT_MAX_EVENTS], prev = { .time_ns = c->time_ns, .tid = c->tid };
	const uint8_t *q = c->data, *end = c->data + (c->len <= SEG_SLOT_DATA ? c->len : 0);
	uint32_t n = c->n <= SEG_SLOT_MAX_EVENTS ? c->n : SEG_SLOT_MAX_EVENTS, k = 0;
	while (k < n && (q = seg_slot_next(q, end, &prev, &ev[k])))
		k++;
	w->lost += c->n - k;   /* malformed: what could not be decoded */
	if (recpairs_reserve(&w->pairs, k)) {
		return recf_fail(w, "out of memory for live allocations", ENOMEM);
	}
	uint32_t waiting = w->held.n + w->owed.n;
	if (ev_room(w, k + (waiting < k ? waiting : k)))   /* a held free comes out with its allocation */
		return -1;
	rec_enc s;
	enc_load(w, &s);
	uint64_t rate = w->hc.sample_rate, cap = w->hc.stack_cap;
	rec_counts *cnt = w->cnt;
	for (uint32_t i = 0; i < k + RECW_AHEAD; i++) {
		if (i < k)
			recpairs_prefetch(&w->pairs, pair_key(&ev[i]));
		if (i < RECW_AHEAD)
			continue;
		const seg_event *e = &ev[i - RECW_AHEAD];
		uint64_t key = pair_key(e), apos = 0;
		int paired = 0, held = 0;
		rec_held_ent he;
		/* The hook frees a block with the stack and size it recorded for
		 * it, so a free's key finds its allocation with both. */
		if (e->kind == SEG_EV_FREE) {
			paired = take_alloc(w, e, key, &apos);
			if (!paired && !recheld_put(&w->held, e, w->read_ns, w->polls))
				continue;
		} else if ((w->held.n && recheld_take(&w->held, e, &he)) ||
			   (w->owed.n && recheld_take(&w->owed, e, &he))) {
			held = 1;
			if (he.ev.time_ns < e->time_ns)
				he.ev.time_ns = e->time_ns;   /* no earlier than its block (coarse stamps; an owed free's is older) */
		} else if (recpairs_put(&w->pairs, key, s.pos, &apos) > 0) {   /* reserved: cannot fail */
			/* Full: the oldest goes (its free is long overdue: lost, or taken by another). */
			if (recheld_put(&w->dups, e, 0, apos)) {
				recheld_drop_oldest(&w->dups);
				recheld_put(&w->dups, e, 0, apos);
			}
		}
		enc_put(&s, e, paired, apos, cnt, rate, cap);
		if (held)
			enc_put(&s, &he.ev, 1, s.pos - 1, cnt, rate, cap);
	}
	enc_store(w, &s);
	return k;
}

/* Writes free f alone at the end of the open EVENTS chunk; paired: its
 * allocation is at apos. */
static int put_free(rec_writer *w, const seg_event *f, int paired, uint64_t apos)
{
	if (ev_room(w, 1))
		return -1;
	rec_enc s;
	enc_load(w, &s);
	enc_put(&s, f, paired, apos, w->cnt, w->hc.sample_rate, w->hc.stack_cap);
	enc_store(w, &s);
	return 0;
}

/* Writes out held frees whose allocation cannot come any more: read in an
 * earlier poll, and since then the sweep found no slot staged from before
 * that poll (w->stage_low), or without sweeps RECW_HOLD_NS went by; all of
 * them at the end.  The ring was read to its head just before.  In a
 * recording that began with no block alive every free has its allocation
 * in the stream, so one left over means an earlier free of that stack,
 * address and size took this one's (threads reusing an address within a
 * slot's time): it takes the block of its key still waiting, or, with none
 * waiting (that free's own block came later), the next allocation of its
 * key (w->owed), so that every block is freed once (the bytes are the
 * same; a lifetime can be off).  Where blocks were alive when the stream
 * began, it is written alone: it can be the free of one of them; so are
 * frees still owed at the end. */
static int held_release(rec_writer *w, int all)
{
	int64_t now = seg_event_clock(&w->hc);
	const rec_held_ent *o;
	while ((o = recheld_oldest(&w->held))) {
		int64_t held = now - o->seen;
		int go = w->stage_low >= 0 ? w->stage_low > o->seen || held >= RECW_HOLD_MAX_NS : held >= RECW_HOLD_NS;
		if (!all && (o->aux >= w->polls || !go))
			break;
		seg_event f = o->ev;
		recheld_drop_oldest(&w->held);
		uint64_t apos = 0;
		int paired = !w->late && take_alloc(w, &f, pair_key(&f), &apos);
		if (!paired && !w->late && !all && !recheld_put(&w->owed, &f, 0, 0))
			continue;
		if (put_free(w, &f, paired, apos))
			return -1;
	}
	while (all && (o = recheld_oldest(&w->owed))) {
		seg_event f = o->ev;
		recheld_drop_oldest(&w->owed);
		if (put_free(w, &f, 0, 0))
			return -1;
	}
	return 0;
}

long recw_poll(rec_writer *w)
{
	if (w->fd < 0)
		return -1;
	recw_beat(w, 1);
	uint64_t head = __atomic_load_n(&w->hw->ring_head, __ATOMIC_ACQUIRE);
	w->polls++;
	w->read_ns = seg_event_clock(&w->hc);   /* no later than this: every event below head */
	uint64_t cap = w->hc.ring_cap, i = w->pos;
	const seg_slot *ring = (const seg_slot *)(w->base + w->hc.off[SEG_R_RING]);
	long n = 0;
	seg_slot c;
	/* head counts reservations: producers waiting for room are ahead of
	 * what is written, so only a slot's seq says whether it was lapped (its
	 * events are then counted in rec_lost by the producer that overwrote it). */
	for (; i < head; i++) {
		const seg_slot *e = &ring[i & (cap - 1)];
		uint64_t s1 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
		if (s1 != i + 1) {
			if (s1 > i + 1)
				continue;
			/* Not written yet; a writer killed mid-write never will be. */
			int64_t now = recw_now(w);
			if (w->stuck_pos != i) {
				w->stuck_pos = i;
				w->stuck_since = now;
			} else if (now - w->stuck_since > 1000000000LL) {
				uint16_t sn = __atomic_load_n(&e->n, __ATOMIC_RELAXED);
				w->lost += sn <= SEG_SLOT_MAX_EVENTS ? sn : 1;
				continue;
			}
			break;
		}
		if (!seg_slot_copy(e, s1, &c))
			continue;   /* overwritten while copied: in rec_lost */
		long k = put_slot(w, &c);
		if (k < 0)
			return -1;
		n += k;
		if (!(i & 31))
			__atomic_store_n(&w->hw->ring_read, i + 1, __ATOMIC_RELEASE);
		if (!(i & 255))
			recw_beat(w, 1);
	}
	w->pos = i;
	__atomic_store_n(&w->hw->ring_read, i, __ATOMIC_RELEASE);
	if (i == head && held_release(w, 0))
		return -1;
	uint64_t rl = __atomic_load_n(&w->hw->rec_lost, __ATOMIC_RELAXED);
	w->lost += rl - w->lost_seen;
	w->lost_seen = rl;
	/* After the events: every stack they use is published by now. */
	if (put_modules(w) || put_stacks(w))
		return -1;
	uint64_t wt = __atomic_load_n(&w->hw->rec_waits, __ATOMIC_RELAXED);
	if (wt != w->waits_seen) {
		uint64_t wn = __atomic_load_n(&w->hw->rec_wait_ns, __ATOMIC_RELAXED);
		rec_wait *r = (rec_wait *)chunk(w, REC_C_WAIT, sizeof(*r));
		if (!r)
			return -1;
		r->time_ns = w->tmax;
		r->waits = wt - w->waits_seen;
		r->wait_ns = wn - w->wait_ns_seen;
		r->max_ns = __atomic_load_n(&w->hw->rec_wait_max_ns, __ATOMIC_RELAXED);
		w->waits_seen = wt;
		w->wait_ns_seen = wn;
	}
	if (w->lost != w->lost_said) {
		rec_gap *g = (rec_gap *)chunk(w, REC_C_GAP, sizeof(*g));
		if (!g)
			return -1;
		g->time_ns = w->tmax;
		g->lost = w->lost - w->lost_said;
		w->lost_said = w->lost;
	}
	/* What buf will take in the file, at the ratio seen so far: a file
	 * closes near max_size, not a whole buffer past it. */
	uint64_t est = w->raw_total ? (uint64_t)((double)w->len * (double)w->z_total / (double)w->raw_total) : w->len;
	int full = w->file_events && w->len && w->file_bytes + est >= w->max_size;
	int64_t now = recw_now(w);
	if (n)
		w->busy_ns = now;
	/* Each poll's chunks reach the file now, as whole zstd blocks in the
	 * open frame (record_file.c: what a SIGKILL leaves); few, large frames
	 * compress best, and a frame ends at RECW_FLUSH, after a second, or
	 * when the stream goes idle. */
	ev_close(w);
	int open = w->frame_at != UINT64_MAX;
	int end = full || w->frame_raw + w->len >= RECW_FLUSH || now - w->busy_ns >= RECW_IDLE_NS ||
		  (open && now - w->frame_ns >= RECW_FLUSH_NS);
	if (recf_push(w, end))
		return -1;
	if (w->file_events && (full || w->file_bytes >= w->max_size)) {
		if (file_close(w))
			return -1;
		if (w->seq >= w->max_files)
			recf_remove(w, w->seq + 1 - w->max_files);
		w->seq++;
		if (file_open(w))
			return -1;
	}
	return n;
}

void recw_close(rec_writer *w)
{
	if (w->fd >= 0 && recw_poll(w) >= 0 && !held_release(w, 1))
		file_close(w);
	if (w->hw && w->buf)
		recw_beat(w, 0);
	recf_release(w);
	hook_unmap(w->buf, RECW_BUF);
	hook_unmap(w->zbuf, RECW_ZPIECE);
	hook_unmap(w->cnt, (size_t)w->hc.stack_cap * sizeof(rec_counts));
	hook_unmap(w->written, (size_t)(w->hc.stack_cap + 7) / 8);
	recpairs_free(&w->pairs);
	recheld_free(&w->held);
	recheld_free(&w->dups);
	recheld_free(&w->owed);
	w->zbuf = NULL;
	w->buf = NULL;
	w->cnt = NULL;
	w->written = NULL;
}
