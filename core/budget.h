/* budget.h - memory budgets with an exit status (mprof-tui --budget):
 * terms "[SCOPE:]METRIC<=LIMIT" parsed, the figure each measures over an
 * aggregate (the whole profile, or a node's cum: a function or module),
 * whether it holds, the stacks behind it biggest first, and the reports
 * (text, JUnit XML). No terminal; only the streams given. */
#ifndef MPROF_BUDGET_H
#define MPROF_BUDGET_H

#include <stdio.h>

#include "core/agg.h"
#include "core/load.h"

enum budget_metric {
	BUDGET_INUSE,     /* bytes in use */
	BUDGET_OBJECTS,   /* objects in use */
	BUDGET_LEAKS,     /* bytes in use in a profile taken at exit */
	BUDGET_PEAK,      /* bytes in use when the heap was highest */
	BUDGET_ALLOC,     /* bytes allocated */
	BUDGET_ALLOCS,    /* allocations */
	BUDGET_GROWTH,    /* bytes in use, NEW - BASE */
	BUDGET_NMETRIC
};

typedef struct budget_term {
	char *text;              /* the term as written, for the reports */
	char *scope;             /* a function or module; NULL: the whole profile */
	enum budget_metric metric;
	uint64_t limit;          /* bytes or a count */
	double percent;          /* growth's limit as % of BASE; < 0: limit is bytes */
} budget_term;

typedef struct budget {
	budget_term *t;
	size_t n;
} budget;

/* Parses s ("peak<=64M,grow_step:inuse<=10M,growth<=5%"); 0, or -1 with
 * err (errlen bytes) one line naming the bad term. Free with budget_free. */
int budget_parse(budget *b, const char *s, char *err, size_t errlen);
void budget_free(budget *b);
/* The first term of metric m, or NULL. */
const budget_term *budget_find(const budget *b, enum budget_metric m);
/* The aggregate's metric a term measures. */
enum agg_metric budget_agg_metric(enum budget_metric m);

/* The node of m named scope (exactly, or a module path by its file
 * name); UINT32_MAX when none. */
uint32_t budget_node(const prof_nodemap *m, const char *scope);

#define BUDGET_STACKS_MAX 32
typedef struct budget_result {
	int64_t figure;          /* the term's metric: the node's cum, or the total */
	int64_t objs;            /* objects beside a figure in bytes */
	int64_t base;            /* growth in %: BASE's figure */
	int missing;             /* the scope names nothing in the profile (figure 0) */
	int broken;
	size_t nstacks;          /* the stacks behind it, biggest first */
	uint32_t stack[BUDGET_STACKS_MAX];
	int64_t sval[BUDGET_STACKS_MAX], sobjs[BUDGET_STACKS_MAX];
} budget_result;

/* Measures t over p, aggregated as a over m at node (UINT32_MAX: the
 * whole profile), keeping at most nstacks (<= BUDGET_STACKS_MAX) stacks
 * through node; base is BASE's figure for a growth in %. Sets broken.
 * 0, or -1 on ENOMEM. */
int budget_measure(const budget_term *t, const prof *p, const prof_nodemap *m, const agg *a, uint32_t node,
		   int64_t base, size_t nstacks, budget_result *r);

/* "4000 B (1 object) in use at exit, over the limit 0 B" into buf. */
void budget_line(const budget_term *t, const budget_result *r, char *buf, size_t cap);
/* Stack s of p as m's names, leaf first ("leak_once < main < ..."). */
void budget_stack_text(const prof *p, const prof_nodemap *m, uint32_t s, char *buf, size_t cap);

/* The text report: one line per term, the stacks under a broken one, a
 * summary; names through m. 0, or -1 when out failed. */
int budget_report(FILE *out, const budget *b, const budget_result *r, const prof *p, const prof_nodemap *m);
/* The JUnit XML report (one testcase per term) into path, replaced
 * atomically; 0, or -1 with err. */
int budget_junit_save(const char *path, const budget *b, const budget_result *r, const prof *p,
		      const prof_nodemap *m, const char *suite, prof_error *err);

#endif
