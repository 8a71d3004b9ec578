/* record.c - the recording writer (see record.h). Events are copied out
 * of the ring in ring order; ring_read is moved after each batch so that
 * producers waiting for room go on. The counters written in checkpoints
 * are those of the stream itself (plus the segment's at a late attach), so
 * a reader replaying a file from its checkpoint gets the same numbers.
 * Chunks gather in buf and go to the file as one zstd frame each time it
 * is written out (1 MiB, an idle poll, or a second), all on this thread. */
#include "attach/hook/record.h"
#include "attach/hook/hook.h"
#include "core/heap_scale.h"

#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_customMem: zstd gets the writer's own memory */
#include <zstd.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RECW_BUF (8u << 20)
#define RECW_FLUSH (4u << 20)
#define RECW_ZPIECE (128u << 10)   /* the compressed frame goes to the file in pieces of this */
#define RECW_ZSLICE (512u << 10)   /* ... made from at most this much of buf at a time */
#define RECW_AHEAD 8            /* put_slot's prefetch distance, in events */
#define RECW_COUNTS_PER_CHUNK 16384
#define RECW_IDLE_NS 100000000LL     /* a writer idle this long writes out what it holds */
/* Long chunks: a free refers back within its chunk (a few bytes) rather
 * than repeating its stack and size; a chunk still decodes in milliseconds. */
#define RECW_EV_PER_CHUNK 262144
/* zstd's level follows what the last frame gave: data that compresses well
 * (repeating stacks and sizes) is worth a slower, better level; random
 * sizes are not.  But a busy stream gets the fast level whatever it is
 * worth: the level is capped so that compressing takes at most about
 * RECW_Z_BUSY of the time between frames (the writer's CPU is the
 * program's), and the cap rises again when it takes under a quarter. */
static const int z_ladder[] = { 1, 3, 7 };
#define RECW_Z_BUSY 0.04
static int z_level(rec_writer *w, uint64_t raw, uint64_t z, int64_t took_ns, int64_t span_ns)
{
	int worth = raw >= 16 * z ? 2 : raw >= 4 * z ? 1 : 0;
	double share = span_ns > 0 ? (double)took_ns / (double)span_ns : 1.0;
	if (share > RECW_Z_BUSY && w->zcap > 0)
		w->zcap--;
	else if (share < RECW_Z_BUSY / 4 && w->zcap < 2)
		w->zcap++;
	return z_ladder[worth < w->zcap ? worth : w->zcap];
}
#define RECW_FLUSH_NS 1000000000LL   /* buffered events reach the file within a second */
/* A free held for its allocation, when no sweep says what is still staged
 * (a recorder outside the process): threads publishing slots sweep every
 * RING_STAGE_NS, so an allocation comes within a few of those. */
#define RECW_HOLD_NS 50000000LL
#define RECW_HOLD_MAX_NS 1000000000LL   /* and at most this even when a stage seems to hold one back */

/* zstd's memory: mmap'd, its size in front (zstd frees by pointer only). */
static void *z_alloc(void *opaque, size_t size)
{
	(void)opaque;
	uint64_t *p = hook_map(size + 16);
	if (!p)
		return NULL;
	p[0] = size + 16;
	return p + 2;
}

static void z_free(void *opaque, void *addr)
{
	(void)opaque;
	if (addr) {
		uint64_t *p = (uint64_t *)addr - 2;
		hook_unmap(p, p[0]);
	}
}

static int64_t seg_now(const rec_writer *w)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - w->hc.start_mono_ns;
}

/* The heartbeat: the event clock (coarse, as producers read it), which
 * producers also take as their events' time (ring.c), so it is renewed
 * through long polls and frames too. */
static void beat(rec_writer *w, int on)
{
	int64_t t = on ? seg_event_clock(&w->hc) : 0;
	__atomic_store_n(&w->hw->rec_beat_ns, (uint64_t)(t > 0 ? t : 1) * (uint64_t)on, __ATOMIC_RELAXED);
}

/* Stops writing, w->err saying why: the file is left as it is, and
 * producers no longer wait for this writer. */
static int stop(rec_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	beat(w, 0);
	return -1;
}

static void fail(rec_writer *w, const char *what, int e)
{
	snprintf(w->err, sizeof(w->err), "%.120s: %s: %s", w->dir, what, strerror(e));
	stop(w);
}

static void file_name(const rec_writer *w, unsigned seq, char *buf, size_t cap)
{
	char name[64];
	snprintf(name, sizeof(name), REC_NAME_FMT, w->pid, seq);
	snprintf(buf, cap, "%s/%s", w->dir, name);
}

static int write_all(rec_writer *w, const uint8_t *p, size_t len)
{
	size_t off = 0;
	while (off < len) {
		ssize_t n = write(w->fd, p + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fail(w, "write", n < 0 ? errno : ENOSPC);
			return -1;
		}
		off += (size_t)n;
	}
	w->file_bytes += len;
	return 0;
}

static int z_fail(rec_writer *w, size_t rc)
{
	snprintf(w->err, sizeof(w->err), "%.120s: compressing: %s", w->dir, ZSTD_getErrorName(rc));
	return stop(w);
}

/* Writes buf out as one ZSTD chunk.  The frame goes to the file as zstd
 * makes it, through zbuf (RECW_ZPIECE bytes), not whole through a buffer
 * of its size: fresh pages cost more than compressing them.  Its header
 * is written last, over one whose length runs past the end of the file,
 * so a reader meanwhile sees a file cut short, as it is. */
static int flush(rec_writer *w)
{
	int64_t t0 = seg_now(w), span = t0 - w->flushed_ns, wrote_ns = 0;
	w->flushed_ns = t0;
	if (!w->len)
		return 0;
	size_t rc = ZSTD_CCtx_reset(w->zc, ZSTD_reset_session_only);
	if (!ZSTD_isError(rc))
		rc = ZSTD_CCtx_setPledgedSrcSize(w->zc, w->len);
	if (ZSTD_isError(rc))
		return z_fail(w, rc);
	uint64_t at = w->file_bytes, z = 0;
	uint32_t hdr[4] = { REC_C_ZSTD, UINT32_MAX, (uint32_t)w->len, 0 };   /* rec_chunk, then u32 raw_len, u32 0 */
	memcpy(w->zbuf, hdr, 16);
	/* Given RECW_ZSLICE bytes at a time, so the beat is renewed every few
	 * ms even at the slowest level. */
	ZSTD_inBuffer in = { w->buf, 0, 0 };
	for (size_t head = 16;; head = 0) {
		in.size = w->len - in.pos > RECW_ZSLICE ? in.pos + RECW_ZSLICE : w->len;
		ZSTD_EndDirective end = in.size == w->len ? ZSTD_e_end : ZSTD_e_continue;
		ZSTD_outBuffer out = { w->zbuf + head, RECW_ZPIECE - head, 0 };
		rc = ZSTD_compressStream2(w->zc, &out, &in, end);
		if (ZSTD_isError(rc))
			return z_fail(w, rc);
		z += out.pos;
		int64_t t1 = seg_now(w);
		if (head + out.pos && write_all(w, w->zbuf, head + out.pos))
			return -1;
		wrote_ns += seg_now(w) - t1;
		beat(w, 1);
		if (end == ZSTD_e_end && !rc)
			break;
	}
	hdr[1] = (uint32_t)(8 + z);
	ssize_t put = pwrite(w->fd, hdr, 8, (off_t)at);
	if (put != 8) {
		fail(w, "write", put < 0 ? errno : ENOSPC);   /* as write_all says it */
		return -1;
	}
	int64_t took = seg_now(w) - t0 - wrote_ns;
	int lv = z_level(w, w->len, z, took, span + took);
	if (lv != w->zlevel && !ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, lv)))
		w->zlevel = lv;
	w->raw_total += w->len;
	w->z_total += 16 + z;
	w->len = 0;
	return 0;
}

/* Room for n more bytes in buf (flushing first if needed); NULL on error. */
static uint8_t *room(rec_writer *w, size_t n)
{
	if (w->len + n > RECW_BUF && flush(w))
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
		if (depth > HOOK_MAX_DEPTH || fo > nf || depth > nf - fo)
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

/* Opens file seq and writes its header, modules, stacks and checkpoint. */
static int file_open(rec_writer *w)
{
	char path[4100];
	file_name(w, w->seq, path, sizeof(path));
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		fail(w, "cannot create a recording file", errno);
		return -1;
	}
	w->file_bytes = 0;
	w->file_events = 0;
	w->fh.seq = w->seq;
	w->len = 0;
	if (write_all(w, (const uint8_t *)&w->fh, sizeof(w->fh)))
		return -1;
	w->flushed_ns = seg_now(w);
	w->nmods = 0;
	memset(w->written, 0, (size_t)(w->hc.stack_cap + 7) / 8);
	w->stack_low = 0;
	if (put_modules(w) || put_stacks(w) || put_checkpoint(w))
		return -1;
	return 0;
}

static int file_close(rec_writer *w)
{
	rec_end *e = (rec_end *)chunk(w, REC_C_END, sizeof(*e));
	if (!e)
		return -1;
	e->events = w->events;
	int64_t now = seg_now(w);   /* the heap stayed as it was until now */
	e->time_ns = (uint64_t)now > w->tmax ? (uint64_t)now : w->tmax;
	if (flush(w))
		return -1;
	close(w->fd);
	w->fd = -1;
	return 0;
}

/* Removes this pid's files left in dir by an earlier run. */
static void clean_dir(rec_writer *w)
{
	int fd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	char prefix[64];
	int pl = snprintf(prefix, sizeof(prefix), "mprof-%d.", w->pid);
	char buf[8192];
	for (;;) {
		long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (long off = 0; off < n;) {
			struct { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; } *d =
				(void *)(buf + off);
			size_t nl = strlen(d->name);
			if (!strncmp(d->name, prefix, (size_t)pl) && nl > 4 && !strcmp(d->name + nl - 4, ".rec"))
				unlinkat(fd, d->name, 0);
			off += d->reclen;
		}
	}
	close(fd);
}

/* A positive decimal setting (at most hi) from the environment, else def. */
static uint64_t env_limit(const char *name, uint64_t def, uint64_t hi)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return def;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	return *end || !v ? def : v > hi ? hi : v;
}

int recw_open(rec_writer *w, const void *base, const seg_header *hc, seg_header *hw, const char *dir,
	      uint64_t max_size, unsigned max_files, int from_counters)
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
	w->max_size = max_size ? max_size : env_limit("MPROF_RECORD_SIZE", RECW_DEFAULT_SIZE, UINT64_MAX);
	w->max_files = max_files ? max_files : (unsigned)env_limit("MPROF_RECORD_FILES", RECW_DEFAULT_FILES, 1000000);
	size_t dl = strlen(dir);
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	if (dl >= sizeof(w->dir)) {
		snprintf(w->err, sizeof(w->err), "recording directory name too long");
		return -1;
	}
	memcpy(w->dir, dir, dl);
	w->dir[dl] = 0;
	if (mkdir(w->dir, 0755) && errno != EEXIST) {
		snprintf(w->err, sizeof(w->err), "%.200s: cannot create: %s", w->dir, strerror(errno));
		return -1;
	}
	struct stat st;
	if (stat(w->dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(w->err, sizeof(w->err), "%.200s: not a directory", w->dir);
		return -1;
	}
	w->buf = hook_map(RECW_BUF);
	w->zbuf = hook_map(RECW_ZPIECE);
	hook_populate(w->buf, RECW_FLUSH + (256u << 10));   /* what a frame fills */
	hook_populate(w->zbuf, RECW_ZPIECE);
	w->cnt = hook_map((size_t)hc->stack_cap * sizeof(rec_counts));
	w->written = hook_map((size_t)(hc->stack_cap + 7) / 8);
	w->zc = ZSTD_createCCtx_advanced((ZSTD_customMem){ z_alloc, z_free, NULL });
	w->zlevel = 1;   /* the first frame at the fastest level: how busy the stream is, and what it is worth, are not known yet */
	w->zcap = 1;
	/* A frame checksum: a damaged file says so instead of decoding garbage. */
	if (w->zc && (ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, w->zlevel)) ||
		      ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag, 1)))) {
		ZSTD_freeCCtx(w->zc);
		w->zc = NULL;
	}
	if (!w->buf || !w->zbuf || !w->cnt || !w->written || !w->zc) {
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
	seg_ring_beat(hw, seg_now(w));   /* events go to the ring from here on */
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
		w->tmax = (uint64_t)seg_now(w);
	}
	w->waits_seen = __atomic_load_n(&hw->rec_waits, __ATOMIC_RELAXED);
	w->lost_seen = __atomic_load_n(&hw->rec_lost, __ATOMIC_RELAXED);
	w->wait_ns_seen = __atomic_load_n(&hw->rec_wait_ns, __ATOMIC_RELAXED);
	clean_dir(w);
	w->seq = 1;
	if (file_open(w)) {
		recw_close(w);
		return -1;
	}
	beat(w, 1);
	return 0;
}

uint64_t recw_backlog(const rec_writer *w)
{
	return __atomic_load_n(&w->hw->ring_head, __ATOMIC_ACQUIRE) - w->pos;
}

/* Opens an EVENTS chunk with room for n more events unless the open one
 * has it. */
static int ev_room(rec_writer *w, uint32_t n)
{
	if (w->ev_chunk != SIZE_MAX && w->ev_count + n <= RECW_EV_PER_CHUNK &&
	    w->len + (size_t)n * REC_EV_MAX + 8 <= RECW_BUF)
		return 0;
	ev_close(w);
	if (!room(w, 16 + (size_t)(n > SEG_SLOT_MAX_EVENTS ? n : SEG_SLOT_MAX_EVENTS) * REC_EV_MAX + 8))
		return -1;
	w->ev_chunk = w->len;
	rec_chunk c = { REC_C_EVENTS, 8 };
	memcpy(w->buf + w->len, &c, 8);
	memset(w->buf + w->len + 8, 0, 8);
	w->len += 16;
	w->ev_count = 0;
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
		fail(w, "out of memory for live allocations", ENOMEM);
		return -1;
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
	beat(w, 1);
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
			int64_t now = seg_now(w);
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
			beat(w, 1);
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
	int64_t now = seg_now(w);
	if (n)
		w->busy_ns = now;
	/* Few, large frames compress best; a quiet process still gets its
	 * events onto the disk soon. */
	if (full || w->len >= RECW_FLUSH ||
	    (w->len && (now - w->flushed_ns >= RECW_FLUSH_NS || now - w->busy_ns >= RECW_IDLE_NS))) {
		ev_close(w);
		if (flush(w))
			return -1;
	}
	if (w->file_events && (full || w->file_bytes >= w->max_size)) {
		if (file_close(w))
			return -1;
		if (w->seq >= w->max_files) {
			char old[4100];
			file_name(w, w->seq + 1 - w->max_files, old, sizeof(old));
			unlink(old);
		}
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
		beat(w, 0);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	hook_unmap(w->buf, RECW_BUF);
	hook_unmap(w->zbuf, RECW_ZPIECE);
	hook_unmap(w->cnt, (size_t)w->hc.stack_cap * sizeof(rec_counts));
	hook_unmap(w->written, (size_t)(w->hc.stack_cap + 7) / 8);
	ZSTD_freeCCtx(w->zc);
	recpairs_free(&w->pairs);
	recheld_free(&w->held);
	recheld_free(&w->dups);
	recheld_free(&w->owed);
	w->zc = NULL;
	w->zbuf = NULL;
	w->buf = NULL;
	w->cnt = NULL;
	w->written = NULL;
}
