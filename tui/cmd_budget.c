/* cmd_budget.c - mprof-tui --budget TERMS FILE | --diff BASE FILE | -- CMD:
 * the entry of the command table that checks memory budgets (core/budget.h)
 * over a profile, a diff, or the final profile of a program it runs under
 * the hook, reports them (text on stdout, JUnit XML with --format=junit
 * -o FILE) and exits 0 when all hold, 1 when one is broken, 2 when it
 * could not check. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach/live/launch.h"
#include "core/budget.h"
#include "tui/cmd.h"
#include "tui/missing_syms.h"

#define BUDGET_STACKS 5   /* stacks under a broken budget, unless -n */

static const cmd_text budget_help[] = {
	{ SLOT_USE_REPORT,
	  "       mprof-tui --budget TERMS [--format=junit -o XML] FILE | --diff BASE FILE | -- CMD\n" },
	{ SLOT_BUDGET,
	  "Budgets (exit 0: all hold, 1: one is broken, 2: could not check):\n"
	  "  --budget TERMS       TERM,TERM...; a TERM is [FUNCTION|MODULE:]MEASURE<=LIMIT,\n"
	  "                       MEASURE inuse, objects, leaks (in use at exit),\n"
	  "                       peak, alloc (bytes), allocs (count), growth\n"
	  "                       (with --diff; LIMIT bytes or N% of BASE); sizes\n"
	  "                       in bytes or K, M, G (1024s): 'peak<=64M,inuse<=1M'\n"
	  "  --budget T -- CMD    run CMD under the hook, check its profile at exit\n"
	  "  --format=junit -o XML  also write the report as JUnit XML\n"
	  "  -n N                 stacks shown under a broken budget (default 5)\n"
	  "\n" },
	{ 0, NULL },
};

/* The node term t measures in f (a function's, else a module's: mm and ma
 * built on first need); UINT32_MAX when t has a scope that names nothing. */
struct scoped {
	opened *f;
	prof_nodemap mm;
	agg ma;
	int built;   /* 1: mm and ma hold the module map and its aggregate */
};

static int scope_find(struct scoped *s, const budget_term *t, const prof_nodemap **m, const agg **a, uint32_t *node)
{
	*m = &s->f->m;
	*a = &s->f->a;
	*node = t->scope ? budget_node(*m, t->scope) : UINT32_MAX;
	if (!t->scope || *node != UINT32_MAX)
		return 0;
	if (!s->built) {
		if (sym_nodemap_agg(&s->mm, &s->ma, s->f->p, s->f->sy, SYM_GRAN_MODULE))
			return -1;
		s->built = 1;
	}
	*m = &s->mm;
	*a = &s->ma;
	*node = budget_node(*m, t->scope);
	return 0;
}

static void scoped_free(struct scoped *s)
{
	if (s->built) {
		agg_free(&s->ma);
		nodemap_free(&s->mm);
	}
	s->built = 0;
}

/* After prof_select_peak: the aggregates again over the peak's counters. */
static int scoped_recompute(struct scoped *s)
{
	agg_free(&s->f->a);
	if (agg_compute(&s->f->a, s->f->p, &s->f->m))
		return -1;
	if (s->built) {
		agg_free(&s->ma);
		if (agg_compute(&s->ma, s->f->p, &s->mm)) {
			nodemap_free(&s->mm);
			s->built = 0;
			return -1;
		}
	}
	return 0;
}

/* Opens path (minus BASE when base) at function granularity; a peak term
 * (pk) wants a profile that kept its peak (name: what to call it then).
 * 0, or the exit status (said). */
static int budget_open(opened *f, const cli *c, const char *path, const char *base, const budget_term *pk,
		       const char *name)
{
	cli cc = *c;
	cc.peak = 0;
	cc.diff_base = base;
	cc.given = NULL;
	int rc = opened_load(f, &cc, path);
	if (rc)
		return rc;
	if (pk && !f->p->meta.peak.time_ns)
		fprintf(stderr, "mprof-tui: %s: no peak in this profile (budget '%s' needs a dump of libmprof.so that kept one)\n",
			name, pk->text);
	else if (!opened_build(f, &cc, path, SYM_GRAN_FUNCTION)) {
		app_say_missing(f->sy, "keep their recorded names");
		return 0;
	}
	opened_free(f, 0);
	f->p = NULL;
	return EXIT_BAD;
}

/* Measures every term: those on in-use and alloc first, then (the
 * profile's counters moved to its peak) those on the peak. 0, or -1. */
static int budget_eval(const budget *b, opened *f, opened *fb, size_t nstacks, budget_result *r)
{
	struct scoped s = { .f = f }, sb = { .f = fb };
	int rc = 0;
	for (int pass = 0; pass < 2 && !rc; pass++) {
		if (pass == 1 && budget_find(b, BUDGET_PEAK) && (prof_select_peak(f->p) || scoped_recompute(&s)))
			rc = -1;
		for (size_t i = 0; i < b->n && !rc; i++) {
			const budget_term *t = &b->t[i];
			if ((t->metric == BUDGET_PEAK) != pass)
				continue;
			const prof_nodemap *m;
			const agg *a;
			uint32_t node;
			int64_t base = 0;
			if (scope_find(&s, t, &m, &a, &node)) {
				rc = -1;
				break;
			}
			if (t->percent >= 0 && fb->p) {   /* BASE's own figure: growth in % of it */
				const prof_nodemap *bm;
				const agg *ba;
				uint32_t bn;
				if (scope_find(&sb, t, &bm, &ba, &bn)) {
					rc = -1;
					break;
				}
				base = bn != UINT32_MAX ? ba->v[bn].cum[AGG_INUSE_BYTES] : t->scope ? 0 : ba->total[AGG_INUSE_BYTES];
			}
			rc = budget_measure(t, f->p, m, a, node, base, nstacks, &r[i]);
		}
	}
	scoped_free(&s);
	scoped_free(&sb);
	return rc;
}

/* Removes the launch's directory and the dumps in it (a child's too). */
static void dump_dir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
}

/* -- CMD: runs it under the hook, its profile at exit into dir/final.pro
 * (path); 0 (*failed: it did not exit 0, said), or the exit status. */
static int budget_launch(char *const *cmdv, char *dir, char *path, size_t cap, int *failed)
{
	char lib[4096];
	prof_error err;
	if (launch_find_lib(lib, sizeof(lib), &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return EXIT_BAD;
	}
	if (!mkdtemp(dir)) {
		fprintf(stderr, "mprof-tui: %s: %s\n", dir, strerror(errno));
		dir[0] = 0;
		return EXIT_BAD;
	}
	snprintf(path, cap, "%s/final.pro", dir);
	int st;
	if (launch_run_dump(cmdv, lib, path, &st, &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return EXIT_BAD;
	}
	*failed = !WIFEXITED(st) || WEXITSTATUS(st);
	char how[64];
	snprintf(how, sizeof(how), WIFEXITED(st) ? "exited with status %d" : "was killed by signal %d",
		 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	if (access(path, F_OK)) {
		fprintf(stderr, "mprof-tui: %s %s without writing its profile (nothing to check)\n", cmdv[0], how);
		return EXIT_BAD;
	}
	if (*failed)
		fprintf(stderr, "mprof-tui: %s %s (its budgets are checked; the exit status is 1)\n", cmdv[0], how);
	return 0;
}

/* What the command line gives to check; 0, or the exit status (said). */
static int budget_args(cli *c, const budget *b, int argc, char **argv, const char **path)
{
	if (c->ro.tsv || (c->junit && !c->snap_out) || (c->snap_out && !c->junit)) {
		fprintf(stderr, c->ro.tsv ? "mprof-tui: --budget reports as text, or --format=junit -o FILE\n"
			: c->junit ? "mprof-tui: --format=junit needs -o FILE\n"
				   : "mprof-tui: -o FILE goes with --format=junit (the budget's JUnit report)\n");
		return EXIT_BAD;
	}
	if (!c->dashdash && !c->diff_base && c->nargs == 2)
		c->diff_base = argv[optind++];
	if (!c->dashdash && optind != argc - 1) {
		fprintf(stderr, "mprof-tui: --budget checks one profile FILE, --diff BASE FILE, or -- COMMAND\n");
		cmd_usage_hint();
		return EXIT_BAD;
	}
	*path = argv[optind];
	const budget_term *g = budget_find(b, BUDGET_GROWTH), *pk = budget_find(b, BUDGET_PEAK);
	if (g && !c->diff_base) {
		fprintf(stderr, "mprof-tui: --budget: '%s': growth compares two profiles (--diff BASE FILE)\n", g->text);
		return EXIT_BAD;
	}
	if (pk && c->diff_base) {
		fprintf(stderr, "mprof-tui: --budget: '%s': a peak is one profile's, not a diff's (no --diff)\n", pk->text);
		return EXIT_BAD;
	}
	return 0;
}

static int budget_run(cli *c, int argc, char **argv)
{
	budget b;
	char msg[640];
	if (budget_parse(&b, c->budget, msg, sizeof(msg))) {
		fprintf(stderr, "mprof-tui: %s\n", msg);
		return EXIT_BAD;
	}
	const char *path = NULL;
	const char *tmp = getenv("TMPDIR");
	char dir[4096] = "", dump[4200];
	int failed = 0;
	opened f = { 0 }, fb = { 0 };
	budget_result *r = NULL;
	int rc = budget_args(c, &b, argc, argv, &path);
	if (!rc && c->dashdash) {
		snprintf(dir, sizeof(dir), "%s/mprof-budget-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		rc = budget_launch(argv + optind, dir, dump, sizeof(dump), &failed);
		path = dump;
	}
	const char *name = c->dashdash ? argv[optind] : path;   /* what the messages name */
	if (rc || (rc = budget_open(&f, c, path, c->diff_base, budget_find(&b, BUDGET_PEAK), name)))
		goto out;
	for (size_t i = 0; i < b.n; i++)
		if (b.t[i].percent >= 0) {   /* growth in %: BASE's own figures */
			if ((rc = budget_open(&fb, c, c->diff_base, NULL, NULL, c->diff_base)))
				goto out;
			break;
		}
	size_t nstacks = !(c->opts & CMD_BIT(OPT_LIMIT)) ? BUDGET_STACKS
			 : c->ro.limit > 0 && c->ro.limit < BUDGET_STACKS_MAX ? (size_t)c->ro.limit
									       : BUDGET_STACKS_MAX;
	if (!(r = calloc(b.n, sizeof(*r))) || budget_eval(&b, &f, &fb, nstacks, r)) {
		fprintf(stderr, "mprof-tui: %s: out of memory\n", name);
		rc = EXIT_BAD;
		goto out;
	}
	prof_error err;
	if (c->junit && budget_junit_save(c->snap_out, &b, r, f.p, &f.m, name, &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		rc = EXIT_BAD;
	}
	int broken = 0;
	for (size_t i = 0; i < b.n; i++)
		broken |= r[i].broken;
	if (cmd_stdout_done(budget_report(stdout, &b, r, f.p, &f.m)) && !rc)
		rc = EXIT_BAD;
	if (!rc)
		rc = broken || failed ? 1 : 0;
out:
	free(r);
	if (f.p)
		opened_free(&f, 1);
	if (fb.p)
		opened_free(&fb, 1);
	if (dir[0])
		dump_dir_remove(dir);
	budget_free(&b);
	return rc;
}

static int budget_claims(const cli *c)
{
	return c->budget != NULL;
}

const cmd cmd_budget = {
	.name = "--budget",
	.takes = CMD_BIT(OPT_BUDGET) | CMD_BIT(OPT_DIFF) | CMD_BIT(OPT_FORMAT) | CMD_BIT(OPT_OUTPUT) |
		 CMD_BIT(OPT_LIMIT) | CMD_BIT(OPT_IGNORE) | CMD_SYMS,
	.help = budget_help,
	.claims = budget_claims,
	.run = budget_run,
};
