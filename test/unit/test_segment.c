/* test_segment.c - the segment validator and converter (attach/
 * segment_read.c) on segments built here: exact counters summed over the
 * lanes, then every kind of lie (offsets outside, sizes that overflow, bad
 * lanes, stacks pointing past the frames) and a segment another thread
 * scribbles on while it is being converted; the ring's slot encoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "attach/live/segment_read.h"

#define NSTACK 4
#define NLANE 3

/* A valid segment: 3 stacks of depth 2 (leaf 0x401000 + 16 i, root
 * 0x401100), lane 0 and lanes 1, 2 holding parts of their counters, one
 * module "/nonexistent/app".  Caller frees. */
static uint8_t *build(size_t *len)
{
	uint64_t size[SEG_R_COUNT] = {
		[SEG_R_STACKS] = NSTACK * sizeof(seg_stack),
		[SEG_R_COUNTERS] = (NSTACK + (NLANE - 1) * NSTACK) * sizeof(mp_counts),
		[SEG_R_FRAMES] = 16 * sizeof(uint64_t),
		[SEG_R_HASH] = 8 * sizeof(uint32_t),
		[SEG_R_RING] = 4 * sizeof(seg_slot),
		[SEG_R_MODULES] = 2 * sizeof(seg_module),
	};
	uint64_t off = (sizeof(seg_header) + 63) & ~(uint64_t)63, offs[SEG_R_COUNT];
	for (int r = 0; r < SEG_R_COUNT; r++) {
		offs[r] = off;
		off = (off + size[r] + 63) & ~(uint64_t)63;
	}
	uint8_t *b = calloc(1, off);
	assert_non_null(b);
	seg_header *h = (seg_header *)b;
	memcpy(h->magic, SEG_MAGIC, 8);
	h->version = SEG_VERSION;
	h->header_size = sizeof(*h);
	h->file_size = off;
	h->pid = 4242;
	h->state = SEG_STATE_RUNNING;
	h->max_depth = 64;
	strcpy(h->cmdline, "./app --test");
	memcpy(h->off, offs, sizeof(offs));
	memcpy(h->size, size, sizeof(size));
	h->stack_cap = NSTACK;
	h->stack_count = 3;
	h->frame_cap = 16;
	h->frame_used = 6;
	h->hash_cap = 8;
	h->ring_cap = 4;
	h->module_cap = 2;
	h->module_count = 1;
	h->counter_lanes = NLANE;
	h->lane_cap = NSTACK;
	h->unknown_frees = 5;
	h->dropped_live = 2;
	seg_stack *st = (seg_stack *)(b + offs[SEG_R_STACKS]);
	mp_counts *c = (mp_counts *)(b + offs[SEG_R_COUNTERS]);
	uint64_t *pc = (uint64_t *)(b + offs[SEG_R_FRAMES]);
	for (int i = 0; i < 3; i++) {
		st[i] = (seg_stack){ .state = SEG_STACK_READY, .depth = 2, .frame_off = 2 * (uint64_t)i, .hash = 1 };
		pc[2 * i] = 0x401000 + 16 * (uint64_t)i;
		pc[2 * i + 1] = 0x401100;
		/* lane 0, lane 1, lane 2: 10 + 1 + 2 objects allocated, 3 freed */
		c[i] = (mp_counts){ 10, 1000, 2, 200 };
		c[NSTACK + i] = (mp_counts){ 1, 100, 1, 100 };
		c[2 * NSTACK + i] = (mp_counts){ 2, 200, 0, 0 };
	}
	seg_module *m = (seg_module *)(b + offs[SEG_R_MODULES]);
	m->base = 0x400000;
	m->size = 0x10000;
	m->state = SEG_MOD_LOADED;
	strcpy(m->path, "/nonexistent/app");
	*len = off;
	return b;
}

static seg_header *hdr(uint8_t *b)
{
	return (seg_header *)b;
}

/* seg_validate's verdict on b, and its message in msg. */
static int check(uint8_t *b, size_t len, char *msg)
{
	prof_error err;
	err.msg[0] = 0;
	int rc = seg_validate(b, len, "seg", &err);
	strcpy(msg, err.msg);
	prof *p = seg_to_prof(b, len, "seg", &err);
	assert_int_equal(rc == 0, p != NULL);   /* the converter agrees */
	prof_free(p);
	return rc;
}

static void test_valid_sums_lanes(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = build(&len);
	prof_error err;
	assert_int_equal(seg_validate(b, len, "seg", &err), 0);
	prof *p = seg_to_prof(b, len, "seg", &err);
	assert_non_null(p);
	assert_int_equal(p->samples.len, 3);
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *s = &p->samples.v[i];
		assert_int_equal(s->c.alloc_objs, 13);
		assert_int_equal(s->c.alloc_bytes, 1300);
		assert_int_equal(s->c.free_objs, 3);
		assert_int_equal(s->c.free_bytes, 300);
		assert_int_equal(p->stacks.v[s->stack].depth, 2);
		assert_int_equal(p->frames.v[prof_stack_frames(p, s->stack)[1]].addr, 0x401100);
	}
	assert_int_equal(p->meta.pid, 4242);
	assert_int_equal(p->meta.unknown_frees, 5);
	assert_int_equal(p->meta.dropped, 2);
	assert_int_equal(p->modules.len, 1);
	prof_free(p);
	free(b);
}

/* Stacks beyond lane_cap are in lane 0 only. */
static void test_lane_cap(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = build(&len);
	hdr(b)->lane_cap = 1;   /* lanes 1, 2 are entries 4 and 5: stack 0 only */
	prof_error err;
	prof *p = seg_to_prof(b, len, "seg", &err);
	assert_non_null(p);
	uint64_t total = 0;
	for (size_t i = 0; i < p->samples.len; i++)
		total += p->samples.v[i].c.alloc_objs;
	assert_int_equal(total, 10 + 1 + 1 + 10 + 10);
	prof_free(p);
	free(b);
}

/* The heap window's counters (--window): found where win_off says when
 * they fit in the mapping, refused (NULL) wherever they would not. */
static void test_window_counters(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = build(&len);
	size_t len2 = len + NSTACK * sizeof(mp_counts);
	b = realloc(b, len2);
	assert_non_null(b);
	seg_map m = { .h = (const seg_header *)b, .len = len2 };
	seg_header hc = *hdr(b);
	hc.win_off = len;
	assert_ptr_equal(seg_window_counters(&m, &hc), b + len);
	const uint64_t bad_off[] = { 0, 8, len + 4, len + 8, len2, UINT64_MAX - 7 };
	for (size_t i = 0; i < sizeof(bad_off) / sizeof(bad_off[0]); i++) {
		hc.win_off = bad_off[i];
		if (seg_window_counters(&m, &hc))
			fail_msg("win_off %llu accepted in a %zu-byte segment", (unsigned long long)bad_off[i], len2);
	}
	hc.win_off = len;
	hc.stack_cap = UINT64_MAX / 16;   /* stack_cap x 32 wraps */
	assert_null(seg_window_counters(&m, &hc));
	free(b);
}

/* Lie number i in header h of a len-byte segment; NULL when there are no
 * more.  Returns what the error message must contain. */
static const char *lie(int i, seg_header *h, size_t len, const char **what)
{
	switch (i) {
#define CASE(n, w, want, body) case n: *what = w; body; return want;
	CASE(0, "magic", "offset 0: not an mprof segment", h->magic[0] = 'X')
	CASE(1, "version", "segment version", h->version = 99)
	CASE(2, "header size", "segment version", h->header_size = 8)
	CASE(3, "file size", "segment claims", h->file_size = len + 1)
	CASE(4, "stacks outside", "stacks region out of bounds", h->off[SEG_R_STACKS] = len)
	CASE(5, "stacks far outside", "stacks region out of bounds", h->off[SEG_R_STACKS] = UINT64_MAX - 7)
	CASE(6, "stacks misaligned", "stacks region out of bounds", h->off[SEG_R_STACKS] += 4)
	CASE(7, "stacks inside the header", "stacks region out of bounds", h->off[SEG_R_STACKS] = 0)
	CASE(8, "size past the end", "frames region out of bounds", h->size[SEG_R_FRAMES] = len)
	CASE(9, "size wraps", "ring region out of bounds", h->size[SEG_R_RING] = UINT64_MAX)
	CASE(10, "capacity overflows", "bad counter lanes", h->stack_cap = UINT64_MAX - 1)
	CASE(11, "capacity too big", "stacks region out of bounds", (h->stack_cap = 1000, h->lane_cap = 1))
	CASE(12, "frame capacity overflows", "frames region out of bounds", h->frame_cap = UINT64_MAX / 8 + 2)
	CASE(13, "ring capacity", "ring region out of bounds", h->ring_cap = 1ull << 62)
	CASE(14, "ring not a power of two", "bad capacities", h->ring_cap = 3)
	CASE(15, "hash not a power of two", "bad capacities", h->hash_cap = 6)
	CASE(16, "modules outside", "modules region out of bounds", h->module_cap = 1u << 20)
	CASE(17, "no lanes", "bad counter lanes", h->counter_lanes = 0)
	CASE(18, "too many lanes", "bad counter lanes", h->counter_lanes = SEG_MAX_LANES + 1)
	CASE(19, "lanes past the region", "counters region out of bounds", h->counter_lanes = 4)
	CASE(20, "lane cap above stack cap", "bad counter lanes", h->lane_cap = NSTACK + 1)
	CASE(21, "lanes overflow", "bad counter lanes",
	     (h->counter_lanes = SEG_MAX_LANES, h->lane_cap = h->stack_cap = UINT64_MAX / 2))
#undef CASE
	}
	return NULL;
}

static void test_bad_headers(void **state)
{
	(void)state;
	size_t len;
	char msg[512];
	uint8_t *b = build(&len);
	assert_int_equal(check(b, len, msg), 0);
	const char *what, *want;
	int n = 0;
	for (int i = 0;; i++) {
		uint8_t *c = build(&len);
		if (!(want = lie(i, hdr(c), len, &what))) {
			free(c);
			break;
		}
		int rc = check(c, len, msg);
		if (rc != -1 || !strstr(msg, want) || !strstr(msg, "seg: offset "))
			fail_msg("%s: rc %d, message '%s', want '%s'", what, rc, msg, want);
		free(c);
		n++;
	}
	assert_int_equal(n, 22);
	/* Shorter than a header, and empty. */
	assert_int_equal(check(b, sizeof(seg_header) - 1, msg), -1);
	assert_int_equal(check(b, 0, msg), -1);
	free(b);
}

/* Counts past capacity are clamped; stacks whose frames lie past the frame
 * table, or that are not ready, are skipped (and counted as dropped). */
static void test_bad_entries(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = build(&len);
	seg_header *h = hdr(b);
	seg_stack *st = (seg_stack *)(b + h->off[SEG_R_STACKS]);
	h->stack_count = UINT64_MAX;
	h->module_count = UINT64_MAX;
	h->frame_used = UINT64_MAX;
	st[0].frame_off = 15;            /* depth 2 from 15 passes frame_cap 16 */
	st[1].depth = UINT32_MAX;
	st[2].state = SEG_STACK_DUP;
	st[3] = (seg_stack){ .state = SEG_STACK_READY, .depth = 2, .frame_off = UINT64_MAX - 1 };
	uint64_t *c = (uint64_t *)(b + h->off[SEG_R_COUNTERS]);
	c[3 * 4] = 7;                    /* stack 3 allocated 7 in lane 0 */
	prof_error err;
	prof *p = seg_to_prof(b, len, "seg", &err);
	assert_non_null(p);
	assert_int_equal(p->samples.len, 0);
	assert_int_equal(p->meta.dropped, 2 + 13 + 13 + 7);
	assert_int_equal(p->modules.len, 2);   /* clamped to module_cap */
	prof_free(p);
	free(b);
}

/* Another thread writes garbage all over the segment (header included)
 * while it is validated and converted: a read gives a profile that holds
 * together or a refusal naming the segment and the offset, never a crash.
 * Every 50 reads the scribbler is held, the segment restored and read
 * exactly, so the test knows the reads can succeed without relying on luck. */
typedef struct scribble {
	uint8_t *b;
	size_t len;
	int stop, hold, held;
	uint64_t writes;
} scribble;

static void *scribbler(void *arg)
{
	scribble *s = arg;
	uint64_t x = 88172645463325252ULL;
	size_t words = s->len / 8;
	uint64_t *w = (uint64_t *)s->b;
	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t v = x & 1 ? x : x & 0xff;    /* huge values and small ones */
		__atomic_store_n(&w[(x >> 20) % words], v, __ATOMIC_RELAXED);
		s->writes++;
		if (__atomic_load_n(&s->hold, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&s->held, 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&s->hold, __ATOMIC_ACQUIRE))
				sched_yield();
			__atomic_store_n(&s->held, 0, __ATOMIC_RELEASE);
		}
	}
	return NULL;
}

/* Fails unless p could only have come from a len-byte segment: every index
 * in range, depths within the reader's limit. */
static void assert_sane(const prof *p, size_t len)
{
	assert_true(p->samples.len <= len / sizeof(seg_stack));
	assert_true(p->modules.len <= len / sizeof(seg_module));
	for (size_t k = 0; k < p->samples.len; k++) {
		uint32_t st = p->samples.v[k].stack;
		assert_true(st < p->stacks.len);
		uint32_t depth = p->stacks.v[st].depth;
		assert_true(depth <= 4096);
		const uint32_t *f = prof_stack_frames(p, st);
		for (uint32_t j = 0; j < depth; j++)
			assert_true(f[j] < p->frames.len);
	}
}

static void test_changes_while_read(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = build(&len);
	uint8_t *pristine = malloc(len);
	memcpy(pristine, b, len);
	scribble s = { .b = b, .len = len };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, scribbler, &s), 0);
	int ok = 0, exact = 0, refused = 0;
	for (int i = 0; i < 3000; i++) {
		prof_error err;
		if (i % 50 == 0) {
			/* Held: the restored segment must read exactly as built. */
			__atomic_store_n(&s.hold, 1, __ATOMIC_RELEASE);
			while (!__atomic_load_n(&s.held, __ATOMIC_ACQUIRE))
				sched_yield();
			memcpy(b, pristine, len);
			prof *p = seg_to_prof(b, len, "seg", &err);
			if (!p)
				fail_msg("held read %d refused: %s", i, err.msg);
			assert_int_equal(p->samples.len, 3);
			for (size_t k = 0; k < p->samples.len; k++)
				assert_int_equal(p->samples.v[k].c.alloc_bytes, 1300);
			prof_free(p);
			exact++;
			__atomic_store_n(&s.hold, 0, __ATOMIC_RELEASE);
			while (__atomic_load_n(&s.held, __ATOMIC_ACQUIRE))
				sched_yield();
		}
		if (i % 10 == 0)
			memcpy(b, pristine, len);   /* then nine reads of a segment going to ruin */
		prof *p = seg_to_prof(b, len, "seg", &err);
		if (p) {
			ok++;
			assert_sane(p, len);
		} else {
			refused++;
			if (strncmp(err.msg, "seg: offset ", 12))
				fail_msg("read %d: refusal without the segment and offset: '%s'", i, err.msg);
		}
		prof_free(p);
	}
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	assert_int_equal(exact, 60);
	assert_true(s.writes >= 60);   /* the scribbler did scribble before each hold */
	print_message("%d reads under scribbling: %d profiles, %d refused\n", ok + refused, ok, refused);
	free(pristine);
	free(b);
}

/* The ring's slot encoding (segment.h): random events, edge values among
 * them, decode to exactly what was encoded, slot after slot; every cut of
 * a slot's data decodes its whole events and then stops (NULL), never
 * reading past the end. */
static void test_slot_codec(void **state)
{
	(void)state;
	uint64_t rnd = 12345;
	seg_event in[SEG_SLOT_DATA], out;
	for (int round = 0; round < 2000; round++) {
		seg_slot sl = { .time_ns = round * 1000003ull, .tid = 77 };
		seg_event prev = { .time_ns = sl.time_ns };
		uint64_t t = sl.time_ns;
		while (sl.len + SEG_EV_MAXLEN <= SEG_SLOT_DATA) {
			rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
			unsigned pick = (unsigned)(rnd >> 60);
			t += pick == 1 ? 4000000 : pick == 2 ? 1ull << 40 : 0;   /* a thread's times never go back */
			seg_event e = { .time_ns = t, .tid = 77, .kind = rnd >> 59 & 1 ? SEG_EV_FREE : SEG_EV_ALLOC,
					.size = pick == 3 ? UINT64_MAX : pick == 4 ? 0 : (rnd >> 20) % 5000,
					.stack = pick == 5 ? UINT32_MAX : pick == 6 ? 0 : (uint32_t)(rnd >> 40) % 300,
					.key = pick == 7 ? UINT32_MAX : pick == 8 ? 0 : (uint32_t)(rnd >> 8) };
			if (round & 1)   /* the smallest events: 3 bytes, 153 to a slot */
				e = (seg_event){ .time_ns = sl.time_ns, .tid = 77, .kind = e.kind, .size = 8, .stack = 0, .key = 0 };
			uint8_t *end = seg_slot_put(sl.data + sl.len, &prev, &e);
			assert_true(end - (sl.data + sl.len) <= SEG_EV_MAXLEN);
			sl.len = (uint16_t)(end - sl.data);
			in[sl.n++] = e;
		}
		assert_true(sl.n <= SEG_SLOT_MAX_EVENTS);
		if (round & 1)
			assert_true(sl.n > SEG_SLOT_DATA / 4);   /* more than 4-byte events would allow */
		seg_event st = { .time_ns = sl.time_ns, .tid = sl.tid };
		const uint8_t *p = sl.data;
		for (unsigned k = 0; k < sl.n; k++) {
			p = seg_slot_next(p, sl.data + sl.len, &st, &out);
			assert_non_null(p);
			assert_memory_equal(&out, &in[k], sizeof(out));
		}
		assert_ptr_equal(p, sl.data + sl.len);
		/* Cut anywhere: whole events, then NULL. */
		unsigned cut = (unsigned)(rnd % sl.len), got = 0;
		st = (seg_event){ .time_ns = sl.time_ns, .tid = sl.tid };
		for (p = sl.data; p && got <= sl.n; got++)
			p = seg_slot_next(p, sl.data + cut, &st, &out);
		assert_true(got - 1 < sl.n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_sums_lanes),
		cmocka_unit_test(test_lane_cap),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_window_counters),
		cmocka_unit_test(test_bad_entries),
		cmocka_unit_test(test_changes_while_read),
		cmocka_unit_test(test_slot_codec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
