/* test_allocfam.c - the rules that tell an allocator from its symbol
 * names (attach/shared/allocfam.c), shared by the hook and the injection:
 * jemalloc's prefix, tcmalloc and the executable's own malloc only in the
 * executable, which names are an allocator's members and code, and
 * MPROF_FUNCS's syntax with its errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "attach/shared/allocfam.h"

typedef struct names {
	const char *const *v;
} names;

static int has(void *arg, const char *name)
{
	const names *n = arg;
	for (int i = 0; n->v[i]; i++)
		if (!strcmp(n->v[i], name))
			return 1;
	return 0;
}

/* af_note over the names, then af_finish; the count found. */
static int find(const char *const *v, int is_exe, af_found *out)
{
	af_scan sc;
	memset(&sc, 0, sizeof(sc));
	for (int i = 0; v[i]; i++)
		af_note(&sc, v[i]);
	names n = { v };
	return af_finish(&sc, is_exe, has, &n, out, 8);
}

static void test_jemalloc_prefix(void **state)
{
	(void)state;
	static const char *const skynet[] = { "main", "je_malloc", "je_free", "je_mallctl", "je_arena_new",
					      "skynet_malloc", NULL };
	af_found f[8];
	assert_int_equal(find(skynet, 1, f), 1);
	assert_int_equal(f[0].kind, SEG_AK_JEMALLOC);
	assert_string_equal(f[0].prefix, "je_");
	/* prefixed, it is found in a library too */
	assert_int_equal(find(skynet, 0, f), 1);
	/* a mallctl with no malloc beside it is not jemalloc */
	static const char *const half[] = { "x_mallctl", "x_free", NULL };
	assert_int_equal(find(half, 1, f), 0);
	/* unprefixed: the executable's own, but a library is interposed */
	static const char *const plain[] = { "malloc", "free", "mallctl", NULL };
	assert_int_equal(find(plain, 1, f), 1);
	assert_string_equal(f[0].prefix, "");
	assert_int_equal(find(plain, 0, f), 0);
}

static void test_tcmalloc_and_own(void **state)
{
	(void)state;
	static const char *const tc[] = { "malloc", "free", "tc_malloc", "tc_free", NULL };
	af_found f[8];
	assert_int_equal(find(tc, 1, f), 1);
	assert_int_equal(f[0].kind, SEG_AK_TCMALLOC);
	assert_int_equal(find(tc, 0, f), 0);   /* libtcmalloc.so: interposed */
	static const char *const own[] = { "main", "malloc", "free", NULL };
	assert_int_equal(find(own, 1, f), 1);
	assert_int_equal(f[0].kind, SEG_AK_OWN);
	assert_int_equal(find(own, 0, f), 0);
	static const char *const mi[] = { "mi_malloc", "mi_free", NULL };
	assert_int_equal(find(mi, 0, f), 1);
	assert_int_equal(f[0].kind, SEG_AK_MIMALLOC);
}

static void test_members_and_code(void **state)
{
	(void)state;
	const af_member *m = af_members(SEG_AK_JEMALLOC);
	int i = af_member_of(SEG_AK_JEMALLOC, "je_", "je_rallocx");
	assert_true(i >= 0);
	assert_string_equal(m[i].name, "rallocx");
	assert_int_equal(m[i].role, AF_RALLOCX);
	i = af_member_of(SEG_AK_JEMALLOC, "je_", "je_posix_memalign");
	assert_int_equal(m[i].role, AF_PMEMALIGN);
	assert_int_equal(m[i].a1, 2);   /* the size is the third argument */
	assert_int_equal(af_member_of(SEG_AK_JEMALLOC, "je_", "malloc"), -1);
	assert_int_equal(af_member_of(SEG_AK_JEMALLOC, "je_", "je_arena_new"), -1);
	/* operators are jemalloc's own only unprefixed */
	assert_int_equal(af_member_of(SEG_AK_JEMALLOC, "je_", "je__Znwm"), -1);
	assert_true(af_member_of(SEG_AK_JEMALLOC, "", "_Znwm") >= 0);
	assert_true(af_member_of(SEG_AK_TCMALLOC, "tc_", "malloc") >= 0);
	assert_int_equal(af_code_of(SEG_AK_JEMALLOC, "je_", "je_arena_new"), 1);
	assert_int_equal(af_code_of(SEG_AK_JEMALLOC, "je_", "je_malloc.cold"), 1);
	assert_int_equal(af_code_of(SEG_AK_JEMALLOC, "je_", "skynet_malloc"), 0);
	assert_int_equal(af_code_of(SEG_AK_TCMALLOC, "tc_", "_ZN8tcmalloc11ThreadCache7CleanupEv"), 1);
	assert_int_equal(af_code_of(SEG_AK_TCMALLOC, "tc_", "main"), 0);
}

static void test_user_spec(void **state)
{
	(void)state;
	af_user u[AF_USER_MAX];
	char why[160];
	assert_int_equal(af_user_parse("app_malloc:malloc, app_free:free,pool_get:malloc:2,xr:realloc:2:3", u,
				       AF_USER_MAX, why, sizeof(why)), 4);
	assert_string_equal(u[0].name, "app_malloc");
	assert_int_equal(u[0].m.role, AF_ALLOC);
	assert_int_equal(u[0].m.a0, 0);
	assert_int_equal(u[1].m.role, AF_FREE);
	assert_int_equal(u[2].m.a0, 1);
	assert_int_equal(u[3].m.role, AF_REALLOC);
	assert_int_equal(u[3].m.a0, 1);
	assert_int_equal(u[3].m.a1, 2);
	assert_int_equal(af_user_parse("f:grow", u, AF_USER_MAX, why, sizeof(why)), -1);
	assert_string_equal(why, "f: role 'grow' is not malloc, calloc, free or realloc");
	assert_int_equal(af_user_parse("f:malloc:7", u, AF_USER_MAX, why, sizeof(why)), -1);
	assert_string_equal(why, "f: argument numbers are 1 to 6, 1 of them for malloc");
	assert_int_equal(af_user_parse("f:free:1:2", u, AF_USER_MAX, why, sizeof(why)), -1);
	assert_int_equal(af_user_parse("justaname", u, AF_USER_MAX, why, sizeof(why)), -1);
	assert_int_equal(af_user_parse("a:free,b:free", u, 1, why, sizeof(why)), -1);
	assert_string_equal(why, "more than 1 functions");
	assert_int_equal(af_user_parse("", u, AF_USER_MAX, why, sizeof(why)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jemalloc_prefix),
		cmocka_unit_test(test_tcmalloc_and_own),
		cmocka_unit_test(test_members_and_code),
		cmocka_unit_test(test_user_spec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
