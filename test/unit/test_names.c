/* test_names.c - row names (core/names.c): unresolved frames shortened to
 * module file + offset, and long C++ names cut inside their argument list
 * with the function name kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/names.h"
#include "core/safetext.h"

static const char *shorten(const prof *p, const char *name)
{
	static char buf[256];
	return name_short(p, name, buf, sizeof(buf));
}

static void short_names(void **state)
{
	(void)state;
	assert_string_equal(shorten(NULL, "./skynet/luaclib/skynet.so(+0xb55d) [0x7feead9e855d]"), "skynet.so+0xb55d");
	assert_string_equal(shorten(NULL, "./skynet/skynet(+0xc588) [0x556bb898d588]"), "skynet+0xc588");
	assert_string_equal(shorten(NULL, "skynet.so(+0xb55d)"), "skynet.so+0xb55d");   /* a diff key */
	assert_string_equal(shorten(NULL, "./skynet/skynet(skynet_send+0x67) [0x55f2da79f377]"), "skynet_send+0x67");
	/* Anything else is left alone. */
	const char *keep[] = { "malloc", "std::vector<int>::push_back(int const&)", "0x401000", "f (file.c)",
			       "./skynet/luaclib/skynet.so(+0xb5", "[unknown]", "(+0x10) [0x1]" };
	for (size_t i = 0; i < sizeof(keep) / sizeof(*keep); i++)
		assert_string_equal(shorten(NULL, keep[i]), keep[i]);
	/* A bare address inside a module of the profile: its file and offset. */
	prof *p = prof_new();
	assert_non_null(p);
	assert_int_equal(prof_vec_reserve(p->modules, 1), 0);
	uint32_t path = prof_str(p, "/usr/lib/libfoo.so.1", strlen("/usr/lib/libfoo.so.1"));
	assert_int_not_equal(path, PROF_NONE);
	p->modules.v[p->modules.len++] = (prof_module){ .path = path, .build_id = PROF_NONE, .base = 0x7f0000000000,
							 .size = 0x10000, .offset = 0x1000 };
	assert_string_equal(shorten(p, "0x7f0000000123"), "libfoo.so.1+0x1123");
	assert_string_equal(shorten(p, "0x401000"), "0x401000");   /* in no module */
	prof_free(p);
}

/* Columns of s (one per UTF-8 character). */
static int width_of(const char *s)
{
	int c = 0;
	for (; *s; s++)
		c += ((unsigned char)*s & 0xc0) != 0x80;
	return c;
}

static void cpp_middle_cut(void **state)
{
	(void)state;
	char buf[512];
	const char *ell = "\xe2\x80\xa6";
	const char *n = "ns::Class::method(std::vector<int, std::allocator<int> > const&, unsigned long) const";
	/* Fits: unchanged. */
	assert_ptr_equal(name_fit(n, 200, ell, buf, sizeof(buf)), n);
	/* Cut inside the arguments, the function name and what follows the list kept. */
	const char *r = name_fit(n, 40, ell, buf, sizeof(buf));
	assert_string_equal(r, "ns::Class::method(std::vector<in\xe2\x80\xa6) const");
	assert_int_equal(width_of(r), 40);
	/* Narrower: the arguments go entirely, the rest is cut at its end by the caller. */
	r = name_fit(n, 20, ell, buf, sizeof(buf));
	assert_string_equal(r, "ns::Class::method(\xe2\x80\xa6) const");
	/* Narrower than the function name: the qualifiers go from the front. */
	r = name_fit(n, 14, ell, buf, sizeof(buf));
	assert_string_equal(r, "\xe2\x80\xa6ss::method(\xe2\x80\xa6)");
	assert_int_equal(width_of(r), 14);
	assert_non_null(strstr(r, "method("));
	/* With a location after it, as rows at function granularity show. */
	r = name_fit("foo::bar(int, char const*, double)  bar.cc:12", 30, ell, buf, sizeof(buf));
	assert_string_equal(r, "foo::bar(int, cha\xe2\x80\xa6)  bar.cc:12");
	/* Scopes and templates are not the argument list. */
	r = name_fit("(anonymous namespace)::Pool<std::pair<int, int> >::grow(unsigned long, bool)", 60, "~", buf, sizeof(buf));
	assert_string_equal(r, "(anonymous namespace)::Pool<std::pair<int, int> >::grow(un~)");
	r = name_fit("std::function<void (int)>::operator()(int) const", 40, "~", buf, sizeof(buf));
	assert_string_equal(r, "std::function<void (int)>::operator()(~) const");
	/* The module note of a C name seen in two modules is not an argument list. */
	const char *noted = "a_long_c_function_name (libsomething.so.1)";
	assert_ptr_equal(name_fit(noted, 20, ell, buf, sizeof(buf)), noted);
	r = name_fit("ns::grow(unsigned long, bool) (libsomething.so.1)", 30, "~", buf, sizeof(buf));
	assert_string_equal(r, "ns::grow(~) (libsomething.so.1)");
	/* No argument list, or a recorded path: left to the caller's end cut. */
	const char *plain = "a_very_long_c_function_name_without_arguments";
	assert_ptr_equal(name_fit(plain, 10, ell, buf, sizeof(buf)), plain);
	const char *rec = "./skynet/luaclib/skynet.so(luaseri_pack+0x81) [0x7feead9e5681]";
	assert_ptr_equal(name_fit(rec, 20, ell, buf, sizeof(buf)), rec);
}

/* Control bytes escaped; printable UTF-8 kept; C1 controls, invalid and
 * overlong sequences escaped byte by byte; a short buffer cut at a whole
 * escape. */
static void terminal_safe(void **state)
{
	(void)state;
	char buf[64];
	const char *ok = "caf\xc3\xa9::\xe6\xbc\xa2() (lib.so)";
	assert_ptr_equal(text_safe(ok, buf, sizeof(buf)), ok);
	assert_string_equal(text_safe("a\x1b[31mb\x07", buf, sizeof(buf)), "a\\x1b[31mb\\x07");
	assert_string_equal(text_safe("t\tn\n\x7f", buf, sizeof(buf)), "t\\x09n\\x0a\\x7f");
	assert_string_equal(text_safe("csi\xc2\x9b" "2J", buf, sizeof(buf)), "csi\\xc2\\x9b2J");
	assert_string_equal(text_safe("bad\xff\xc0\xaf", buf, sizeof(buf)), "bad\\xff\\xc0\\xaf");
	assert_string_equal(text_safe("cut\xe6\xbc", buf, sizeof(buf)), "cut\\xe6\\xbc");
	assert_int_equal(text_escape(buf, 7, "ab\x1b\x1b", 4), 10);
	assert_string_equal(buf, "ab\\x1b");
	assert_int_equal(text_escape(NULL, 0, "\x1b", 1), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(short_names),
		cmocka_unit_test(cpp_middle_cut),
		cmocka_unit_test(terminal_safe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
