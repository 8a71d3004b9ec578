/* cmd_report.c - mprof-tui's batch report of one profile (no terminal
 * needed): --top's ranking, --info's listing, --export, --flamegraph and
 * --callgraph files, over FILE or NEW - BASE with --diff BASE; run by the
 * profile entry (cmd_file.c) when a batch option is given or stdout is not
 * a terminal, and by --window for the window's profile. */
#include <stdio.h>
#include <string.h>

#include "core/export.h"
#include "core/flamegraph.h"
#include "core/gomem.h"
#include "core/graph.h"
#include "core/report.h"
#include "tui/missing_syms.h"
#include "tui/cmd.h"

static const cmd_text report_help[] = {
	{ SLOT_USE_REPORT,
	  "       mprof-tui --top=flat|cum [--alloc|--peak] [--objects] [-n N] [--format=text|tsv] FILE\n"
	  "       mprof-tui [--diff BASE] [--export=FMT -o OUT] [--flamegraph=SVG]\n"
	  "                 [--callgraph=FILE.dot|svg|png|pdf] FILE\n"
	  "       mprof-tui --info FILE|DIR\n" },
	{ SLOT_BATCH,
	  "Batch options (no terminal needed):\n"
	  "  --top=flat|cum       rank functions by flat (leaf) or cumulative bytes,\n"
	  "                       as skynet-mprof's -top does\n"
	  "  --alloc              all allocations (alloc space) instead of in use\n"
	  "  --inuse              in-use space (the default)\n"
	  "  --peak               what each stack held when the heap was highest\n"
	  "                       (libmprof.so's dumps keep it; exports and the UI too)\n"
	  "  --ignore=REGEX       leave out the stacks through a function matching REGEX\n"
	  "                       (pprof's -ignore; the UI, reports, exports, budgets)\n"
	  "  --objects            rank by object counts instead of bytes\n"
	  "  -n, --limit=N        print at most N rows\n"
	  "  --format=text|tsv    text (the default, skynet-mprof's columns) or tab-\n"
	  "                       separated: flat_bytes flat_objects cum_bytes\n"
	  "                       cum_objects name, raw integers, one header line\n"
	  "  --granularity=G      function (the default), line, address or module;\n"
	  "                       inlined functions count as their own frames\n"
	  "  --info               list function names, then every sample with its\n"
	  "                       stack, root first (skynet-mprof's -info)\n"
	  "\n" },
	{ SLOT_TWO_RUNS_REPORT,
	  "  --diff BASE          report NEW - BASE (FILE is NEW): rows matched by\n"
	  "                       module + offset or name across runs (ASLR-proof);\n"
	  "                       TSV columns hold signed deltas\n"
	  "  --export=FMT -o OUT  write the profile as pprof (gzipped protobuf),\n"
	  "                       folded (flamegraph.pl; weight = chosen metric),\n"
	  "                       skynet (v1) or native\n"
	  "  --flamegraph=SVG     write an interactive SVG flame graph of the chosen\n"
	  "                       metric (a diff flame graph with --diff)\n"
	  "  --callgraph=FILE     write the call graph of the chosen metric at the\n"
	  "                       granularity (pprof's -dot): boxes with flat and\n"
	  "                       cum, arrows with what flows through them; nodes\n"
	  "                       under 0.5%, edges under 0.1% of the total dropped\n"
	  "                       (said in the legend); .dot written by mprof, .svg,\n"
	  "                       .png, .pdf rendered by graphviz's dot; the diff\n"
	  "                       graph with --diff\n"
	  "\n" },
	{ 0, NULL },
};

const cmd cmd_report = {
	.name = "a profile file",
	.takes = CMD_BIT(OPT_TOP) | CMD_BIT(OPT_LIMIT) | CMD_BIT(OPT_FORMAT) | CMD_BIT(OPT_INFO) |
		 CMD_BIT(OPT_EXPORT) | CMD_BIT(OPT_DIFF) | CMD_BIT(OPT_FLAME) | CMD_BIT(OPT_GRAPH) |
		 CMD_BIT(OPT_OUTPUT) | CMD_BIT(OPT_PEAK) | CMD_BIT(OPT_IGNORE) | CMD_METRIC | CMD_SYMS,
	.help = report_help,
};

/* --top, --info, --export, --flamegraph, --callgraph, or no terminal: reports only. */
int cmd_batch(const cli *c, const char *path, int g)
{
	opened f;
	int rc = opened_load(&f, c, path);
	if (rc)
		return rc;
	if (c->export_fmt >= 0 && !c->snap_out) {
		fprintf(stderr, "mprof-tui: --export needs -o FILE\n");
		opened_free(&f, 0);
		return EXIT_BAD;
	}
	if (c->info) {
		rc = report_info(stdout, f.p) || gomem_report(stdout, f.p) ? 1 : 0;
		opened_free(&f, 0);
		return cmd_stdout_done(rc);
	}
	if (opened_build(&f, c, path, g)) {
		opened_free(&f, 0);
		return 1;
	}
	app_say_missing(f.sy, "keep their recorded names");   /* the UI says it in its status line */
	prof_error err;
	enum agg_metric metric = agg_metric_of(c->ro.alloc, c->ro.objects);
	if (c->export_fmt >= 0 &&
	    export_write(f.p, &f.m, f.sy ? &(export_lines){ sym_export_lines, f.sy } : NULL,
			 (enum export_format)c->export_fmt, metric, c->snap_out, &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		rc = 1;
	}
	if (c->flame_out && !rc &&
	    flamegraph_save(f.p, &f.m, metric, c->diff_base != NULL, path, c->flame_out, &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		rc = 1;
	}
	char title[600];
	snprintf(title, sizeof(title), "%.290s%s%.290s", path, c->diff_base ? " - " : "", c->diff_base ? c->diff_base : "");
	graph_opts go = graph_defaults(metric, c->diff_base != NULL, title);
	if (c->graph_out && !rc && graph_save(f.p, &f.m, &go, c->graph_out, NULL, &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		rc = 1;
	}
	report_opts ro = c->ro;
	ro.magnitude = c->diff_base != NULL;   /* a diff: the biggest change first */
	if (c->peak)
		ro.what = "peak";
	if (f.p->meta.scale > 1 && f.p->meta.scale < 1.8e19) {   /* on stderr: stdout stays the reference's columns */
		char rate[32];
		report_rate(rate, sizeof(rate), (uint64_t)f.p->meta.scale);
		fprintf(stderr, "mprof-tui: note: %s: estimates from sampling (1 allocation per %s on average)\n", path,
			rate);
	}
	char peak[128];
	if (c->peak && prof_peak_text(f.p, peak, sizeof(peak)))   /* which moment the counters are */
		fprintf(stderr, "mprof-tui: note: %s: the heap at its %s\n", path, peak);
	if (!rc && (c->top || (c->export_fmt < 0 && !c->flame_out && !c->graph_out)))   /* else the files were the job */
		rc = report_top(stdout, &f.a, &f.m, &ro) ? 1 : 0;
	opened_free(&f, 1);
	return cmd_stdout_done(rc);
}

