/* cmd_file.c - mprof-tui FILE and mprof-tui BASE NEW: the profile entry of
 * the command table. It takes the positional files, then picks the mode:
 * a recording directory (rec_main.c), the batch report (cmd_report.c) when
 * a batch option is given or stdout is not a terminal, else the UI over
 * one profile or over NEW with BASE kept for d (the diff open from the
 * start with --diff BASE NEW). */
#include <stdio.h>
#include <unistd.h>

#include "core/load.h"
#include "remote/remote.h"
#include "tui/cmd.h"
#include "tui/rec.h"
#include "tui/tui.h"

static const cmd_text file_help[] = {
	{ SLOT_USE_FILE,
	  "usage: mprof-tui [options] FILE\n"
	  "       mprof-tui [options] BASE NEW      (or --base BASE NEW; d: NEW - BASE)\n"
	  "       (FILE, BASE, NEW: a path, or an http:// or https:// URL such as a Go\n"
	  "       service's http://HOST:PORT/debug/pprof/heap, fetched with libcurl;\n"
	  "       https+insecure:// skips the certificate check, SSL_CERT_FILE names a CA)\n" },
	{ SLOT_TWO_RUNS,
	  "Two runs, and other tools' formats:\n"
	  "  --base BASE          with NEW: the UI opens NEW and d toggles the diff\n"
	  "                       NEW - BASE on every screen (mprof-tui BASE NEW\n"
	  "                       does the same; in batch both mean --diff BASE)\n"
	  "  --timeout SECONDS    the whole fetch of a URL at most (default 30;\n"
	  "                       ?seconds=N of a delta profile adds N)\n" },
	{ 0, NULL },
};

/* The UI over path; with base_path, BASE too (read after NEW) for d, the
 * diff already on when diff_open. */
int cmd_file_ui(const cli *c, const char *base_path, const char *path, int g, int diff_open)
{
	opened f;
	int rc = opened_load(&f, c, path);
	if (rc)
		return rc;
	prof_error err;
	prof *base = NULL;
	if (base_path && !(base = remote_load(base_path, &err))) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		opened_free(&f, 0);
		return EXIT_BAD;
	}
	if (opened_build(&f, c, path, g)) {
		opened_free(&f, 0);
		prof_free(base);
		return 1;
	}
	tui_file_opts to = { .p = f.p, .m = &f.m, .a = &f.a, .path = path, .sy = f.sy, .gran = g,
			     .alloc = c->ro.alloc, .objects = c->ro.objects, .base = base,
			     .base_path = base_path, .diff_open = diff_open, .so = &f.so, .status = c->ui_status };
	rc = tui_run(&to);
	opened_free(&f, 1);
	prof_free(base);
	return cmd_stdout_done(rc);
}

/* mprof-tui FILE: the UI over one profile. */
static int main_file(const cli *c, const char *path, int g)
{
	return cmd_file_ui(c, NULL, path, g, 0);
}

/* mprof-tui BASE NEW: the UI over NEW; d toggles NEW - BASE (open from
 * the start with --diff BASE NEW). */
static int main_two_files(const cli *c, const char *base_path, const char *path, int g, int diff_open)
{
	return cmd_file_ui(c, base_path, path, g, diff_open);
}

/* mprof-tui FILE, BASE NEW, a recording DIR, or a batch report. */
static int main_profile(cli *c, int argc, char **argv)
{
	/* BASE NEW: two files; the UI keeps both (d toggles), batch diffs. */
	if (!c->base_path && !c->diff_base && optind == argc - 2)
		c->base_path = argv[optind++];
	c->batch = c->top || c->info || c->export_fmt >= 0 || c->flame_out || c->graph_out || !isatty(STDOUT_FILENO);
	if (c->base_path && (c->batch || c->diff_base)) {
		if (!c->diff_base)
			c->diff_base = c->base_path;
		c->base_path = NULL;
	}
	if (optind != argc - 1) {
		fprintf(stderr, optind >= argc ? "mprof-tui: no profile file given\n"
					       : "mprof-tui: one profile file, or two (BASE NEW)\n");
		cmd_usage_hint();
		return EXIT_BAD;
	}
	int g = cli_gran(c);
	if (g < 0)
		return EXIT_BAD;
	const char *path = argv[optind];
	if (rec_is_recording(path) || c->rq.at || c->rq.diff_from || c->rq.leak_from || c->rq.temporary) {
		if (c->graph_out || c->flame_out) {   /* not silently the report instead */
			fprintf(stderr, "mprof-tui: %s: --callgraph and --flamegraph take a profile file, not a recording\n",
				path);
			return EXIT_BAD;
		}
		return cmd_recording(c, path, g);
	}
	if (c->batch)
		return cmd_batch(c, path, g);
	/* The UI over --diff BASE NEW is the two files with the diff open: the
	 * mode that marks NEW and GONE rows, and d shows NEW alone. */
	if (c->diff_base) {
		const char *base = c->diff_base;
		c->diff_base = NULL;   /* NEW is loaded as it is */
		return main_two_files(c, base, path, g, 1);
	}
	return c->base_path ? main_two_files(c, c->base_path, path, g, 0) : main_file(c, path, g);
}

static const cmd *const file_also[] = { &cmd_report, &cmd_rec, NULL };

const cmd cmd_file = {
	.name = "a profile file",
	.takes = CMD_BIT(OPT_BASE) | CMD_BIT(OPT_DIFF) | CMD_BIT(OPT_PEAK) | CMD_BIT(OPT_TIMEOUT) | CMD_BIT(OPT_IGNORE) |
		 CMD_METRIC | CMD_SYMS,
	.help = file_help,
	.run = main_profile,
	.also = file_also,
};
