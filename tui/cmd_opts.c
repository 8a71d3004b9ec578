/* cmd_opts.c - mprof-tui's one parse of the command line: every option of
 * every mode (cmd.h's OPT_x), its value checked and stored in the cli, the
 * set of options given kept for main.c's conflict check; the names the
 * messages give them, the granularity asked for, and the hint after a
 * usage error. Which mode runs, and which options it takes, is the table's. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attach/live/window.h"
#include "core/export.h"
#include "core/filter.h"
#include "core/graph.h"
#include "remote/remote.h"
#include "tui/cmd.h"

#define O_FIRST 256

static const char *const opt_names[OPT_N] = {
	[OPT_TOP] = "--top", [OPT_ALLOC] = "--alloc", [OPT_INUSE] = "--inuse", [OPT_OBJECTS] = "--objects",
	[OPT_LIMIT] = "-n", [OPT_FORMAT] = "--format", [OPT_GRAN] = "--granularity", [OPT_INFO] = "--info",
	[OPT_NOSYM] = "--no-symbols", [OPT_ROOT] = "--root", [OPT_SPATH] = "--search-path",
	[OPT_SDIR] = "--source-dir", [OPT_SNAPSHOT] = "--snapshot", [OPT_SERVE] = "--serve",
	[OPT_EXPORT] = "--export", [OPT_DIFF] = "--diff", [OPT_BASE] = "--base", [OPT_FLAME] = "--flamegraph",
	[OPT_GRAPH] = "--callgraph", [OPT_ATTACH] = "--attach", [OPT_INJECT] = "--inject",
	[OPT_DETACH] = "--detach", [OPT_INTERVAL] = "--interval", [OPT_RECORD] = "--record", [OPT_AT] = "--at",
	[OPT_DIFF_AT] = "--diff-at", [OPT_LEAKS] = "--leaks", [OPT_TEMP] = "--temporary",
	[OPT_FAULTS] = "--faults", [OPT_DURATION] = "--duration", [OPT_WINDOW] = "--window",
	[OPT_KEEP] = "--keep", [OPT_SAMPLE_RATE] = "--sample-rate", [OPT_OUTPUT] = "-o", [OPT_HELP] = "-h",
	[OPT_PEAK] = "--peak", [OPT_BUDGET] = "--budget",
	[OPT_TIMEOUT] = "--timeout", [OPT_DUMP_ON] = "--dump-on", [OPT_IGNORE] = "--ignore",
};

const char *cli_opt_name(int opt)
{
	return opt >= 0 && opt < OPT_N ? opt_names[opt] : "?";
}

void cmd_usage_hint(void)
{
	const char *u = cmd_file.help[0].text;   /* the first usage line is the file's */
	fprintf(stderr, "%.*s", (int)strcspn(u, "\n") + 1, u);
	fputs("'mprof-tui --help' lists every option\n", stderr);
}

/* The option path lists live until exit; atexit frees them whichever way
 * main returns. */
static const char **path_lists[3];

static void path_lists_free(void)
{
	for (int i = 0; i < 3; i++)
		free(path_lists[i]);
}

static const char **path_list(size_t n)
{
	static int used;
	if (used == 0)
		atexit(path_lists_free);
	if (used == 3)
		return NULL;
	return path_lists[used++] = calloc(n + 1, sizeof(const char *));
}

int cli_parse(cli *c, int argc, char **argv)
{
	/* Room for every repeatable path option; freed at exit on every path. */
	const char **roots = path_list((size_t)argc);
	const char **spaths = path_list((size_t)argc);
	const char **sdirs = path_list((size_t)argc);
	size_t nroots = 0, nspaths = 0, nsdirs = 0;
	if (!roots || !spaths || !sdirs)
		return 1;
	c->so.roots = roots;
	c->so.search_paths = spaths;
	c->so.source_dirs = sdirs;
	c->ro.sort = REPORT_FLAT;
	c->interval = 500;
	c->export_fmt = -1;
	enum { O_TOP = O_FIRST + OPT_TOP, O_ALLOC = O_FIRST + OPT_ALLOC, O_INUSE = O_FIRST + OPT_INUSE,
	       O_OBJECTS = O_FIRST + OPT_OBJECTS, O_FORMAT = O_FIRST + OPT_FORMAT, O_GRAN = O_FIRST + OPT_GRAN,
	       O_INFO = O_FIRST + OPT_INFO, O_NOSYM = O_FIRST + OPT_NOSYM, O_ROOT = O_FIRST + OPT_ROOT,
	       O_SPATH = O_FIRST + OPT_SPATH, O_SDIR = O_FIRST + OPT_SDIR, O_SNAPSHOT = O_FIRST + OPT_SNAPSHOT,
	       O_EXPORT = O_FIRST + OPT_EXPORT, O_DIFF = O_FIRST + OPT_DIFF, O_FLAME = O_FIRST + OPT_FLAME,
	       O_GRAPH = O_FIRST + OPT_GRAPH, O_ATTACH = O_FIRST + OPT_ATTACH, O_INTERVAL = O_FIRST + OPT_INTERVAL,
	       O_BASE = O_FIRST + OPT_BASE, O_INJECT = O_FIRST + OPT_INJECT, O_DETACH = O_FIRST + OPT_DETACH,
	       O_RECORD = O_FIRST + OPT_RECORD, O_AT = O_FIRST + OPT_AT, O_DIFF_AT = O_FIRST + OPT_DIFF_AT,
	       O_LEAKS = O_FIRST + OPT_LEAKS, O_TEMP = O_FIRST + OPT_TEMP, O_SERVE = O_FIRST + OPT_SERVE,
	       O_FAULTS = O_FIRST + OPT_FAULTS, O_DURATION = O_FIRST + OPT_DURATION,
	       O_WINDOW = O_FIRST + OPT_WINDOW, O_KEEP = O_FIRST + OPT_KEEP,
	       O_SAMPLE_RATE = O_FIRST + OPT_SAMPLE_RATE, O_PEAK = O_FIRST + OPT_PEAK,
	       O_BUDGET = O_FIRST + OPT_BUDGET,
	       O_TIMEOUT = O_FIRST + OPT_TIMEOUT, O_DUMP_ON = O_FIRST + OPT_DUMP_ON,
	       O_IGNORE = O_FIRST + OPT_IGNORE };
	static const struct option opts[] = {
		{ "top", required_argument, NULL, O_TOP },
		{ "alloc", no_argument, NULL, O_ALLOC },
		{ "inuse", no_argument, NULL, O_INUSE },
		{ "objects", no_argument, NULL, O_OBJECTS },
		{ "limit", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "granularity", required_argument, NULL, O_GRAN },
		{ "info", no_argument, NULL, O_INFO },
		{ "no-symbols", no_argument, NULL, O_NOSYM },
		{ "root", required_argument, NULL, O_ROOT },
		{ "search-path", required_argument, NULL, O_SPATH },
		{ "source-dir", required_argument, NULL, O_SDIR },
		{ "snapshot", required_argument, NULL, O_SNAPSHOT },
		{ "serve", required_argument, NULL, O_SERVE },
		{ "export", required_argument, NULL, O_EXPORT },
		{ "diff", required_argument, NULL, O_DIFF },
		{ "base", required_argument, NULL, O_BASE },
		{ "flamegraph", required_argument, NULL, O_FLAME },
		{ "callgraph", required_argument, NULL, O_GRAPH },
		{ "attach", no_argument, NULL, O_ATTACH },
		{ "inject", required_argument, NULL, O_INJECT },
		{ "detach", required_argument, NULL, O_DETACH },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "record", required_argument, NULL, O_RECORD },
		{ "at", required_argument, NULL, O_AT },
		{ "diff-at", required_argument, NULL, O_DIFF_AT },
		{ "leaks", required_argument, NULL, O_LEAKS },
		{ "temporary", no_argument, NULL, O_TEMP },
		{ "faults", no_argument, NULL, O_FAULTS },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "keep", no_argument, NULL, O_KEEP },
		{ "sample-rate", required_argument, NULL, O_SAMPLE_RATE },
		{ "peak", no_argument, NULL, O_PEAK },
		{ "budget", required_argument, NULL, O_BUDGET },
		{ "dump-on", required_argument, NULL, O_DUMP_ON },
		{ "ignore", required_argument, NULL, O_IGNORE },
		{ "output", required_argument, NULL, 'o' },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int o;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":n:o:h", opts, NULL)) != -1) {
		int opt = o >= O_FIRST ? o - O_FIRST : o == 'n' ? OPT_LIMIT : o == 'o' ? OPT_OUTPUT : OPT_HELP;
		c->opts |= CMD_BIT(opt);
		switch (o) {
		case O_TOP:
			if (!strcmp(optarg, "flat"))
				c->ro.sort = REPORT_FLAT;
			else if (!strcmp(optarg, "cum"))
				c->ro.sort = REPORT_CUM;
			else {
				fprintf(stderr, "mprof-tui: --top takes flat or cum, not '%s'\n", optarg);
				return EXIT_BAD;
			}
			c->top = 1;
			break;
		case O_ALLOC: c->ro.alloc = 1; break;
		case O_INUSE: c->ro.alloc = 0; break;
		case O_OBJECTS: c->ro.objects = 1; break;
		case O_PEAK: c->peak = 1; break;
		case O_BUDGET: c->budget = optarg; break;
		case 'n': {
			char *end;
			errno = 0;
			c->ro.limit = strtol(optarg, &end, 10);
			if (errno || *end || c->ro.limit < 0) {
				fprintf(stderr, "mprof-tui: -n takes a row count, not '%s'\n", optarg);
				return EXIT_BAD;
			}
			break;
		}
		case O_FORMAT:
			if (!strcmp(optarg, "tsv"))
				c->ro.tsv = 1;
			else if (!strcmp(optarg, "text"))
				c->ro.tsv = 0;
			else if (!strcmp(optarg, "junit"))   /* --budget's report */
				c->junit = 1;
			else {
				fprintf(stderr, "mprof-tui: --format takes text or tsv, not '%s'\n", optarg);
				return EXIT_BAD;
			}
			break;
		case O_GRAN: c->gran = optarg; break;
		case O_INFO: c->info = 1; break;
		case O_SNAPSHOT: c->snap_pid = optarg; break;
		case O_SERVE: c->serve_addr = optarg; break;
		case O_EXPORT:
			if ((c->export_fmt = export_parse(optarg)) < 0) {
				fprintf(stderr, "mprof-tui: --export takes pprof, folded, skynet or native, not '%s'\n", optarg);
				return EXIT_BAD;
			}
			break;
		case O_DIFF: c->diff_base = optarg; break;
		case O_BASE: c->base_path = optarg; break;
		case O_FLAME: c->flame_out = optarg; break;
		case O_GRAPH:
			if (!graph_format(optarg)) {
				fprintf(stderr, "mprof-tui: --callgraph writes .dot, .svg, .png or .pdf, not '%s'\n", optarg);
				return EXIT_BAD;
			}
			c->graph_out = optarg;
			break;
		case O_ATTACH: c->attach = 1; break;
		case O_INJECT: c->inject_pid = optarg; break;
		case O_DETACH: c->detach_pid = optarg; break;
		case O_RECORD: c->rec_dir = optarg; break;
		case O_AT: c->rq.at = optarg; break;
		case O_DIFF_AT: case O_LEAKS:   /* two moments: T1 is the value, T2 the next word */
			if (optind >= argc) {
				fprintf(stderr, "mprof-tui: %s takes two moments (T1 T2)\n", argv[optind - 1]);
				return EXIT_BAD;
			}
			*(o == O_DIFF_AT ? &c->rq.diff_from : &c->rq.leak_from) = optarg;
			*(o == O_DIFF_AT ? &c->rq.diff_to : &c->rq.leak_to) = argv[optind++];
			break;
		case O_TEMP: c->rq.temporary = 1; break;
		case O_FAULTS: c->faults = 1; break;
		case O_DURATION: {
			char *end;
			errno = 0;
			c->duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(c->duration > 0) || c->duration > 1e7) {
				fprintf(stderr, "mprof-tui: --duration takes seconds (more than 0), not '%s'\n", optarg);
				return EXIT_BAD;
			}
			break;
		}
		case O_TIMEOUT: {
			char *end;
			errno = 0;
			c->timeout_s = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(c->timeout_s > 0) || c->timeout_s > 86400) {
				fprintf(stderr, "mprof-tui: --timeout takes seconds (more than 0), not '%s'\n", optarg);
				return EXIT_BAD;
			}
			remote_set_timeout(c->timeout_s);
			break;
		}
		case O_WINDOW:
			if ((c->window_s = window_seconds_arg(optarg)) < 0) {
				fprintf(stderr, "mprof-tui: --window takes seconds (above 0, at most 604800), not '%s'\n",
					optarg);
				return EXIT_BAD;
			}
			break;
		case O_KEEP: c->keep = 1; break;
		case O_SAMPLE_RATE: c->sample_rate = optarg; break;
		case O_DUMP_ON: c->dump_on = optarg; break;
		case O_IGNORE: {
			name_filter f = { 0 };
			char why[200];
			if (!*optarg || filter_set(&f, optarg, why, sizeof(why))) {
				fprintf(stderr, "mprof-tui: --ignore takes a regex of function names%s%s\n",
					*optarg ? ": " : ", not ''", *optarg ? why : "");
				return EXIT_BAD;
			}
			filter_clear(&f);
			c->ignore = optarg;
			break;
		}
		case O_INTERVAL: {
			char *end;
			errno = 0;
			c->interval = strtol(optarg, &end, 10);
			if (errno || *end || c->interval < 10 || c->interval > 3600000) {
				fprintf(stderr, "mprof-tui: --interval takes milliseconds (10 or more), not '%s'\n", optarg);
				return EXIT_BAD;
			}
			break;
		}
		case 'o': c->snap_out = optarg; break;
		case O_NOSYM: c->so.no_symbols = 1; break;
		case O_ROOT: roots[nroots++] = optarg; break;
		case O_SPATH: spaths[nspaths++] = optarg; break;
		case O_SDIR: sdirs[nsdirs++] = optarg; break;
		case 'h':
			return CLI_HELP;
		case ':':
			fprintf(stderr, "mprof-tui: option '%s' needs a value\n", argv[optind - 1]);
			cmd_usage_hint();
			return EXIT_BAD;
		default:
			fprintf(stderr, "mprof-tui: unknown option '%s'\n", argv[optind - 1]);
			cmd_usage_hint();
			return EXIT_BAD;
		}
	}
	if (c->junit && !c->budget) {
		fprintf(stderr, "mprof-tui: --format=junit is --budget's report; give --budget TERMS\n");
		return EXIT_BAD;
	}
	/* Live: -- COMMAND ARGS (getopt stops at "--"). */
	c->dashdash = optind > 1 && !strcmp(argv[optind - 1], "--") && optind < argc;
	c->nargs = argc - optind;
	return -1;
}

int cli_gran(const cli *c)
{
	const char *g = c->gran ? c->gran : c->so.no_symbols ? "address" : "function";
	int r = sym_gran_parse(g);
	if (r < 0)
		fprintf(stderr, "mprof-tui: unknown granularity '%s' (function, line, address, module)\n", g);
	return r;
}

