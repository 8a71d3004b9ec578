/* test_budget.c - --budget's terms (core/budget.h): the parser's terms,
 * sizes (binary suffixes), percentages and scopes (C++ names with ::), a
 * bad term refused with one line that names it, and the measure over a
 * small profile: totals, a function's cum, the stacks behind it biggest
 * first, the limit's edge, growth in % of BASE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/budget.h"

static void parses_terms(void **state)
{
	(void)state;
	budget b;
	char err[300];
	assert_int_equal(budget_parse(&b, "peak<=64M, inuse<=1k,grow_step:inuse<=10M,ns::f:alloc<=2G,allocs<=7,"
					  "objects<=0,leaks<=0,growth<=2.5%,libc.so.6:growth<=100",
				      err, sizeof(err)),
			 0);
	assert_int_equal(b.n, 9);
	assert_int_equal(b.t[0].metric, BUDGET_PEAK);
	assert_int_equal(b.t[0].limit, 64ULL << 20);
	assert_null(b.t[0].scope);
	assert_string_equal(b.t[1].text, "inuse<=1k");   /* as written, spaces trimmed */
	assert_int_equal(b.t[1].limit, 1024);
	assert_string_equal(b.t[2].scope, "grow_step");
	assert_int_equal(b.t[2].limit, 10ULL << 20);
	assert_string_equal(b.t[3].scope, "ns::f");   /* the last ':' splits */
	assert_int_equal(b.t[3].metric, BUDGET_ALLOC);
	assert_int_equal(b.t[3].limit, 2ULL << 30);
	assert_int_equal(b.t[4].metric, BUDGET_ALLOCS);
	assert_int_equal(b.t[4].limit, 7);
	assert_int_equal(b.t[5].metric, BUDGET_OBJECTS);
	assert_int_equal(b.t[6].metric, BUDGET_LEAKS);
	assert_int_equal(b.t[6].limit, 0);
	assert_int_equal(b.t[7].metric, BUDGET_GROWTH);
	assert_true(b.t[7].percent == 2.5);
	assert_true(b.t[8].percent < 0);
	assert_int_equal(b.t[8].limit, 100);
	assert_ptr_equal(budget_find(&b, BUDGET_GROWTH), &b.t[7]);
	budget_free(&b);
	/* a comma inside <> or () is the scope's own */
	assert_int_equal(budget_parse(&b, "std::map<int, int>::insert(int, int):inuse<=1M,peak<=2M", err, sizeof(err)), 0);
	assert_int_equal(b.n, 2);
	assert_string_equal(b.t[0].scope, "std::map<int, int>::insert(int, int)");
	assert_int_equal(b.t[1].metric, BUDGET_PEAK);
	budget_free(&b);
}

/* s is refused with exactly msg. */
static void refused(const char *s, const char *msg)
{
	budget b;
	char err[300] = "";
	assert_int_equal(budget_parse(&b, s, err, sizeof(err)), -1);
	assert_string_equal(err, msg);
	assert_null(b.t);
}

static void refuses_bad_terms(void **state)
{
	(void)state;
	refused("peak<=64Q", "--budget: 'peak<=64Q': the limit is bytes (digits, then K, M or G: 1024s), not '64Q'");
	refused("inuse<=1M,peek<=1M", "--budget: 'peek<=1M': unknown measure 'peek' (inuse, objects, leaks, peak, alloc, "
				      "allocs, growth)");
	refused("inuse<1M", "--budget: 'inuse<1M': no '<=' (a term is [FUNCTION:]MEASURE<=LIMIT)");
	refused("", "--budget: an empty term (TERM,TERM: each [FUNCTION:]MEASURE<=LIMIT)");
	refused("inuse<=1,", "--budget: an empty term (TERM,TERM: each [FUNCTION:]MEASURE<=LIMIT)");
	refused(":inuse<=1", "--budget: ':inuse<=1': nothing before ':' (a function or module name)");
	refused("allocs<=1K", "--budget: 'allocs<=1K': the limit is a count (digits), not '1K'");
	refused("inuse<=-1", "--budget: 'inuse<=-1': the limit is bytes (digits, then K, M or G: 1024s), not '-1'");
	refused("inuse<=", "--budget: 'inuse<=': the limit is bytes (digits, then K, M or G: 1024s), not ''");
	refused("inuse<=9999999999G", "--budget: 'inuse<=9999999999G': the limit is bytes (digits, then K, M or G: "
				      "1024s), not '9999999999G'");
	refused("growth<=5%%", "--budget: 'growth<=5%%': growth's limit is bytes or a percentage (5%), not '5%%'");
	refused("inuse<=5%", "--budget: 'inuse<=5%': the limit is bytes (digits, then K, M or G: 1024s), not '5%'");
}

/* main -> leak_one (one 4000 B block in use), main -> grow (two stacks:
 * 3 MiB and 1 MiB, allocated and freed). */
static prof *small_prof(void)
{
	prof *p = prof_new();
	static const char *const names[] = { "main", "leak_one", "grow", "grow_inner" };
	uint32_t f[4];
	for (int i = 0; i < 4; i++) {
		f[i] = prof_frame_intern(p, 0x1000 + 0x10 * (uint64_t)i);
		p->frames.v[f[i]].name = prof_str(p, names[i], strlen(names[i]));
	}
	uint32_t s_leak = prof_stack_add(p, (uint32_t[]){ f[1], f[0] }, 2);
	uint32_t s_grow = prof_stack_add(p, (uint32_t[]){ f[2], f[0] }, 2);
	uint32_t s_inner = prof_stack_add(p, (uint32_t[]){ f[3], f[2], f[0] }, 3);
	prof_sample_add(p, s_leak, 4000, 1, 4000, 0, 0);
	prof_sample_add(p, s_grow, 1 << 20, 1, 1 << 20, 1, 1 << 20);
	prof_sample_add(p, s_inner, 1 << 20, 3, 3 << 20, 3, 3 << 20);
	return p;
}

/* Parses one term s and measures it over p at node scope's (base for %). */
static budget_result measure(const prof *p, const prof_nodemap *m, const agg *a, const char *s, int64_t base,
			     size_t nstacks)
{
	budget b;
	char err[300];
	assert_int_equal(budget_parse(&b, s, err, sizeof(err)), 0);
	uint32_t node = b.t[0].scope ? budget_node(m, b.t[0].scope) : UINT32_MAX;
	budget_result r;
	assert_int_equal(budget_measure(&b.t[0], p, m, a, node, base, nstacks, &r), 0);
	budget_free(&b);
	return r;
}

static void measures(void **state)
{
	(void)state;
	prof *p = small_prof();
	prof_nodemap m;
	agg a;
	assert_int_equal(nodemap_by_address(&m, p), 0);
	assert_int_equal(agg_compute(&a, p, &m), 0);
	budget_result r = measure(p, &m, &a, "leaks<=0", 0, 5);
	assert_int_equal(r.figure, 4000);
	assert_int_equal(r.objs, 1);
	assert_true(r.broken);
	assert_int_equal(r.nstacks, 1);
	char buf[300];
	budget_stack_text(p, &m, r.stack[0], buf, sizeof(buf));
	assert_string_equal(buf, "leak_one < main");
	r = measure(p, &m, &a, "inuse<=4000", 0, 5);   /* the edge holds */
	assert_false(r.broken);
	r = measure(p, &m, &a, "alloc<=4M", 0, 5);
	assert_int_equal(r.figure, (4 << 20) + 4000);
	assert_true(r.broken);
	assert_int_equal(r.nstacks, 3);   /* biggest first */
	assert_int_equal(r.sval[0], 3 << 20);
	assert_int_equal(r.sobjs[0], 3);
	assert_int_equal(r.sval[1], 1 << 20);
	assert_int_equal(r.sval[2], 4000);
	budget_stack_text(p, &m, r.stack[0], buf, sizeof(buf));
	assert_string_equal(buf, "grow_inner < grow < main");
	r = measure(p, &m, &a, "alloc<=4M", 0, 2);   /* at most 2 stacks kept, still the biggest */
	assert_int_equal(r.nstacks, 2);
	assert_int_equal(r.sval[1], 1 << 20);
	r = measure(p, &m, &a, "grow:allocs<=4", 0, 5);   /* cum: grow's own and grow_inner's */
	assert_int_equal(r.figure, 4);
	assert_false(r.broken);
	assert_int_equal(r.nstacks, 2);
	r = measure(p, &m, &a, "grow_inner:alloc<=3M", 0, 5);
	assert_int_equal(r.figure, 3 << 20);
	assert_false(r.broken);
	r = measure(p, &m, &a, "nosuch:alloc<=0", 0, 5);   /* names nothing: 0, said */
	assert_true(r.missing);
	assert_false(r.broken);
	budget_line(&(budget_term){ .text = "x", .scope = "nosuch", .metric = BUDGET_ALLOC, .percent = -1 }, &r, buf,
		    sizeof(buf));
	assert_string_equal(buf, "0 B (0 objects) allocated, within 0 B (no function or module 'nosuch' in the profile)");
	/* growth in % of BASE: 4000 B over BASE's 80000 B is 5 % */
	r = measure(p, &m, &a, "growth<=5%", 80000, 5);
	assert_false(r.broken);
	budget_line(&(budget_term){ .text = "x", .metric = BUDGET_GROWTH, .percent = 5 }, &r, buf, sizeof(buf));
	assert_string_equal(buf, "+3.91 KiB (+4000 B, 1 object) in use beyond BASE, +5.0% of BASE's 78.1 KiB (80000 B), "
				 "within 5%");
	r = measure(p, &m, &a, "growth<=4.9%", 80000, 5);
	assert_true(r.broken);
	r = measure(p, &m, &a, "growth<=100%", 0, 5);   /* BASE had none: any growth breaks it */
	assert_true(r.broken);
	agg_free(&a);
	nodemap_free(&m);
	prof_free(p);
}

/* The JUnit file: XML's special characters escaped in names, terms and
 * messages; a broken term's failure lists its stacks. */
static void junit_escapes(void **state)
{
	(void)state;
	prof *p = small_prof();
	uint32_t f = p->stacks.v[0].off;   /* leak_one's frame gets a C++ name */
	uint32_t fr = p->stack_frames.v[f];
	const char *cxx = "std::vector<int>::push&pop\"q\"";
	p->frames.v[fr].name = prof_str(p, cxx, strlen(cxx));
	prof_nodemap m;
	agg a;
	assert_int_equal(nodemap_by_address(&m, p), 0);
	assert_int_equal(agg_compute(&a, p, &m), 0);
	budget b;
	char err[300];
	assert_int_equal(budget_parse(&b, "inuse<=0,alloc<=1G", err, sizeof(err)), 0);
	budget_result r[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(budget_measure(&b.t[i], p, &m, &a, UINT32_MAX, 0, 5, &r[i]), 0);
	char dir[] = "/tmp/test_budget.XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.xml", dir);
	prof_error perr;
	assert_int_equal(budget_junit_save(path, &b, r, p, &m, "a<b>.pro", &perr), 0);
	FILE *in = fopen(path, "r");
	assert_non_null(in);
	char text[4096];
	size_t n = fread(text, 1, sizeof(text) - 1, in);
	text[n] = 0;
	fclose(in);
	unlink(path);
	rmdir(dir);
	assert_non_null(strstr(text, "<testsuite name=\"a&lt;b&gt;.pro\" tests=\"2\" failures=\"1\" errors=\"0\">"));
	assert_non_null(strstr(text, "<testcase classname=\"mprof.budget\" name=\"inuse&lt;=0\">"));
	assert_non_null(strstr(text, "<failure type=\"budget\" message=\"inuse&lt;=0: 3.91 KiB (4000 B, 1 object) in use, "
				     "over 0 B\">\n3.91 KiB (4000 B, 1 object)  std::vector&lt;int&gt;::push&amp;pop&quot;q&quot; "
				     "&lt; main\n      </failure>"));
	assert_non_null(strstr(text, "<system-out>alloc&lt;=1G: "));
	assert_null(strstr(text, "<int>"));
	budget_free(&b);
	agg_free(&a);
	nodemap_free(&m);
	prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_terms),
		cmocka_unit_test(refuses_bad_terms),
		cmocka_unit_test(measures),
		cmocka_unit_test(junit_escapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
