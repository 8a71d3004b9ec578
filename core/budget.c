/* budget.c - mprof-tui --budget's terms (budget.h): parsed from
 * "[SCOPE:]METRIC<=LIMIT,...", and each measured over an aggregate: the
 * total, or the cum of one node (a stack counted once however often it
 * passes through), with the stacks through it biggest first. */
#include "core/budget.h"
#include "core/bytes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const metric_names[BUDGET_NMETRIC] = {
	[BUDGET_INUSE] = "inuse", [BUDGET_OBJECTS] = "objects", [BUDGET_LEAKS] = "leaks", [BUDGET_PEAK] = "peak",
	[BUDGET_ALLOC] = "alloc", [BUDGET_ALLOCS] = "allocs", [BUDGET_GROWTH] = "growth",
};

enum agg_metric budget_agg_metric(enum budget_metric m)
{
	return m == BUDGET_OBJECTS ? AGG_INUSE_OBJS
	       : m == BUDGET_ALLOC ? AGG_ALLOC_BYTES
	       : m == BUDGET_ALLOCS ? AGG_ALLOC_OBJS
				    : AGG_INUSE_BYTES;
}

/* "64M" (binary suffixes, as --sample-rate), or a plain count; 0 or -1. */
static int parse_limit(const char *s, int count, uint64_t *v)
{
	size_t n = strlen(s);
	if (count && n && (s[n - 1] < '0' || s[n - 1] > '9'))
		return -1;
	return bytes_parse(s, INT64_MAX, v);
}

/* "5%" or "2.5%"; 0 or -1. */
static int parse_percent(const char *s, double *pct)
{
	if (*s < '0' || *s > '9')
		return -1;
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	if (errno || end[0] != '%' || end[1] || !(d >= 0) || d > 1e9)
		return -1;
	*pct = d;
	return 0;
}

/* One term s[0..n) into t; 0, or -1 with err. */
static int parse_term(budget_term *t, const char *s, size_t n, char *err, size_t errlen)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	memset(t, 0, sizeof(*t));
	t->percent = -1;
	if (!(t->text = strndup(s, n))) {
		snprintf(err, errlen, "--budget: out of memory");
		return -1;
	}
	const char *txt = t->text;
	if (!n) {
		snprintf(err, errlen, "--budget: an empty term (TERM,TERM: each [FUNCTION:]MEASURE<=LIMIT)");
		return -1;
	}
	char *le = strstr(t->text, "<=");
	if (!le) {
		snprintf(err, errlen, "--budget: '%s': no '<=' (a term is [FUNCTION:]MEASURE<=LIMIT)", txt);
		return -1;
	}
	size_t left = (size_t)(le - t->text);
	const char *colon = memrchr(t->text, ':', left);
	const char *mname = colon ? colon + 1 : t->text;
	size_t mlen = left - (size_t)(mname - t->text);
	if (colon && colon == t->text) {
		snprintf(err, errlen, "--budget: '%s': nothing before ':' (a function or module name)", txt);
		return -1;
	}
	int m = 0;
	while (m < BUDGET_NMETRIC && (strlen(metric_names[m]) != mlen || strncmp(metric_names[m], mname, mlen)))
		m++;
	if (m == BUDGET_NMETRIC) {
		snprintf(err, errlen,
			 "--budget: '%s': unknown measure '%.*s' (inuse, objects, leaks, peak, alloc, allocs, growth)",
			 txt, (int)mlen, mname);
		return -1;
	}
	t->metric = (enum budget_metric)m;
	if (colon && !(t->scope = strndup(t->text, (size_t)(colon - t->text)))) {
		snprintf(err, errlen, "--budget: out of memory");
		return -1;
	}
	const char *lim = le + 2;
	int count = m == BUDGET_OBJECTS || m == BUDGET_ALLOCS;
	if (m == BUDGET_GROWTH && strchr(lim, '%')) {
		if (parse_percent(lim, &t->percent)) {
			snprintf(err, errlen, "--budget: '%s': growth's limit is bytes or a percentage (5%%), not '%s'", txt,
				 lim);
			return -1;
		}
	} else if (parse_limit(lim, count, &t->limit)) {
		snprintf(err, errlen, count ? "--budget: '%s': the limit is a count (digits), not '%s'"
					    : "--budget: '%s': the limit is bytes (digits, then K, M or G: 1024s), not '%s'",
			 txt, lim);
		return -1;
	}
	return 0;
}

/* The length of the term at s: up to a comma outside <> and () (a C++
 * scope such as std::map<int, int>::insert keeps its own). */
static size_t term_len(const char *s)
{
	int depth = 0;
	size_t n = 0;
	for (; s[n] && (s[n] != ',' || depth > 0); n++) {
		if ((s[n] == '<' && s[n + 1] != '=') || s[n] == '(')
			depth++;
		else if ((s[n] == '>' || s[n] == ')') && depth > 0)
			depth--;
	}
	return n;
}

int budget_parse(budget *b, const char *s, char *err, size_t errlen)
{
	memset(b, 0, sizeof(*b));
	size_t cap = 1;
	for (const char *c = s; *c; c++)
		cap += *c == ',';
	if (!(b->t = calloc(cap, sizeof(*b->t)))) {
		snprintf(err, errlen, "--budget: out of memory");
		return -1;
	}
	for (const char *c = s;; c++) {
		size_t n = term_len(c);
		if (parse_term(&b->t[b->n++], c, n, err, errlen)) {
			budget_free(b);
			return -1;
		}
		c += n;
		if (!*c)
			return 0;
	}
}

void budget_free(budget *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->t[i].text);
		free(b->t[i].scope);
	}
	free(b->t);
	memset(b, 0, sizeof(*b));
}

const budget_term *budget_find(const budget *b, enum budget_metric m)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->t[i].metric == m)
			return &b->t[i];
	return NULL;
}

uint32_t budget_node(const prof_nodemap *m, const char *scope)
{
	for (uint32_t i = 0; i < m->nnodes; i++)
		if (!strcmp(nodemap_name(m, i), scope))
			return i;
	for (uint32_t i = 0; i < m->nnodes; i++) {   /* a module by its file name */
		const char *slash = strrchr(nodemap_name(m, i), '/');
		if (slash && !strcmp(slash + 1, scope))
			return i;
	}
	return UINT32_MAX;
}

static int is_node(const void *arg, uint32_t node)
{
	return node == *(const uint32_t *)arg;
}

static int holds(const budget_term *t, const budget_result *r)
{
	if (t->percent < 0)
		return r->figure <= (int64_t)t->limit;
	if (r->figure <= 0)
		return 1;
	return r->base > 0 && (double)r->figure * 100.0 <= t->percent * (double)r->base;
}

int budget_measure(const budget_term *t, const prof *p, const prof_nodemap *m, const agg *a, uint32_t node,
		   int64_t base, size_t nstacks, budget_result *r)
{
	enum agg_metric am = budget_agg_metric(t->metric);
	enum agg_metric om = am == AGG_INUSE_BYTES ? AGG_INUSE_OBJS : am == AGG_ALLOC_BYTES ? AGG_ALLOC_OBJS : am;
	memset(r, 0, sizeof(*r));
	r->base = base;
	r->missing = t->scope && node == UINT32_MAX;
	if (node != UINT32_MAX) {
		r->figure = a->v[node].cum[am];
		r->objs = a->v[node].cum[om];
	} else if (!t->scope) {
		r->figure = a->total[am];
		r->objs = a->total[om];
	}
	r->broken = !holds(t, r);
	if (r->missing || !p->stacks.len)
		return 0;
	/* Per stack, over its samples (one per size); then the biggest first. */
	int64_t *val = calloc(p->stacks.len, 2 * sizeof(int64_t));
	if (!val)
		return -1;
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *s = &p->samples.v[i];
		if (s->stack >= p->stacks.len || (node != UINT32_MAX && !nodemap_stack_any(m, p, s->stack, is_node, &node)))
			continue;
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(s, v);
		agg_add(&val[2 * s->stack], v[am]);
		agg_add(&val[2 * s->stack + 1], v[om]);
	}
	if (nstacks > BUDGET_STACKS_MAX)
		nstacks = BUDGET_STACKS_MAX;
	for (uint32_t s = 0; s < p->stacks.len; s++) {
		int64_t v = val[2 * s];
		if (v <= 0)
			continue;
		size_t k = r->nstacks < nstacks ? r->nstacks++ : nstacks;
		while (k > 0 && r->sval[k - 1] < v) {   /* insertion into the top nstacks */
			if (k < nstacks) {
				r->stack[k] = r->stack[k - 1];
				r->sval[k] = r->sval[k - 1];
				r->sobjs[k] = r->sobjs[k - 1];
			}
			k--;
		}
		if (k < nstacks) {
			r->stack[k] = s;
			r->sval[k] = v;
			r->sobjs[k] = val[2 * s + 1];
		}
	}
	free(val);
	return 0;
}
