/* test_u64map.c - the u64 -> u32 map (core/u64map.h): put, get, replace,
 * growth against a sorted reference, backward-shift deletion inside and
 * across the end of a probe run, the extreme keys, the fixed-buffer form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/u64map.h"

/* 64 random bits from libc's generator (seeded in main: reproducible). */
static uint64_t next_rand(void)
{
	return (uint64_t)random() << 33 ^ (uint64_t)random() << 2 ^ (uint64_t)random();
}

typedef struct kv {
	uint64_t k;
	uint32_t v;
} kv;

static int kv_cmp(const void *a, const void *b)
{
	uint64_t x = ((const kv *)a)->k, y = ((const kv *)b)->k;
	return (x > y) - (x < y);
}

/* Keys whose home slot in a map of slots slots is home (slots a power of two). */
static size_t keys_homed(uint64_t *out, size_t n, size_t slots, size_t home, uint64_t from)
{
	size_t k = 0;
	for (uint64_t x = from; k < n; x++)
		if ((hash_mix64(x) & (slots - 1)) == home)
			out[k++] = x;
	return k;
}

static void put_get_replace(void **state)
{
	(void)state;
	u64map m = { 0 };
	assert_int_equal(u64map_get(&m, 7), U64MAP_NONE);   /* all zero is empty */
	assert_int_equal(u64map_del(&m, 7), 0);
	assert_int_equal(u64map_put(&m, 7, 70), 0);
	assert_int_equal(u64map_put(&m, 8, 80), 0);
	assert_int_equal(u64map_get(&m, 7), 70);
	assert_int_equal(u64map_get(&m, 8), 80);
	assert_int_equal(u64map_get(&m, 9), U64MAP_NONE);
	assert_int_equal(u64map_put(&m, 7, 71), 0);         /* replace */
	assert_int_equal(u64map_get(&m, 7), 71);
	assert_int_equal(m.used, 2);
	/* find-or-add: the slot of an absent key is empty, then holds it */
	size_t i = u64map_slot(&m, 9);
	assert_int_equal(m.vals[i], U64MAP_NONE);
	assert_int_equal(u64map_add_at(&m, i, 9, 90), 0);
	assert_int_equal(m.vals[u64map_slot(&m, 9)], 90);
	assert_int_equal(m.used, 3);
	u64map_free(&m);
	assert_int_equal(u64map_get(&m, 7), U64MAP_NONE);

	/* init sizes for expect keys: no growth before them */
	assert_int_equal(u64map_init(&m, 1000), 0);
	uint64_t *keys = m.keys;
	for (uint32_t k = 0; k < 1000; k++)
		assert_int_equal(u64map_put(&m, next_rand(), k), 0);
	assert_ptr_equal(m.keys, keys);
	assert_true(m.used * 2 <= m.mask + 1);
	u64map_free(&m);
}

/* Random keys (some repeated) through many doublings, checked against a
 * sorted reference where the last put of a key wins. */
static void growth_against_reference(void **state)
{
	(void)state;
	enum { N = 200000 };
	kv *ref = malloc(N * sizeof(*ref));
	assert_non_null(ref);
	u64map m = { 0 };
	size_t grew = 0, slots = 0;
	for (uint32_t i = 0; i < N; i++) {
		uint64_t k = i % 10 == 9 ? ref[next_rand() % i].k : next_rand();
		ref[i] = (kv){ k, i };
		assert_int_equal(u64map_put(&m, k, i), 0);
		if (m.mask + 1 != slots) {
			grew++;
			slots = m.mask + 1;
		}
		assert_true(m.used * 2 <= m.mask + 1);
	}
	assert_true(grew >= 10);
	/* stable sort by key, keeping the last value of each */
	for (uint32_t i = 0; i < N; i++)
		ref[i].v = i;
	qsort(ref, N, sizeof(*ref), kv_cmp);
	size_t d = 0;
	for (size_t i = 0; i < N; i++) {
		if (d && ref[d - 1].k == ref[i].k) {
			if (ref[i].v > ref[d - 1].v)
				ref[d - 1].v = ref[i].v;
			continue;
		}
		ref[d++] = ref[i];
	}
	assert_int_equal(m.used, d);
	for (size_t i = 0; i < d; i++)
		assert_int_equal(u64map_get(&m, ref[i].k), ref[i].v);
	for (int i = 0; i < 10000; i++) {
		kv probe = { next_rand(), 0 };
		if (!bsearch(&probe, ref, d, sizeof(*ref), kv_cmp))
			assert_int_equal(u64map_get(&m, probe.k), U64MAP_NONE);
	}
	/* iteration visits each entry once */
	size_t seen = 0;
	uint64_t k;
	uint32_t v;
	for (size_t it = 0; u64map_next(&m, &it, &k, &v); seen++) {
		kv probe = { k, 0 };
		const kv *r = bsearch(&probe, ref, d, sizeof(*ref), kv_cmp);
		assert_non_null(r);
		assert_int_equal(v, r->v);
	}
	assert_int_equal(seen, d);
	/* delete every other key; the rest is still found, the deleted not */
	for (size_t i = 0; i < d; i += 2)
		assert_int_equal(u64map_del(&m, ref[i].k), 1);
	assert_int_equal(m.used, d / 2);
	for (size_t i = 0; i < d; i++)
		assert_int_equal(u64map_get(&m, ref[i].k), i % 2 ? ref[i].v : U64MAP_NONE);
	u64map_free(&m);
	free(ref);
}

/* Checks that every key of ks but the skipped one has its value k + 1. */
static void all_found(const u64map *m, const uint64_t *ks, size_t n, size_t skip)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(u64map_get(m, ks[i]), i == skip ? U64MAP_NONE : (uint32_t)ks[i] + 1);
}

static void deletion_shifts_back(void **state)
{
	(void)state;
	/* A run in 16 slots: five keys at home 3 (slots 3..7), then two at
	 * home 5 pushed to 8 and 9, and one at home 9 pushed to 10. */
	uint64_t ks[8];
	keys_homed(ks, 5, 16, 3, 1);
	keys_homed(ks + 5, 2, 16, 5, 1);
	keys_homed(ks + 7, 1, 16, 9, 1);
	for (size_t del = 0; del < 8; del++) {
		u64map m;
		assert_int_equal(u64map_init(&m, 0), 0);
		assert_int_equal(m.mask, 15);
		for (size_t i = 0; i < 8; i++)
			assert_int_equal(u64map_put(&m, ks[i], (uint32_t)ks[i] + 1), 0);
		assert_int_equal(m.mask, 15);   /* 8 of 16: no growth */
		assert_int_equal(m.vals[u64map_slot(&m, ks[7])], (uint32_t)ks[7] + 1);
		assert_int_equal(u64map_slot(&m, ks[7]), 10);
		assert_int_equal(u64map_del(&m, ks[del]), 1);
		assert_int_equal(m.used, 7);
		all_found(&m, ks, 8, del);
		/* the run closed up: 7 entries in slots 3..9, slot 10 empty */
		for (size_t s = 3; s < 10; s++)
			assert_int_not_equal(m.vals[s], U64MAP_NONE);
		assert_int_equal(m.vals[10], U64MAP_NONE);
		assert_int_equal(u64map_del(&m, ks[del]), 0);
		u64map_free(&m);
	}
	/* A run across the end: three keys at home 14 (slots 14, 15, 0) and one
	 * at home 0 (slot 1); any deletion shortens the run across slot 0. */
	uint64_t wr[4];
	keys_homed(wr, 3, 16, 14, 1);
	keys_homed(wr + 3, 1, 16, 0, 1);
	for (size_t del = 0; del < 4; del++) {
		u64map m;
		assert_int_equal(u64map_init(&m, 0), 0);
		for (size_t i = 0; i < 4; i++)
			assert_int_equal(u64map_put(&m, wr[i], (uint32_t)wr[i] + 1), 0);
		assert_int_equal(u64map_slot(&m, wr[3]), 1);
		assert_int_equal(u64map_del(&m, wr[del]), 1);
		all_found(&m, wr, 4, del);
		assert_int_equal(m.vals[1], U64MAP_NONE);   /* the run is one shorter */
		if (del != 3)
			assert_int_equal(u64map_slot(&m, wr[3]), 0);   /* moved back to its home */
		u64map_free(&m);
	}
}

static void extreme_keys(void **state)
{
	(void)state;
	u64map m = { 0 };
	const uint64_t ks[] = { 0, UINT64_MAX, 1ULL << 63, 1 };
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(u64map_put(&m, ks[i], i), 0);
	assert_int_equal(u64map_put(&m, 1, U64MAP_NONE - 1), 0);   /* the largest value */
	assert_int_equal(u64map_get(&m, 0), 0);
	assert_int_equal(u64map_get(&m, UINT64_MAX), 1);
	assert_int_equal(u64map_get(&m, 1ULL << 63), 2);
	assert_int_equal(u64map_get(&m, 1), U64MAP_NONE - 1);
	assert_int_equal(u64map_get(&m, 2), U64MAP_NONE);
	assert_int_equal(u64map_del(&m, 0), 1);
	assert_int_equal(u64map_get(&m, 0), U64MAP_NONE);
	assert_int_equal(u64map_get(&m, UINT64_MAX), 1);
	assert_int_equal(m.used, 3);
	u64map_free(&m);
}

/* The hook's form: over the caller's own buffers, never growing. */
static void fixed_buffers(void **state)
{
	(void)state;
	uint64_t keys[64];
	uint32_t vals[64];
	u64map m;
	memset(vals, 0, sizeof(vals));
	u64map_over(&m, keys, vals, 64);
	assert_int_equal(u64map_get(&m, 0), U64MAP_NONE);   /* over cleared the values */
	for (uint32_t i = 0; i < 63; i++) {
		uint64_t k = i * 0x100000001ULL;
		size_t s = u64map_slot(&m, k);
		assert_int_equal(m.vals[s], U64MAP_NONE);
		u64map_set_at(&m, s, k, i);
	}
	assert_int_equal(m.used, 63);
	for (uint32_t i = 0; i < 63; i++)
		assert_int_equal(u64map_get(&m, i * 0x100000001ULL), i);
	assert_int_equal(u64map_get(&m, 5), U64MAP_NONE);   /* the one empty slot ends the probe */
	/* a fixed map refuses to grow: it never leaves the caller's buffers */
	assert_int_equal(u64map_put(&m, 5, 1), -1);
	assert_ptr_equal(m.keys, keys);
	u64map_free(&m);   /* must not free the caller's buffers */
	assert_null(m.vals);
}

int main(void)
{
	srandom(19);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(put_get_replace),
		cmocka_unit_test(growth_against_reference),
		cmocka_unit_test(deletion_shifts_back),
		cmocka_unit_test(extreme_keys),
		cmocka_unit_test(fixed_buffers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
