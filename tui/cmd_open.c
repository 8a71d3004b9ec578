/* cmd_open.c - a profile opened for mprof-tui's file modes: loaded (or the
 * window's, already in memory), made NEW - BASE with --diff BASE, then its
 * symbols, node map and aggregate at one granularity; what the UI
 * (cmd_file.c) and the batch report (cmd_report.c) both start from, and
 * the check that a report written to stdout reached it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/diff.h"
#include "core/filter.h"
#include "core/load.h"
#include "remote/remote.h"
#include "tui/cmd.h"

/* --peak: p's counters at the peak; -1 (said) when p kept none. */
static int cmd_peak_select(prof *p, const char *path)
{
	if (!prof_select_peak(p))
		return 0;
	fprintf(stderr, "mprof-tui: %s: no peak in this profile (--peak needs a dump of libmprof.so that kept one)\n",
		path);
	return -1;
}

/* Loads path (minus --diff BASE); 0, else the exit status (said). */
int opened_load(opened *f, const cli *c, const char *path)
{
	prof_error err;
	memset(f, 0, sizeof(*f));
	if (c->given)
		f->p = c->given;
	else if (!(f->p = remote_load(path, &err))) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return EXIT_BAD;
	}
	if (c->peak && cmd_peak_select(f->p, path)) {
		prof_free(f->p);   /* ours, given or loaded */
		f->p = NULL;
		return EXIT_BAD;
	}
	if (c->diff_base) {   /* --diff BASE NEW: from here on p holds NEW - BASE */
		sym_opts bso = c->so, nso = c->so;
		bso.profile_path = remote_is_url(c->diff_base) ? NULL : c->diff_base;
		nso.profile_path = remote_is_url(path) ? NULL : path;
		diff_stats ds;
		prof *b = remote_load(c->diff_base, &err);
		if (b && c->peak && cmd_peak_select(b, c->diff_base)) {
			prof_free(b);
			prof_free(f->p);
			f->p = NULL;
			return EXIT_BAD;
		}
		prof *d = b ? sym_diff_build(b, &bso, f->p, NULL, &nso, &ds, &err) : NULL;
		int st = b ? 1 : EXIT_BAD;
		prof_free(b);
		prof_free(f->p);
		f->p = d;
		if (!d) {
			fprintf(stderr, "mprof-tui: %s\n", err.msg);
			return st;
		}
		char note[512];
		if (diff_stats_say(&ds, note, sizeof(note)))
			fprintf(stderr, "mprof-tui: %s\n", note);
	}
	return 0;
}

/* --ignore REGEX (checked by the option's parse): the stacks through a
 * matching name of the granularity left out, the aggregate made again;
 * 0, or 1 (said; the map, aggregate and symbols freed, the profile left
 * to opened_free(f, 0) as after any failed opened_build). */
static int opened_ignore(opened *f, const cli *c, const char *path)
{
	name_filter ign = { 0 };
	long n = filter_set(&ign, c->ignore, NULL, 0) ? -1 : filter_ignore(f->p, &f->m, &ign);
	filter_clear(&ign);
	agg_free(&f->a);
	if (n < 0 || agg_compute(&f->a, f->p, &f->m)) {
		fprintf(stderr, "mprof-tui: %s: out of memory\n", path);
		agg_free(&f->a);
		nodemap_free(&f->m);
		sym_close(f->sy);
		f->sy = NULL;
		return 1;
	}
	if (c->batch || c->budget)   /* the UI has no stderr to say it on */
		fprintf(stderr, "mprof-tui: --ignore '%s': %ld stack%s left out\n", c->ignore, n, n == 1 ? "" : "s");
	return 0;
}

/* Symbols, map and aggregate over f->p at granularity g; 0, or 1 (said). */
int opened_build(opened *f, const cli *c, const char *path, int g)
{
	f->so = c->so;
	f->so.profile_path = remote_is_url(path) ? NULL : path;   /* a URL's "folder" holds no binaries */
	/* Raw address rows need no symbols: skynet-mprof's own report. */
	int raw = f->so.no_symbols && g == SYM_GRAN_ADDRESS;
	f->sy = raw ? NULL : sym_open(f->p, &f->so);
	if ((!f->sy && !raw) || sym_nodemap_agg(&f->m, &f->a, f->p, f->sy, (enum sym_gran)g)) {
		fprintf(stderr, "mprof-tui: %s: out of memory\n", path);
		sym_close(f->sy);
		f->sy = NULL;
		return 1;
	}
	return c->ignore ? opened_ignore(f, c, path) : 0;
}

/* Frees what opened_build made (built) and the profile. */
void opened_free(opened *f, int built)
{
	if (built) {
		agg_free(&f->a);
		nodemap_free(&f->m);
		sym_close(f->sy);
	}
	prof_free(f->p);
}

/* The report went to stdout: a failed write is an error. */
int cmd_stdout_done(int rc)
{
	if (fflush(stdout) && !rc) {
		fprintf(stderr, "mprof-tui: writing the report: %s\n", strerror(errno));
		rc = 1;
	}
	return rc;
}

