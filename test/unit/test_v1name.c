/* test_v1name.c - backtrace_symbols-style names (core/v1name.c): what the
 * formatter writes parses back to its parts, every shape the parser takes
 * in each mode, the near-misses it refuses, names cut at the v1 limit, and
 * a formatter given too little room. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/load.h"
#include "core/v1name.h"

/* The span [s, s + n) equals str. */
static void span_is(const char *s, size_t n, const char *str)
{
	assert_int_equal(n, strlen(str));
	assert_memory_equal(s, str, n);
}

static void round_trips(void **state)
{
	(void)state;
	static const struct {
		const char *path, *sym;
		uint64_t off, addr;
		const char *want;
	} c[] = {
		{ "./app", "f", 0x4, 0x1000, "./app(f+0x4) [0x1000]" },
		{ "./skynet/luaclib/skynet.so", NULL, 0xb55d, 0x7feead9e855d,
		  "./skynet/luaclib/skynet.so(+0xb55d) [0x7feead9e855d]" },
		{ "/lib/x86_64-linux-gnu/libc.so.6", "memcpy@@GLIBC_2.14", 0, 0, "/lib/x86_64-linux-gnu/libc.so.6(memcpy@@GLIBC_2.14+0x0) [0x0]" },
		{ "/a b/lib(1).so", "_ZN5store4Pool4grabEm.cold", UINT64_MAX, UINT64_MAX,
		  "/a b/lib(1).so(_ZN5store4Pool4grabEm.cold+0xffffffffffffffff) [0xffffffffffffffff]" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(*c); i++) {
		char buf[256];
		size_t sl = c[i].sym ? strlen(c[i].sym) : 0;
		size_t n = v1name_format(buf, sizeof(buf), c[i].path, c[i].sym, sl, c[i].off, c[i].addr);
		assert_string_equal(buf, c[i].want);
		assert_int_equal(n, strlen(c[i].want));
		for (int mode = V1NAME_STRICT; mode <= V1NAME_LOOSE; mode++) {
			v1name vn;
			assert_int_equal(v1name_parse(buf, mode, &vn), 0);
			span_is(vn.path, vn.path_len, c[i].path);
			span_is(vn.sym, vn.sym_len, c[i].sym ? c[i].sym : "");
			assert_int_equal(vn.parts, V1NAME_OFF | V1NAME_ADDR);
			assert_int_equal(vn.sign, '+');
			assert_true(vn.off == c[i].off);
			assert_true(vn.addr == c[i].addr);
			assert_int_equal(vn.head_len, strchr(buf + vn.path_len, ')') + 1 - buf);
		}
	}
	/* No path: glibc's "[0xaddr]", which names no module. */
	char buf[32];
	assert_int_equal(v1name_format(buf, sizeof(buf), NULL, NULL, 0, 7, 0x4000), 8);
	assert_string_equal(buf, "[0x4000]");
	v1name vn;
	assert_int_equal(v1name_parse(buf, V1NAME_STRICT, &vn), -1);
	assert_int_equal(v1name_parse(buf, V1NAME_LOOSE, &vn), -1);
	/* The longest name fits path + symbol + V1NAME_FIXED_LEN. */
	char big[64];
	size_t n = v1name_format(big, sizeof(big), "p", "s", 1, UINT64_MAX, UINT64_MAX);
	assert_int_equal(n + 1, 1 + 1 + V1NAME_FIXED_LEN);
}

static void strict_shapes(void **state)
{
	(void)state;
	v1name vn;
	/* A pc before its symbol: glibc writes '-'. */
	assert_int_equal(v1name_parse("./app(f-0x10) [0x1000]", V1NAME_STRICT, &vn), 0);
	assert_int_equal(vn.sign, '-');
	assert_true(vn.off == (uint64_t)0 - 0x10);
	span_is(vn.off_hex, vn.off_len, "10");
	/* Upper case and leading zeros; the spans keep them as written. */
	assert_int_equal(v1name_parse("./app($x.y_1+0x00000000000000000Ab) [0xDEAD]", V1NAME_STRICT, &vn), 0);
	span_is(vn.sym, vn.sym_len, "$x.y_1");
	assert_true(vn.off == 0xab);
	span_is(vn.off_hex, vn.off_len, "00000000000000000Ab");
	assert_true(vn.addr == 0xdead);
	span_is(vn.addr_hex, vn.addr_len, "DEAD");
	/* A '(' inside the path: the symbol's '(' is the last one. */
	assert_int_equal(v1name_parse("/opt/x(2)/lib.so(+0x10) [0x20]", V1NAME_STRICT, &vn), 0);
	span_is(vn.path, vn.path_len, "/opt/x(2)/lib.so");
	assert_int_equal(vn.sym_len, 0);
	/* A whole name longer than the v1 limit is not cut. */
	char longer[200];
	snprintf(longer, sizeof(longer), "%0120d(sym+0x1) [0x2]", 0);
	assert_int_equal(v1name_parse(longer, V1NAME_STRICT, &vn), 0);
	assert_int_equal(vn.parts, V1NAME_OFF | V1NAME_ADDR);
}

static void strict_near_misses(void **state)
{
	(void)state;
	static const char *bad[] = {
		"./app(f+0x4) [0x1000",                 /* missing ']' (and too short to be cut) */
		"./app(f+0x4) [0x1000 ",
		"./app(f+0xzz) [0x1000]",               /* non-hex offset */
		"./app(f+0x4g) [0x1000]",
		"./app(f+4) [0x1000]",
		"./app(f+0) [0x1000]",                  /* glibc's zero offset: not the exact shape */
		"./app(f+0x4) [0x1000] x",              /* trailing junk */
		"./app(f+0x4) [0x1000]]",
		"./app(f+0x4)x [0x1000]",
		"./app(f+0x4)  [0x1000]",
		"./app(f+0x4) [0x1000](",
		"./app(f+0x4)",                         /* no address */
		"./app(f+0x4) [0x]",                    /* an address without digits */
		"./app(f(int)+0x4) [0x1000]",           /* a '(' inside the symbol */
		"strings.(*Builder).Grow",              /* Go: a function, not a path */
		"main.(*T).m+0x10",
		"./app(+0x) [0x1000]",                  /* empty symbol, "+0x" without digits */
		"./app(f) [0x1000]",
		"./app() [0x1000]",
		"./app(f 0x4) [0x1000]",
		"./app(f+0x10000000000000000) [0x1000]", /* huge offset: more than 64 bits */
		"./app(f+0x4) [0x10000000000000000]",   /* huge address */
		"(+0x10) [0x1]",                        /* no path */
		"[0x4000]",
		"",
		"malloc",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		v1name vn;
		if (v1name_parse(bad[i], V1NAME_STRICT, &vn) != -1)
			fail_msg("accepted \"%s\"", bad[i]);
	}
	/* The largest offset that fits is fine. */
	v1name vn;
	assert_int_equal(v1name_parse("./app(f+0xffffffffffffffff) [0x1]", V1NAME_STRICT, &vn), 0);
	assert_true(vn.off == UINT64_MAX);
}

/* A name of PRO_V1_NAME_MAX bytes or more may stop anywhere after its '(':
 * every cut of a long name, as the v1 writer cuts, is read for what it has. */
static void strict_cuts(void **state)
{
	(void)state;
	const char *tail = "(luaseri_pack+0x81) [0x7feead9e5681]";
	size_t tl = strlen(tail);
	for (size_t at = 1; at <= PRO_V1_NAME_MAX; at++) {
		/* The '(' at byte at, so the cut at PRO_V1_NAME_MAX falls at every place of the tail. */
		char full[256], cut[PRO_V1_NAME_MAX + 1];
		memset(full, 'p', sizeof(full));
		memcpy(full + at, tail, tl + 1);
		memcpy(cut, full, PRO_V1_NAME_MAX);
		cut[PRO_V1_NAME_MAX] = 0;
		v1name vn;
		int r = v1name_parse(cut, V1NAME_STRICT, &vn);
		size_t kept = PRO_V1_NAME_MAX - at;   /* bytes of the tail left */
		if (kept == 0) {
			assert_int_equal(r, -1);   /* the path itself was cut */
			continue;
		}
		if (kept >= tl) {   /* nothing cut */
			assert_int_equal(r, 0);
			assert_int_equal(vn.parts, V1NAME_OFF | V1NAME_ADDR);
			continue;
		}
		assert_int_equal(r, 0);
		assert_int_equal(vn.path_len, at);
		assert_true(vn.parts & V1NAME_CUT);
		assert_false(vn.parts & V1NAME_ADDR);
		size_t sym_end = 1 + strlen("luaseri_pack");
		if (kept <= sym_end)
			assert_int_equal(vn.sym_len, 0);   /* the symbol's end is unknown */
		else
			span_is(vn.sym, vn.sym_len, "luaseri_pack");
		/* The offset is whole once its ')' is in. */
		int whole = kept > sym_end + strlen("+0x81");
		assert_int_equal(!!(vn.parts & V1NAME_OFF), whole);
		if (whole)
			assert_true(vn.off == 0x81);
	}
	/* The same prefixes, shorter than the limit, are not glibc's shape. */
	v1name vn;
	assert_int_equal(v1name_parse("./app(luaseri_pa", V1NAME_STRICT, &vn), -1);
	assert_int_equal(v1name_parse("./app(luaseri_pack+0x8", V1NAME_STRICT, &vn), -1);
	/* A cut name is still refused when what it has is wrong. */
	char junk[PRO_V1_NAME_MAX + 1];
	memset(junk, 'p', sizeof(junk));
	memcpy(junk + 60, "(f+0x4) [0xZ", 12);
	junk[PRO_V1_NAME_MAX] = 0;
	assert_int_equal(v1name_parse(junk, V1NAME_STRICT, &vn), -1);
	memcpy(junk + 60, "(f*", 3);
	assert_int_equal(v1name_parse(junk, V1NAME_STRICT, &vn), -1);
}

static void loose_shapes(void **state)
{
	(void)state;
	v1name vn;
	/* No address: a diff key. */
	assert_int_equal(v1name_parse("skynet.so(+0xb55d)", V1NAME_LOOSE, &vn), 0);
	assert_int_equal(vn.parts, V1NAME_OFF);
	assert_int_equal(vn.head_len, strlen("skynet.so(+0xb55d)"));
	/* Anything in the parentheses; an offset only when one ends it. */
	assert_int_equal(v1name_parse("./app(foo bar+0x10) [0x1]", V1NAME_LOOSE, &vn), 0);
	span_is(vn.sym, vn.sym_len, "foo bar");
	assert_true(vn.off == 0x10);
	/* Parentheses nest inside the group, and a path may hold some too. */
	assert_int_equal(v1name_parse("./lib.so((anonymous namespace)::f(int)+0x10) [0x1]", V1NAME_LOOSE, &vn), 0);
	span_is(vn.path, vn.path_len, "./lib.so");
	span_is(vn.sym, vn.sym_len, "(anonymous namespace)::f(int)");
	assert_true(vn.off == 0x10);
	assert_int_equal(v1name_parse("/opt/x(2)/lib.so(+0x10) [0x20]", V1NAME_LOOSE, &vn), 0);
	span_is(vn.path, vn.path_len, "/opt/x(2)/lib.so");
	assert_int_equal(v1name_parse("./app() [0x1000]", V1NAME_LOOSE, &vn), 0);
	assert_int_equal(vn.parts, V1NAME_ADDR);
	assert_int_equal(v1name_parse("./app(f+0) [0x1000]", V1NAME_LOOSE, &vn), 0);
	span_is(vn.sym, vn.sym_len, "f+0");
	assert_int_equal(vn.sign, 0);
	assert_int_equal(v1name_parse("./app(+0x) [0x1000]", V1NAME_LOOSE, &vn), 0);
	assert_false(vn.parts & V1NAME_OFF);
	assert_int_equal(v1name_parse("./app(f+0x10000000000000000) [0x1]", V1NAME_LOOSE, &vn), 0);
	assert_false(vn.parts & V1NAME_OFF);
	assert_int_equal(v1name_parse("./app(0x10) [0x1]", V1NAME_LOOSE, &vn), 0);
	assert_false(vn.parts & V1NAME_OFF);
	assert_int_equal(v1name_parse("./app(f-0x8)", V1NAME_LOOSE, &vn), 0);
	assert_int_equal(vn.sign, '-');
	/* The address may be cut at any length. */
	static const char *cut[] = { "./app(f+0x4) ", "./app(f+0x4) [", "./app(f+0x4) [0", "./app(f+0x4) [0x",
				     "./app(f+0x4) [0x7fab" };
	for (size_t i = 0; i < sizeof(cut) / sizeof(*cut); i++) {
		assert_int_equal(v1name_parse(cut[i], V1NAME_LOOSE, &vn), 0);
		assert_int_equal(vn.parts, V1NAME_OFF | V1NAME_CUT);
		assert_int_equal(vn.head_len, strlen("./app(f+0x4)"));
	}
	/* Refused: no path, no ')', junk after it. */
	static const char *bad[] = { "(+0x10) [0x1]", "[0x4000]", "./app(f+0x4", "./app(f+0x4) [0x12zz",
				     "./app(f+0x4) [0x1] x", "./app(f+0x4)x", "./app(f+0x4) [0x]",
				     "./app(f+0x4) [0x10000000000000000]", "strings.(*Builder).Grow", "malloc",
				     "./app)f+0x4) [0x1]", "()" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (v1name_parse(bad[i], V1NAME_LOOSE, &vn) != -1)
			fail_msg("accepted \"%s\"", bad[i]);
}

/* Given too little room, the formatter writes a NUL-terminated prefix,
 * nothing past cap, and says how long the whole name is. */
static void format_small_buffers(void **state)
{
	(void)state;
	char want[128];
	size_t full = v1name_format(want, sizeof(want), "./skynet/skynet", "skynet_send", 11, 0x67, 0x55f2da79f377);
	assert_string_equal(want, "./skynet/skynet(skynet_send+0x67) [0x55f2da79f377]");
	assert_int_equal(full, strlen(want));
	for (size_t cap = 0; cap <= full + 2; cap++) {
		char buf[160];
		memset(buf, '#', sizeof(buf));
		size_t n = v1name_format(buf, cap, "./skynet/skynet", "skynet_send", 11, 0x67, 0x55f2da79f377);
		assert_int_equal(n, full);
		size_t kept = cap ? (cap - 1 < full ? cap - 1 : full) : 0;
		if (cap) {
			assert_memory_equal(buf, want, kept);
			assert_int_equal(buf[kept], 0);
		}
		for (size_t i = cap; i < sizeof(buf); i++)
			assert_int_equal(buf[i], '#');
	}
	/* The bare form too. */
	char b4[4];
	assert_int_equal(v1name_format(b4, sizeof(b4), NULL, NULL, 0, 0, 0xabcdef), 10);
	assert_string_equal(b4, "[0x");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trips),
		cmocka_unit_test(strict_shapes),
		cmocka_unit_test(strict_near_misses),
		cmocka_unit_test(strict_cuts),
		cmocka_unit_test(loose_shapes),
		cmocka_unit_test(format_small_buffers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
