/* budget_report.c - what mprof-tui --budget says (budget.h): a line per
 * term (the figure against the limit), the stacks that broke it biggest
 * first, as text for people and as JUnit XML for CI systems. */
#include "core/budget.h"
#include "core/names.h"
#include "core/bytes.h"
#include "core/flamegraph.h"
#include "core/safetext.h"
#include "core/savefile.h"

#include <string.h>

static int is_count(enum budget_metric m)
{
	return m == BUDGET_OBJECTS || m == BUDGET_ALLOCS;
}

/* "4000 B", "8.00 MiB (8388608 B)"; signed (+) for a growth. */
static void size_text(char *buf, size_t cap, int64_t v, int sign)
{
	char h[32];
	const char *plus = sign && v > 0 ? "+" : "";
	if (agg_magnitude(v) < 1024)
		snprintf(buf, cap, "%s%lld B", plus, (long long)v);
	else
		snprintf(buf, cap, "%s%s (%s%lld B)", plus, bytes_fmt(h, sizeof(h), v), plus, (long long)v);
}

/* A figure with its objects: "4000 B (1 object)", "8.00 MiB (8388608 B, 8 objects)", "3 allocations". */
static void figure_text(char *buf, size_t cap, enum budget_metric m, int64_t v, int64_t objs)
{
	if (is_count(m)) {
		snprintf(buf, cap, "%lld %s%s", (long long)v, m == BUDGET_ALLOCS ? "allocation" : "object",
			 v == 1 ? "" : "s");
		return;
	}
	char s[64];
	size_text(s, sizeof(s), v, m == BUDGET_GROWTH);
	size_t n = strlen(s);
	const char *o = objs == 1 || objs == -1 ? "object" : "objects";
	if (n && s[n - 1] == ')')   /* "8.00 MiB (8388608 B, 8 objects)" */
		snprintf(buf, cap, "%.*s, %lld %s)", (int)n - 1, s, (long long)objs, o);
	else
		snprintf(buf, cap, "%s (%lld %s)", s, (long long)objs, o);
}

static const char *const what[BUDGET_NMETRIC] = {
	[BUDGET_INUSE] = "in use", [BUDGET_OBJECTS] = "in use", [BUDGET_LEAKS] = "in use at exit",
	[BUDGET_PEAK] = "at the peak", [BUDGET_ALLOC] = "allocated", [BUDGET_ALLOCS] = "made",
	[BUDGET_GROWTH] = "in use beyond BASE",
};

void budget_line(const budget_term *t, const budget_result *r, char *buf, size_t cap)
{
	char fig[128], lim[64], pct[96] = "";
	figure_text(fig, sizeof(fig), t->metric, r->figure, r->objs);
	if (t->percent >= 0) {
		char b[64];
		size_text(b, sizeof(b), r->base, 0);
		if (r->base > 0)
			snprintf(pct, sizeof(pct), ", %+.1f%% of BASE's %s", (double)r->figure * 100.0 / (double)r->base, b);
		else
			snprintf(pct, sizeof(pct), ", BASE had %s", b);
		snprintf(lim, sizeof(lim), "%g%%", t->percent);
	} else if (is_count(t->metric)) {
		snprintf(lim, sizeof(lim), "%llu", (unsigned long long)t->limit);
	} else {
		size_text(lim, sizeof(lim), (int64_t)t->limit, 0);
	}
	int n = snprintf(buf, cap, "%s %s%s, %s %s", fig, what[t->metric], pct, r->broken ? "over" : "within", lim);
	if (r->missing && n > 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, " (no function or module '%s' in the profile)", t->scope);
}

void budget_stack_text(const prof *p, const prof_nodemap *m, uint32_t s, char *buf, size_t cap)
{
	const uint32_t *fr = prof_stack_frames(p, s);
	size_t n = 0;
	uint32_t last = UINT32_MAX;
	buf[0] = 0;
	for (uint32_t i = 0; i < p->stacks.v[s].depth; i++)
		for (uint32_t k = m->off[fr[i]]; k < m->off[fr[i] + 1]; k++) {
			uint32_t node = m->nodes[k];
			if (node == last)   /* one function over several frames: said once */
				continue;
			last = node;
			char sb[512];   /* an unresolved frame as module+offset: the same in every run's report */
			const char *name = stable_name(p, nodemap_name(m, node), 1, sb, sizeof(sb));
			if (n + strlen(name) + 3 + 6 >= cap) {   /* room for " < ..." */
				snprintf(buf + n, cap - n, "%s...", n ? " < " : "");
				return;
			}
			n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? " < " : "", name);
		}
}

/* A stack's line: its share of the figure, then its functions. */
static void stack_line(char *buf, size_t cap, const budget_term *t, const budget_result *r, size_t i,
		       const prof *p, const prof_nodemap *m)
{
	char fig[128], names[1024];
	figure_text(fig, sizeof(fig), t->metric, r->sval[i], r->sobjs[i]);
	budget_stack_text(p, m, r->stack[i], names, sizeof(names));
	snprintf(buf, cap, "%s  %s", fig, names);
}

static size_t broken_count(const budget *b, const budget_result *r)
{
	size_t n = 0;
	for (size_t i = 0; i < b->n; i++)
		n += r[i].broken != 0;
	return n;
}

int budget_report(FILE *out, const budget *b, const budget_result *r, const prof *p, const prof_nodemap *m)
{
	char line[1400], term[512];
	for (size_t i = 0; i < b->n; i++) {
		budget_line(&b->t[i], &r[i], line, sizeof(line));
		fprintf(out, "%-6s %s: %s\n", r[i].broken ? "BROKEN" : "ok", text_safe(b->t[i].text, term, sizeof(term)),
			line);
		for (size_t k = 0; r[i].broken && k < r[i].nstacks; k++) {
			stack_line(line, sizeof(line), &b->t[i], &r[i], k, p, m);
			fprintf(out, "         %s\n", line);
		}
	}
	size_t nb = broken_count(b, r);
	if (nb)
		fprintf(out, "budget: %zu of %zu broken\n", nb, b->n);
	else
		fprintf(out, "budget: all %zu hold\n", b->n);
	return ferror(out) ? -1 : 0;
}

struct junit_ctx {
	const budget *b;
	const budget_result *r;
	const prof *p;
	const prof_nodemap *m;
	const char *suite;
};

static int junit_write(FILE *out, void *ctx, prof_error *werr)
{
	(void)werr;
	const struct junit_ctx *c = ctx;
	char line[1400], tbuf[512], suite[1024];
	size_t nb = broken_count(c->b, c->r);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"", out);
	flamegraph_put_escaped(out, text_safe(c->suite, suite, sizeof(suite)));   /* valid UTF-8, or escaped */
	fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n", c->b->n, nb);
	for (size_t i = 0; i < c->b->n; i++) {
		const budget_result *r = &c->r[i];
		const char *term = text_safe(c->b->t[i].text, tbuf, sizeof(tbuf));
		budget_line(&c->b->t[i], r, line, sizeof(line));
		fputs("    <testcase classname=\"mprof.budget\" name=\"", out);
		flamegraph_put_escaped(out, term);
		fputs("\">\n", out);
		fputs(r->broken ? "      <failure type=\"budget\" message=\"" : "      <system-out>", out);
		flamegraph_put_escaped(out, term);
		fputs(": ", out);
		flamegraph_put_escaped(out, line);
		if (r->broken) {
			fputs("\">", out);
			for (size_t k = 0; k < r->nstacks; k++) {
				stack_line(line, sizeof(line), &c->b->t[i], r, k, c->p, c->m);
				fputc('\n', out);
				flamegraph_put_escaped(out, line);
			}
			fputs("\n      </failure>\n", out);
		} else {
			fputs("</system-out>\n", out);
		}
		fputs("    </testcase>\n", out);
	}
	fputs("  </testsuite>\n</testsuites>\n", out);
	return 0;
}

int budget_junit_save(const char *path, const budget *b, const budget_result *r, const prof *p,
		      const prof_nodemap *m, const char *suite, prof_error *err)
{
	struct junit_ctx c = { b, r, p, m, suite };
	return savefile_stream(path, junit_write, &c, err);
}
