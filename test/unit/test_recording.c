/* test_recording.c - the recording format's decoder (core/recording*.c)
 * on files built here chunk by chunk: a valid one (counters, peak, a free
 * that refers back within its chunk and one across chunks, leaks), and
 * hostile ones: a chunk cut short, a frame that never ended (read as far
 * as its whole blocks), a writer's note of why it stopped, a corrupt zstd frame, a bad varint, a
 * free referring to an allocation that does not exist, a recording of the
 * previous version (test/data/recordings/peak-v1.rec). Then the writer's
 * table of live allocations (attach/shared/record_pairs.c) against a plain
 * array. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "attach/shared/record.h"
#include "core/recording.h"

typedef struct buf {
	uint8_t b[1 << 16];
	size_t n;
} buf;

static void put(buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void put_chunk(buf *b, uint32_t type, const void *p, size_t n)
{
	rec_chunk c = { type, (uint32_t)n };
	put(b, &c, sizeof(c));
	put(b, p, n);
}

/* Appends raw (inner chunks) to f as one ZSTD chunk. */
static void put_zstd(buf *f, const buf *raw)
{
	uint8_t z[1 << 16];
	ZSTD_CCtx *c1 = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(c1, ZSTD_c_checksumFlag, 1);   /* as the writer does */
	size_t n = ZSTD_compress2(c1, z, sizeof(z), raw->b, raw->n);
	ZSTD_freeCCtx(c1);
	assert_false(ZSTD_isError(n));
	rec_chunk c = { REC_C_ZSTD, (uint32_t)(8 + n) };
	uint32_t hd[2] = { (uint32_t)raw->n, 0 };
	put(f, &c, 8);
	put(f, hd, 8);
	put(f, z, n);
}

/* An EVENTS chunk from an encoded stream of count events. */
static uint32_t file_version = REC_VERSION;   /* what start() writes */
static uint64_t age_last;   /* the stream's last free back in its chunk (version 4 writes the change) */

static uint32_t ev_flags;   /* put_events' flags word (REC_EV_CONT) */

static void put_events(buf *raw, const buf *stream, uint32_t count)
{
	if (!ev_flags)
		age_last = 0;   /* the next stream starts afresh, unless it continues a run */
	uint8_t p[1 << 12];
	uint32_t hd[2] = { count, ev_flags };
	memcpy(p, hd, 8);
	memcpy(p + 8, stream->b, stream->n);
	put_chunk(raw, REC_C_EVENTS, p, 8 + stream->n);
}

static void ev_alloc(buf *s, int64_t dstack, uint64_t size, uint64_t dt_us)
{
	uint8_t t[32], *p = t;
	p = varint_put(p, zigzag(dstack) << 3 | (dt_us ? 4u : 0u));
	if (dt_us)
		p = varint_put(p, zigzag((int64_t)dt_us));
	p = varint_put(p, size);
	put(s, t, (size_t)(p - t));
}

/* A free of the allocation x events back in the same chunk. */
static void ev_free_back(buf *s, uint64_t x)
{
	uint8_t t[16];
	uint64_t v = x;
	if (file_version >= REC_VERSION_AGE_DELTA) {
		v = zigzag((int64_t)x - (int64_t)age_last) + 1;
		age_last = x;
	}
	put(s, t, (size_t)(varint_put(t, v << 3 | 1) - t));
}

static void ev_free_far(buf *s, int64_t dstack, uint64_t size, uint64_t back)
{
	uint8_t t[40], *p = t;
	p = varint_put(p, 1);
	p = varint_put(p, zigzag(dstack));
	p = varint_put(p, size);
	p = varint_put(p, back);
	put(s, t, (size_t)(p - t));
}

static char dir[64];
static size_t first_end;   /* where valid()'s first ZSTD chunk ends */

/* The file's start: header; inner chunks: one stack (id 0), a checkpoint at 0. */
static void start(buf *f, buf *raw)
{
	rec_file_header h = { 0 };
	memcpy(h.magic, REC_MAGIC, 8);
	h.version = file_version;
	h.header_size = file_version >= REC_VERSION_STREAM ? sizeof(h) : REC_HEADER_V4_SIZE;   /* no `stopped` before */
	h.pid = 4242;
	h.seq = 1;
	f->n = raw->n = 0;
	put(f, &h, h.header_size);
	uint8_t st[8 + 8 + 16] = { 0 };
	uint32_t cnt = 1, sd[2] = { 0, 2 };
	uint64_t pcs[2] = { 0x401000, 0x401100 };
	memcpy(st, &cnt, 4);
	memcpy(st + 8, sd, 8);
	memcpy(st + 16, pcs, 16);
	put_chunk(raw, REC_C_STACKS, st, sizeof(st));
	rec_checkpoint ck = { 0 };
	put_chunk(raw, REC_C_CHECKPOINT, &ck, sizeof(ck));
}

/* Writes f as the one file of dir and opens it. */
static recording *open_buf(const buf *f, prof_error *err)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/mprof-4242.000001.rec", dir);
	FILE *o = fopen(path, "wb");
	assert_non_null(o);
	assert_int_equal(fwrite(f->b, 1, f->n, o), f->n);
	fclose(o);
	return rec_open(dir, 1, err);
}

static uint64_t valid_how;   /* what valid()'s END says (enum rec_end_how) */

/* A run of two chunks: 3 allocations (100, 200, 300 bytes), the 200 freed
 * within its chunk; then the 100 freed from the next chunk. */
static void valid(buf *f)
{
	static buf raw, s;
	start(f, &raw);
	s.n = 0;
	ev_alloc(&s, 0, 100, 1000);
	ev_alloc(&s, 0, 200, 0);
	ev_alloc(&s, 0, 300, 0);
	ev_free_back(&s, 2);   /* event 3 frees event 1 */
	put_events(&raw, &s, 4);
	put_zstd(f, &raw);
	first_end = f->n;
	raw.n = s.n = 0;
	ev_free_far(&s, 0, 100, 4);   /* event 4 frees event 0 */
	put_events(&raw, &s, 1);
	rec_end e = { 5, 2000000, valid_how };
	put_chunk(&raw, REC_C_END, &e, sizeof(e));
	put_zstd(f, &raw);
}

/* valid() less its last cut bytes, opened. */
static recording *open_valid(size_t cut)
{
	static buf f;
	valid(&f);
	f.n -= cut;
	prof_error err = { 0 };
	recording *r = open_buf(&f, &err);
	assert_non_null(r);
	return r;
}

static void test_valid(void **state)
{
	(void)state;
	prof_error err = { 0 };
	recording *r = open_valid(0);
	assert_int_equal(r->end_ev, 5);
	assert_int_equal(r->peak, 600);
	assert_int_equal(r->peak_ev, 3);
	assert_int_equal(r->cur_inuse, 300);
	assert_int_equal(r->p->samples.v[0].c.alloc_objs, 3);
	assert_int_equal(r->p->samples.v[0].c.free_bytes, 300);
	rec_seek(r, 2);
	assert_int_equal(r->cur_inuse, 300);
	rec_seek(r, 4);
	assert_int_equal(r->cur_inuse, 400);
	/* Only the 300 allocated between 0 and 3 is alive at the end. */
	prof *l = rec_leaks(r, 0, 3, &err);
	assert_non_null(l);
	uint64_t b = 0;
	for (size_t i = 0; i < l->samples.len; i++)
		b += l->samples.v[i].c.alloc_bytes;
	assert_int_equal(b, 300);
	prof_free(l);
	rec_life *life = rec_lifetimes(r, 2, 0);
	assert_non_null(life);
	assert_int_equal(life[0].freed, 2);   /* both frees paired, by position */
	assert_int_equal(life[0].temp_objs, 1);   /* the 200: one allocation between */
	free(life);
	rec_close(r);
}

/* rec_lifetimes pairs n frees of stack 0 with their allocations. */
static void expect_freed(recording *r, uint64_t n)
{
	rec_life *life = rec_lifetimes(r, 2, 0);
	assert_non_null(life);
	assert_int_equal(life[0].freed, n);
	free(life);
}

/* Version 3 said a free's count back itself, under the 560-byte header of
 * the versions before 5: such a file reads the same. */
static void test_valid_v3(void **state)
{
	(void)state;
	file_version = 3;
	recording *r = open_valid(0);
	file_version = REC_VERSION;
	assert_int_equal(r->end_ev, 5);
	assert_int_equal(r->peak, 600);
	assert_int_equal(r->cur_inuse, 300);
	expect_freed(r, 2);
	rec_close(r);
}

static void test_cut_chunk(void **state)
{
	(void)state;
	recording *r = open_valid(5);   /* the second ZSTD chunk cut short: the first still reads */
	assert_int_equal(r->truncated, 1);
	assert_int_equal(r->end_ev, 4);
	assert_int_equal(r->cur_inuse, 400);
	rec_close(r);
}

/* A ZSTD chunk whose header was not yet given its lengths (the writer
 * killed between its frame's end and that write): its frame is whole, and
 * reads in full; the file is said cut (no END would say it was closed). */
static void test_chunk_being_written(void **state)
{
	(void)state;
	static buf f;
	valid(&f);
	uint32_t type, len = UINT32_MAX;
	memcpy(&type, f.b + first_end, 4);
	assert_int_equal(type, REC_C_ZSTD);
	memcpy(f.b + first_end + 4, &len, 4);
	prof_error err = { 0 };
	recording *r = open_buf(&f, &err);
	assert_non_null(r);
	assert_int_equal(r->truncated, 1);
	assert_int_equal(r->end_ev, 5);
	assert_int_equal(r->cur_inuse, 300);
	rec_close(r);
}

/* A streamed frame (version 5) that never ended: two pushes, each ended
 * with ZSTD_e_flush (whole blocks), its header still the placeholder.
 * Cut inside the second push's block, the first push's events read; whole,
 * both do; either way the recording is open (no END, no note). */
static void stream_file(buf *f, size_t cut)
{
	static buf raw, s;
	start(f, &raw);
	uint32_t hd[4] = { REC_C_ZSTD, UINT32_MAX, 0, 0 };
	put(f, hd, 16);
	s.n = 0;
	ev_alloc(&s, 0, 100, 1000);
	ev_alloc(&s, 0, 200, 0);
	ev_alloc(&s, 0, 300, 0);
	ev_free_back(&s, 2);
	put_events(&raw, &s, 4);
	ZSTD_CCtx *c = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	for (int push = 0; push < 2; push++) {
		uint8_t z[1 << 14];
		ZSTD_inBuffer in = { raw.b, raw.n, 0 };
		ZSTD_outBuffer out = { z, sizeof(z), 0 };
		assert_int_equal(ZSTD_compressStream2(c, &out, &in, ZSTD_e_flush), 0);
		put(f, z, push ? out.pos - cut : out.pos);
		raw.n = s.n = 0;
		ev_free_far(&s, 0, 100, 4);
		put_events(&raw, &s, 1);
	}
	ZSTD_freeCCtx(c);
}

static void test_stream_cut(void **state)
{
	(void)state;
	static buf f;
	prof_error err = { 0 };
	stream_file(&f, 3);
	recording *r = open_buf(&f, &err);
	assert_non_null(r);
	assert_int_equal(r->truncated, 1);
	assert_int_equal(r->end_ev, 4);
	assert_int_equal(r->cur_inuse, 400);
	assert_int_equal(rec_end_how(r), REC_END_OPEN);
	rec_close(r);
	stream_file(&f, 0);
	r = open_buf(&f, &err);
	assert_non_null(r);
	assert_int_equal(r->end_ev, 5);
	assert_int_equal(r->cur_inuse, 300);
	assert_int_equal(rec_end_how(r), REC_END_OPEN);
	rec_close(r);
}

static void expect_refused(const buf *f, const char *what)
{
	prof_error err = { 0 };
	recording *r = open_buf(f, &err);
	assert_null(r);
	if (!strstr(err.msg, what) || !strstr(err.msg, "mprof-4242.000001.rec: offset ")) {
		print_error("message: %s\nwanted: %s\n", err.msg, what);
		fail();
	}
}

/* A run of two EVENTS chunks (the second REC_EV_CONT, a WAIT between):
 * the second's free refers back into the first, its state goes on; seeks
 * and lifetimes decode the run through the cursor. A chunk that continues
 * nothing (the first of its frame) is refused. */
static void test_run(void **state)
{
	(void)state;
	static buf f, raw, s;
	prof_error err = { 0 };
	start(&f, &raw);
	s.n = 0;
	ev_alloc(&s, 0, 100, 1000);
	ev_alloc(&s, 0, 200, 0);
	put_events(&raw, &s, 2);
	rec_wait w = { 0 };
	put_chunk(&raw, REC_C_WAIT, &w, sizeof(w));
	s.n = 0;
	ev_flags = REC_EV_CONT;
	ev_free_back(&s, 2);   /* event 2 frees event 0, in the first chunk */
	ev_alloc(&s, 0, 300, 500);
	put_events(&raw, &s, 2);
	ev_flags = 0;
	rec_end e = { 4, 3000000, 0 };
	put_chunk(&raw, REC_C_END, &e, sizeof(e));
	put_zstd(&f, &raw);
	recording *r = open_buf(&f, &err);
	assert_non_null(r);
	assert_int_equal(r->end_ev, 4);
	assert_int_equal(r->cur_inuse, 500);
	assert_int_equal(r->end_time, 3000000);   /* the run ends when it was closed (END at 3 ms), after its last event at 1.5 ms */
	rec_seek_end(r);
	assert_int_equal(r->cur_inuse, 500);
	assert_int_equal(r->cur_time, 3000000);   /* the end's moment is the run's end */
	rec_seek(r, 3);
	assert_int_equal(r->cur_inuse, 200);
	rec_seek(r, 1);
	assert_int_equal(r->cur_inuse, 100);
	rec_seek(r, 4);
	assert_int_equal(r->cur_inuse, 500);
	expect_freed(r, 1);
	rec_close(r);
	start(&f, &raw);
	s.n = 0;
	ev_alloc(&s, 0, 100, 1000);
	ev_flags = REC_EV_CONT;
	put_events(&raw, &s, 1);
	ev_flags = 0;
	put_zstd(&f, &raw);
	expect_refused(&f, "an event chunk continues none");
}

/* A writer that gave up notes why in the header, and a recorder outside
 * says in the END that the process was killed: the reader says each. */
static void test_stopped_note(void **state)
{
	(void)state;
	static buf f;
	prof_error err = { 0 };
	valid(&f);
	recording *r = open_buf(&f, &err);
	assert_non_null(r);
	assert_int_equal(rec_end_how(r), REC_END_CLOSED);
	rec_close(r);
	valid_how = REC_HOW_KILLED;   /* a recorder outside saw the process end without exiting */
	valid(&f);
	valid_how = REC_HOW_CLOSED;
	r = open_buf(&f, &err);
	assert_non_null(r);
	assert_int_equal(rec_end_how(r), REC_END_KILLED);
	rec_close(r);
	stream_file(&f, 3);
	const char *why = "d/mprof-4242.000001.rec: offset 9000: write: No space left on device";
	memcpy(f.b + offsetof(rec_file_header, stopped), why, strlen(why));
	r = open_buf(&f, &err);
	assert_non_null(r);
	assert_int_equal(rec_end_how(r), REC_END_STOPPED);
	assert_string_equal(rec_end_reason(r), why);
	char line[400];
	rec_end_text(r, 0, line, sizeof(line));
	assert_non_null(strstr(line, "cut short: the recorder could not go on: d/mprof-4242.000001.rec: offset 9000: write: "
				     "No space left on device"));
	rec_close(r);
}

static void test_corrupt_zstd(void **state)
{
	(void)state;
	static buf f;
	valid(&f);
	f.b[first_end - 1] ^= 0x5a;   /* the first frame's checksum */
	char want[96];
	snprintf(want, sizeof(want), "offset %zu: corrupt zstd frame", sizeof(rec_file_header));
	expect_refused(&f, want);
	valid(&f);
	f.b[first_end - 8] ^= 0x01;   /* its data */
	expect_refused(&f, want);
}

/* A file whose one chunk holds count events of stream s must be refused. */
static void refuse_stream(const buf *s, uint32_t count, const char *what)
{
	static buf f, raw;
	start(&f, &raw);
	put_events(&raw, s, count);
	put_zstd(&f, &raw);
	expect_refused(&f, what);
}

static void test_bad_varint(void **state)
{
	(void)state;
	static buf s;
	ev_alloc(&s, 0, 100, 1000);
	for (int i = 0; i < 11; i++) {   /* a tag of 11 bytes, all continued */
		uint8_t x = 0xff;
		put(&s, &x, 1);
	}
	refuse_stream(&s, 2, "event 1: bad or cut varint");
}

/* Ages that repeat, grow and shrink, as a queue and a pool make them. */
static void test_age_deltas(void **state)
{
	(void)state;
	static buf f, raw, s;
	start(&f, &raw);
	s.n = 0;
	for (int i = 0; i < 8; i++)   /* 8 allocations of 10, 20 .. 80 bytes */
		ev_alloc(&s, 0, 10 * (uint64_t)(i + 1), i ? 0 : 1000);
	ev_free_back(&s, 8);   /* event 8 frees event 0 (10 B) */
	ev_free_back(&s, 8);   /* event 9 frees event 1 (20 B): the same age */
	ev_free_back(&s, 3);   /* event 10 frees event 7 (80 B) */
	ev_free_back(&s, 7);   /* event 11 frees event 4 (50 B) */
	put_events(&raw, &s, 12);
	rec_end e = { 12, 2000000, 0 };
	put_chunk(&raw, REC_C_END, &e, sizeof(e));
	put_zstd(&f, &raw);
	prof_error err = { 0 };
	recording *r = open_buf(&f, &err);
	assert_non_null(r);
	assert_int_equal(r->peak, 360);
	assert_int_equal(r->cur_inuse, 360 - 10 - 20 - 80 - 50);
	assert_int_equal(r->p->samples.v[0].c.free_objs, 4);
	rec_close(r);
	s.n = 0;   /* a change that takes the age to 0 or below */
	ev_alloc(&s, 0, 100, 1000);
	uint8_t t[16];
	put(&s, t, (size_t)(varint_put(t, (zigzag(-3) + 1) << 3 | 1) - t));
	refuse_stream(&s, 2, "event 1: free refers to an allocation -3 events back");
}

static void test_free_nowhere(void **state)
{
	(void)state;
	static buf s;
	ev_alloc(&s, 0, 100, 1000);
	ev_free_back(&s, 5);   /* 5 events back from event 1: before the chunk */
	refuse_stream(&s, 2, "event 1: free refers to event 5 back, not an allocation in its chunk");
	s.n = 0;   /* a free of a free */
	ev_alloc(&s, 0, 100, 1000);
	ev_free_back(&s, 1);
	ev_free_back(&s, 1);
	refuse_stream(&s, 3, "event 2: free refers to event 1 back, not an allocation in its chunk");
	s.n = 0;   /* across chunks: before position 0 */
	ev_alloc(&s, 0, 100, 1000);
	ev_free_far(&s, 0, 100, 9);
	refuse_stream(&s, 2, "event 1: free refers to an allocation 9 events back, before the run began");
}

static void test_old_version(void **state)
{
	(void)state;
	prof_error err = { 0 };
	recording *r = rec_open("test/data/recordings/peak-v1.rec", 1, &err);
	assert_null(r);
	assert_string_equal(err.msg, "test/data/recordings/peak-v1.rec: offset 8: recording version 1, written by an "
				     "earlier mprof: this one reads versions 2 to 5");
}

/* The writer's live allocations against a plain array, through growth. */
static void test_pairs(void **state)
{
	(void)state;
	enum { N = 300000 };
	uint64_t *pos = calloc(N, sizeof(uint64_t));   /* 0: not live, else pos + 1 */
	assert_non_null(pos);
	rec_pairs m = { 0 };
	srandom(7);
	size_t live = 0;
	for (uint64_t step = 1; step < 2000000; step++) {
		uint64_t k = (uint64_t)random() % N, key = (k % 97) << 32 | (k * 2654435761u & 0xffffffffu), p;
		if (!pos[k]) {
			assert_int_equal(recpairs_put(&m, key, step, &p), 0);
			pos[k] = step + 1;
			live++;
		} else if (random() % 3) {
			assert_int_equal(recpairs_take(&m, key, &p), 1);
			assert_int_equal(p + 1, pos[k]);
			assert_int_equal(recpairs_take(&m, key, &p), 0);
			pos[k] = 0;
			live--;
		}
		assert_int_equal(m.n, live);
	}
	recpairs_free(&m);
	free(pos);
}

/* Keys that all hash to one bucket (the hash is a bijection: its inverse
 * makes them), more than a byte can count going past it: every one is
 * found, a key put twice is replaced, and what is taken is gone. */
static void test_pairs_one_bucket(void **state)
{
	(void)state;
	rec_pairs m = { 0 };
	assert_int_equal(recpairs_reserve(&m, 1), 0);
	uint64_t inv = 0x9e3779b97f4a7c15ull;   /* Newton's iteration: the inverse of an odd number mod 2^64 */
	for (int i = 0; i < 6; i++)
		inv *= 2 - 0x9e3779b97f4a7c15ull * inv;
	enum { N = 700 };
	uint64_t keys[N], p, old;
	for (uint64_t j = 0; j < N; j++) {
		keys[j] = (((uint64_t)5 << m.shift) | (j + 1)) * inv;
		assert_int_equal(recpairs_slot(&m, keys[j]), 5);
	}
	for (int round = 0; round < 3; round++) {
		for (uint64_t j = 0; j < N; j++)
			assert_int_equal(recpairs_put(&m, keys[j], j * 10 + (uint64_t)round, &old), 0);
		assert_int_equal(recpairs_put(&m, keys[3], 99, &old), 1);   /* replaced, not added */
		assert_int_equal(old, 30 + (uint64_t)round);
		assert_int_equal(m.n, N);
		for (uint64_t j = N; j-- > 0;) {
			assert_int_equal(recpairs_take(&m, keys[j], &p), 1);
			assert_int_equal(p, j == 3 ? 99 : j * 10 + (uint64_t)round);
			assert_int_equal(recpairs_take(&m, keys[j], &p), 0);
		}
		assert_int_equal(m.n, 0);
		assert_int_equal(recpairs_take(&m, keys[0] + 1, &p), 0);
	}
	recpairs_free(&m);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/mprof-test-rec-%d", (int)getpid());
	mkdir(dir, 0700);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_valid_v3),
		cmocka_unit_test(test_age_deltas),
		cmocka_unit_test(test_cut_chunk),
		cmocka_unit_test(test_chunk_being_written),
		cmocka_unit_test(test_stream_cut),
		cmocka_unit_test(test_stopped_note),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_corrupt_zstd),
		cmocka_unit_test(test_bad_varint),
		cmocka_unit_test(test_free_nowhere),
		cmocka_unit_test(test_old_version),
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_pairs_one_bucket),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char path[128];
	snprintf(path, sizeof(path), "%s/mprof-4242.000001.rec", dir);
	unlink(path);
	rmdir(dir);
	return rc;
}
