/* main.c - mprof-tui's entry: options, then the batch report or the UI. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/agg.h"
#include "core/diff.h"
#include "core/export.h"
#include "core/flamegraph.h"
#include "core/graph.h"
#include "core/load.h"
#include "core/report.h"
#include "attach/inject/inject.h"
#include "tui/allocs_ui.h"
#include "tui/inject_ui.h"
#include "attach/live/launch.h"
#include "attach/live/listing.h"
#include "attach/proc/procfs.h"
#include "attach/serve/serve.h"
#include "attach/live/sample_ctl.h"
#include "attach/live/snapshot.h"
#include "attach/live/window.h"
#include "symbols/sym.h"
#include "tui/missing_syms.h"
#include "tui/tui.h"
#include "tui/rec.h"
#include "tui/write_ui.h"
#include "attach/live/record_attach.h"
#include "attach/faults/faults.h"

#define EXIT_BAD 2

static const char usage_text[] =
	"usage: mprof-tui [options] FILE\n"
	"       mprof-tui [options] BASE NEW      (or --base BASE NEW; d: NEW - BASE)\n"
	"       mprof-tui --top=flat|cum [--alloc] [--objects] [-n N] [--format=text|tsv] FILE\n"
	"       mprof-tui [--diff BASE] [--export=FMT -o OUT] [--flamegraph=SVG]\n"
	"                 [--callgraph=FILE.dot|svg|png|pdf] FILE\n"
	"       mprof-tui --info FILE|DIR\n"
	"       mprof-tui [--at TIME | --diff-at T1 T2 | --leaks T1 T2 | --temporary] DIR\n"
	"       mprof-tui --record DIR --attach PID\n"
	"       mprof-tui --snapshot PID -o FILE\n"
	"       mprof-tui --serve [HOST:]PORT\n"
	"       mprof-tui --window SECONDS [--keep] [-o FILE] [--export=FMT -o OUT] PID\n"
	"       mprof-tui --attach [PID] [--interval MS]\n"
	"       mprof-tui --info --attach PID\n"
	"       mprof-tui --inject PID | --detach PID\n"
	"       mprof-tui --sample-rate=BYTES|all|off PID\n"
	"       mprof-tui [--interval MS] -- COMMAND [ARGS...]\n"
	"       mprof-tui --faults -o FILE -- COMMAND [ARGS...]\n"
	"       mprof-tui --faults PID [--duration SECONDS] -o FILE\n"
	"       mprof-tui --faults --attach PID\n"
	"\n"
	"Reads a heap profile and reports where memory is. Formats, detected from\n"
	"the content: skynet-mprof .pro (v1), mprof native, pprof protobuf, legacy\n"
	"text heap profiles (gperftools, tcmalloc, Go: every kind pprof reads),\n"
	"jemalloc heap_v2, folded stacks.\n"
	"\n"
	"Batch options (no terminal needed):\n"
	"  --top=flat|cum       rank functions by flat (leaf) or cumulative bytes,\n"
	"                       as skynet-mprof's -top does\n"
	"  --alloc              all allocations (alloc space) instead of in use\n"
	"  --inuse              in-use space (the default)\n"
	"  --objects            rank by object counts instead of bytes\n"
	"  -n, --limit=N        print at most N rows\n"
	"  --format=text|tsv    text (the default, skynet-mprof's columns) or tab-\n"
	"                       separated: flat_bytes flat_objects cum_bytes\n"
	"                       cum_objects name, raw integers, one header line\n"
	"  --granularity=G      function (the default), line, address or module;\n"
	"                       inlined functions count as their own frames\n"
	"  --info               list function names, then every sample with its\n"
	"                       stack, root first (skynet-mprof's -info)\n"
	"\n"
	"Symbols (addresses to function, file:line and inline chain):\n"
	"  --no-symbols         keep the recorded names, as skynet-mprof prints\n"
	"                       them (the default granularity becomes address)\n"
	"  --root=DIR           look for recorded module paths under DIR too\n"
	"                       (a copy of the target's file system); repeatable\n"
	"  --search-path=DIR    look for modules by file name in DIR; repeatable\n"
	"  --source-dir=DIR     find source files under DIR; repeatable\n"
	"\n"
	"Two runs, and other tools' formats:\n"
	"  --base BASE          with NEW: the UI opens NEW and d toggles the diff\n"
	"                       NEW - BASE on every screen (mprof-tui BASE NEW\n"
	"                       does the same; in batch both mean --diff BASE)\n"
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

	"\n"
	"Live (a process running under libmprof.so):\n"
	"  --attach PID         follow it: the screens of a file, refreshed, a\n"
	"                       timeline (heap in use, RSS); m snapshot, d diff\n"
	"                       two snapshots (growth), p pause, w/W write,\n"
	"                       z/Z zoom the timeline, = fit the whole run\n"
	"  --info --attach PID  how the hook is in it and which allocators it found\n"
	"                       (interposed, GOT slots, entry-patched, refused)\n"
	"  --attach             list the processes that can be attached (and\n"
	"                       remove the segments of those that are gone)\n"
	"  -- COMMAND ARGS      start COMMAND with the hook preloaded and follow\n"
	"                       it; its output goes to a file named on screen\n"
	"  --interval MS        refresh period (default 500)\n"
	"  --snapshot PID -o FILE  write the current state of a process running\n"
	"                       under libmprof.so to FILE (native format)\n"
	"  --inject PID         load libmprof.so into a process started without it\n"
	"                       (ptrace, x86_64; glibc, jemalloc, tcmalloc); names\n"
	"                       its allocator; recording starts then, earlier\n"
	"                       history is unknown. --attach PID offers it (y/n)\n"
	"  --detach PID         stop an injected hook: the program's calls go to\n"
	"                       its allocator again; its segment stays readable\n"
	"  --serve [HOST:]PORT  serve the processes under the hook that this user\n"
	"                       owns as Go's net/http/pprof does, for go tool pprof,\n"
	"                       Parca and Pyroscope: /debug/pprof/ lists them,\n"
	"                       /debug/pprof/heap?pid=PID is one's heap (gzipped\n"
	"                       pprof; &seconds=N its growth over N seconds;\n"
	"                       &debug=1 text), allocs?pid=PID the same with\n"
	"                       alloc_space first. PORT alone listens on 127.0.0.1;\n"
	"                       0.0.0.0:PORT or [::]:PORT on every address.\n"
	"                       Read-only; runs until SIGINT or SIGTERM\n"
	"  --window SECONDS PID what PID allocates in the next SECONDS (alloc) and\n"
	"                       what of it is still alive at the end (in use);\n"
	"                       older blocks count nowhere. Loads the hook if PID\n"
	"                       has none, detaches it after unless --keep. -o FILE\n"
	"                       (native); --export, --flamegraph, --top as for a\n"
	"                       file; without -o: mprof-window-PID.pro, then the UI\n"
	"                       (or --top's report when stdout is not a terminal).\n"
	"                       Ctrl-C closes the window early\n"
	"  --sample-rate=R PID  change what a hooked process records while it runs:\n"
	"                       one allocation per R bytes on average (512K, 1M;\n"
	"                       counts become unbiased estimates), all, or off\n"
	"                       (nothing new; frees of recorded blocks still count);\n"
	"                       taken within the next 64 KiB a thread allocates\n"
	"\n"
	"Recordings (MPROF_RECORD=DIR under the hook, or --record DIR --attach PID):\n"
	"  mprof-tui DIR        the UI over the whole run: Left/Right move in time,\n"
	"                       [ ] local peaks, P the peak, Home/End start/end,\n"
	"                       m mark, d diff, L alive\n"
	"                       at the end, T temporary allocations\n"
	"  --info DIR           the recording's summary and timeline\n"
	"  --at TIME            the heap at TIME (12.5s, 800ms, peak, start, end)\n"
	"  --diff-at T1 T2      the growth between two moments\n"
	"  --leaks T1 T2        allocations made between T1 and T2 alive at the end\n"
	"  --temporary          allocations freed before the next allocation\n"
	"  --record DIR --attach PID  record a hooked process until it exits\n"
	"\n"
	"Physical memory by stack (page faults; no hook needed):\n"
	"  --faults -o FILE -- COMMAND ARGS  run COMMAND, sample every page fault\n"
	"                       it takes (perf_event_open) until it exits; each page\n"
	"                       counts once, at the stack that first touched it;\n"
	"                       FILE is an ordinary profile: bytes = pages x page\n"
	"                       size, objects = pages, under the roots [minor page\n"
	"                       faults] and [major page faults]\n"
	"  --faults PID -o FILE the same on a running process and the threads it\n"
	"                       starts, until it exits or Ctrl-C\n"
	"  --duration SECONDS   with --faults PID: stop after SECONDS\n"
	"  --faults --attach PID  the pages view, live; v switches to the heap and\n"
	"                       back when PID runs under the hook, w writes\n"
	"  -h, --help           this text\n"
	"\n"
	"Exit status: 0 on success, 2 on bad input or usage, 1 on other errors.\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

/* After a usage error: the first usage line and where the rest is. */
static void usage_hint(void)
{
	fprintf(stderr, "%.*s", (int)strcspn(usage_text, "\n") + 1, usage_text);
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

/* What the command line asked for; main's mode functions read it. */
typedef struct cli {
	report_opts ro;
	int top, info;
	const char *gran;                /* NULL: function, or address with --no-symbols */
	sym_opts so;                     /* with the --root, --search-path, --source-dir lists */
	const char *rec_dir;             /* --record DIR */
	rec_opts rq;                     /* a recording DIR: --at, --diff-at, --leaks, --temporary */
	int attach;
	long interval;
	int export_fmt;
	const char *diff_base, *flame_out, *graph_out, *base_path;
	const char *snap_pid, *snap_out;
	const char *serve_addr;          /* --serve ADDR */
	const char *inject_pid, *detach_pid;
	int faults;                      /* --faults */
	double duration;                 /* --duration SECONDS, 0: until it exits */
	const char *sample_rate;         /* --sample-rate=R */
	int batch;                       /* a report, not the UI */
	double window_s;                 /* --window SECONDS; 0 none */
	int keep;                        /* --keep: a hook loaded for the window stays on */
	prof *given;                     /* a profile already in memory (the window's):
					  * opened_load takes it instead of reading path */
} cli;

/* Parses argv into c; returns -1 to go on, else the exit status. */
static int cli_parse(cli *c, int argc, char **argv)
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
	enum { O_TOP = 256, O_ALLOC, O_INUSE, O_OBJECTS, O_FORMAT, O_GRAN, O_INFO,
	       O_NOSYM, O_ROOT, O_SPATH, O_SDIR, O_SNAPSHOT, O_EXPORT, O_DIFF, O_FLAME, O_GRAPH,
	       O_ATTACH, O_INTERVAL, O_BASE, O_INJECT, O_DETACH,
	       O_RECORD, O_AT, O_DIFF_AT, O_LEAKS, O_TEMP, O_SERVE, O_FAULTS, O_DURATION, O_WINDOW, O_KEEP,
	       O_SAMPLE_RATE };
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
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int o;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":n:o:h", opts, NULL)) != -1) {
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
		case O_WINDOW:
			if ((c->window_s = window_seconds_arg(optarg)) < 0) {
				fprintf(stderr, "mprof-tui: --window takes seconds (above 0, at most 604800), not '%s'\n",
					optarg);
				return EXIT_BAD;
			}
			break;
		case O_KEEP: c->keep = 1; break;
		case O_SAMPLE_RATE: c->sample_rate = optarg; break;
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
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "mprof-tui: option '%s' needs a value\n", argv[optind - 1]);
			usage_hint();
			return EXIT_BAD;
		default:
			fprintf(stderr, "mprof-tui: unknown option '%s'\n", argv[optind - 1]);
			usage_hint();
			return EXIT_BAD;
		}
	}
	return -1;
}

/* The granularity asked for, as a sym_gran; -1 (said) when unknown. */
static int cli_gran(const cli *c)
{
	const char *g = c->gran ? c->gran : c->so.no_symbols ? "address" : "function";
	int r = sym_gran_parse(g);
	if (r < 0)
		fprintf(stderr, "mprof-tui: unknown granularity '%s' (function, line, address, module)\n", g);
	return r;
}

/* --attach PID: follow a hooked process (or inject the hook), or with
 * --record DIR record it headless until it exits. */
static int main_attach(const cli *c, const char *pid_arg, int extra)
{
	char lib[4096];
	prof_error err;
	long pid = proc_pid_arg(pid_arg);
	if (extra || pid < 0) {
		fprintf(stderr, "mprof-tui: --attach takes one process id, not '%s'\n", pid_arg);
		return EXIT_BAD;
	}
	if (c->rec_dir)
		return record_attach((int)pid, c->rec_dir, launch_find_lib(lib, sizeof(lib), &err) ? NULL : lib, stderr);
	int g = cli_gran(c);
	if (g < 0)
		return EXIT_BAD;
	tui_live_opts lo = { .pid = (int)pid, .interval_ms = (int)c->interval, .so = c->so, .gran = g,
			     .alloc = c->ro.alloc, .objects = c->ro.objects };
	return tui_live(&lo);
}

/* --faults: -o FILE -- COMMAND, PID -o FILE [--duration S], or the
 * screens with --attach PID. */
static int main_faults(const cli *c, int argc, char **argv, int dashdash)
{
	if (c->attach) {
		if (dashdash || optind != argc - 1) {
			fprintf(stderr, "mprof-tui: --faults --attach takes one process id\n");
			return EXIT_BAD;
		}
		long pid = proc_pid_arg(argv[optind]);
		int g = cli_gran(c);
		if (pid < 0) {
			fprintf(stderr, "mprof-tui: --attach takes one process id, not '%s'\n", argv[optind]);
			return EXIT_BAD;
		}
		if (g < 0)
			return EXIT_BAD;
		tui_live_opts lo = { .pid = (int)pid, .interval_ms = (int)c->interval, .so = c->so, .gran = g,
				     .alloc = c->ro.alloc, .objects = c->ro.objects };
		return tui_faults(&lo);
	}
	if (dashdash)
		return faults_main(NULL, argv + optind, 0, c->snap_out, stderr);
	if (optind != argc - 1) {
		fprintf(stderr, optind == argc ? "mprof-tui: --faults needs a process id or -- COMMAND\n"
					       : "mprof-tui: --faults takes one process id\n");
		usage_hint();
		return EXIT_BAD;
	}
	return faults_main(argv[optind], NULL, c->duration, c->snap_out, stderr);
}

/* -- COMMAND ARGS: start it with the hook preloaded and follow it. */
static int main_launch(const cli *c, char *const *cmd)
{
	int g = cli_gran(c);
	if (g < 0)
		return EXIT_BAD;
	tui_live_opts lo = { .argv = cmd, .interval_ms = (int)c->interval, .so = c->so, .gran = g,
			     .alloc = c->ro.alloc, .objects = c->ro.objects };
	return tui_live(&lo);
}

/* mprof-tui DIR: a recording's batch report or its UI (rec_main.c). */
static int main_recording(const cli *c, const char *dir, int g)
{
	rec_opts rq = c->rq;
	rq.dir = dir;
	rq.info = c->info;
	rq.batch = c->batch || rq.at || rq.diff_from || rq.leak_from || rq.temporary;
	rq.ro = c->ro;
	rq.gran = g;
	rq.so = c->so;
	return rec_main(&rq);
}

/* A profile with its symbols, node map and aggregate at one granularity. */
typedef struct opened {
	prof *p;                 /* owned; NEW - BASE with --diff BASE */
	sym *sy;                 /* owned; NULL for raw address rows */
	prof_nodemap m;
	agg a;
	sym_opts so;
} opened;

/* Loads path (minus --diff BASE); 0, else the exit status (said). */
static int opened_load(opened *f, const cli *c, const char *path)
{
	prof_error err;
	memset(f, 0, sizeof(*f));
	if (c->given)
		f->p = c->given;
	else if (!(f->p = prof_load(path, &err))) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return EXIT_BAD;
	}
	if (c->diff_base) {   /* --diff BASE NEW: from here on p holds NEW - BASE */
		sym_opts bso = c->so, nso = c->so;
		bso.profile_path = c->diff_base;
		nso.profile_path = path;
		diff_stats ds;
		prof *b = prof_load(c->diff_base, &err);
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

/* Symbols, map and aggregate over f->p at granularity g; 0, or 1 (said). */
static int opened_build(opened *f, const cli *c, const char *path, int g)
{
	f->so = c->so;
	f->so.profile_path = path;
	/* Raw address rows need no symbols: skynet-mprof's own report. */
	int raw = f->so.no_symbols && g == SYM_GRAN_ADDRESS;
	f->sy = raw ? NULL : sym_open(f->p, &f->so);
	if ((!f->sy && !raw) || sym_nodemap_agg(&f->m, &f->a, f->p, f->sy, (enum sym_gran)g)) {
		fprintf(stderr, "mprof-tui: %s: out of memory\n", path);
		sym_close(f->sy);
		f->sy = NULL;
		return 1;
	}
	return 0;
}

/* Frees what opened_build made (built) and the profile. */
static void opened_free(opened *f, int built)
{
	if (built) {
		agg_free(&f->a);
		nodemap_free(&f->m);
		sym_close(f->sy);
	}
	prof_free(f->p);
}

/* The report went to stdout: a failed write is an error. */
static int stdout_done(int rc)
{
	if (fflush(stdout) && !rc) {
		fprintf(stderr, "mprof-tui: writing the report: %s\n", strerror(errno));
		rc = 1;
	}
	return rc;
}

/* --top, --info, --export, --flamegraph, --callgraph, or no terminal: reports only. */
static int main_batch(const cli *c, const char *path, int g)
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
		rc = report_info(stdout, f.p) ? 1 : 0;
		opened_free(&f, 0);
		return stdout_done(rc);
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
	if (f.p->meta.scale > 1 && f.p->meta.scale < 1.8e19) {   /* on stderr: stdout stays the reference's columns */
		char rate[32];
		report_rate(rate, sizeof(rate), (uint64_t)f.p->meta.scale);
		fprintf(stderr, "mprof-tui: note: %s: estimates from sampling (1 allocation per %s on average)\n", path,
			rate);
	}
	if (!rc && (c->top || (c->export_fmt < 0 && !c->flame_out && !c->graph_out)))   /* else the files were the job */
		rc = report_top(stdout, &f.a, &f.m, &ro) ? 1 : 0;
	opened_free(&f, 1);
	return stdout_done(rc);
}

/* The UI over path; with base_path, BASE too (read after NEW) for d, the
 * diff already on when diff_open. */
static int ui_over(const cli *c, const char *base_path, const char *path, int g, int diff_open)
{
	opened f;
	int rc = opened_load(&f, c, path);
	if (rc)
		return rc;
	prof_error err;
	prof *base = NULL;
	if (base_path && !(base = prof_load(base_path, &err))) {
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
			     .base_path = base_path, .diff_open = diff_open, .so = &f.so };
	rc = tui_run(&to);
	opened_free(&f, 1);
	prof_free(base);
	return stdout_done(rc);
}

/* mprof-tui FILE: the UI over one profile. */
static int main_file(const cli *c, const char *path, int g)
{
	return ui_over(c, NULL, path, g, 0);
}

/* mprof-tui BASE NEW: the UI over NEW; d toggles NEW - BASE (open from
 * the start with --diff BASE NEW). */
static int main_two_files(const cli *c, const char *base_path, const char *path, int g, int diff_open)
{
	return ui_over(c, base_path, path, g, diff_open);
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
		usage_hint();
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
		return main_recording(c, path, g);
	}
	if (c->batch)
		return main_batch(c, path, g);
	/* The UI over --diff BASE NEW is the two files with the diff open: the
	 * mode that marks NEW and GONE rows, and d shows NEW alone. */
	if (c->diff_base) {
		const char *base = c->diff_base;
		c->diff_base = NULL;   /* NEW is loaded as it is */
		return main_two_files(c, base, path, g, 1);
	}
	return c->base_path ? main_two_files(c, c->base_path, path, g, 0) : main_file(c, path, g);
}

/* Bytes for a summary line: 1.5 MiB, 12 KiB, 40 B. */
static void window_bytes(char *buf, size_t len, uint64_t b)
{
	if (b >= 1 << 20)
		snprintf(buf, len, "%.1f MiB", (double)b / (1 << 20));
	else if (b >= 1 << 10)
		snprintf(buf, len, "%.1f KiB", (double)b / (1 << 10));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)b);
}

/* What the window saw, in one line on stderr. */
static void window_say(const window_result *r, const window_opts *o, const char *file)
{
	uint64_t ao = 0, ab = 0, io = 0, ib = 0;
	for (size_t k = 0; k < r->p->samples.len; k++) {
		const mp_counts *m = &r->p->samples.v[k].c;
		ao += m->alloc_objs;
		ab += m->alloc_bytes;
		io += m->alloc_objs - m->free_objs;
		ib += m->alloc_bytes - m->free_bytes;
	}
	char a[32], i[32];
	window_bytes(a, sizeof(a), ab);
	window_bytes(i, sizeof(i), ib);
	fprintf(stderr, "mprof-tui: window of %.1f s on process %d: %llu allocations (%s) from %zu stacks, "
		"%llu of them (%s) still in use at its end%s%s\n", r->open_s, o->pid, (unsigned long long)ao, a,
		r->p->samples.len, (unsigned long long)io, i, file ? "; written to " : "", file ? file : "");
	if (r->odd)
		fprintf(stderr, "mprof-tui: note: %zu stacks freed more in the window than they allocated in it "
			"(the hook miscounted): left out\n", r->odd);
	if (r->exited)
		fprintf(stderr, "mprof-tui: process %d ended %.1f s into the %g s window: the profile holds what it "
			"allocated until then\n", o->pid, r->open_s, o->seconds);
	else if (r->signal)
		fprintf(stderr, "mprof-tui: the window was closed early by %s\n", strsignal(r->signal));
	if (r->detached)
		fprintf(stderr, "mprof-tui: detached from process %d (%d call slots restored); it runs on without "
			"the hook\n", o->pid, r->detach_slots);
	else if (r->injected && o->keep && !r->exited)
		fprintf(stderr, "mprof-tui: libmprof.so keeps recording in process %d (--keep); mprof-tui --detach "
			"%d stops it\n", o->pid, o->pid);
	if (r->note[0])
		fprintf(stderr, "mprof-tui: the window was written, but the detach failed: %s\n", r->note);
}

/* --window SECONDS PID: the window's profile to -o FILE (native), to
 * --export's OUT, --flamegraph's SVG, --top's report; with none of them,
 * to a free mprof-window-PID.pro opened in the UI (or reported when stdout
 * is not a terminal). Exit 2 also when the process ended during it. */
static int main_window(cli *c, int argc, char **argv)
{
	long pid = optind == argc - 1 ? proc_pid_arg(argv[optind]) : -1;
	if (pid < 0) {
		fprintf(stderr, optind == argc - 1 ? "mprof-tui: --window SECONDS takes a process id, not '%s'\n"
						   : "mprof-tui: --window SECONDS takes one process id\n",
			optind < argc ? argv[optind] : "");
		return EXIT_BAD;
	}
	if (c->export_fmt >= 0 && !c->snap_out) {
		fprintf(stderr, "mprof-tui: --export needs -o FILE\n");
		return EXIT_BAD;
	}
	int g = cli_gran(c);
	if (g < 0)
		return EXIT_BAD;
	char lib[4096], name[64];
	prof_error err;
	window_opts o = { .pid = (int)pid, .seconds = c->window_s, .keep = c->keep,
			  .lib = launch_find_lib(lib, sizeof(lib), &err) ? NULL : lib, .msg = stderr };
	window_result r;
	if (window_run(&o, &r, &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		if (r.note[0])
			fprintf(stderr, "mprof-tui: and the hook loaded for it could not be detached: %s\n", r.note);
		return EXIT_BAD;
	}
	/* The native file: -o FILE, or a free name when nothing else is asked. */
	const char *file = c->export_fmt < 0 ? c->snap_out : NULL;
	int report = c->top || c->info || c->export_fmt >= 0 || c->flame_out || !file;
	if (!file && c->export_fmt < 0 && !c->flame_out && !c->top) {
		snprintf(name, sizeof(name), "mprof-window-%ld", pid);
		write_ui_free_name(lib, sizeof(lib), name);
		file = lib;
	}
	if (file && prof_save(r.p, file, PROF_FMT_NATIVE, &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		prof_free(r.p);
		return 1;
	}
	window_say(&r, &o, file);
	int rc = r.note[0] ? 1 : 0;
	if (report) {
		c->given = r.p;   /* opened_load takes it */
		snprintf(name, sizeof(name), "window-%ld", pid);
		const char *path = file ? file : name;
		int rr = c->top || c->info || c->export_fmt >= 0 || c->flame_out || !isatty(STDOUT_FILENO)
				 ? main_batch(c, path, g) : main_file(c, path, g);
		rc = rr ? rr : rc;
	} else {
		prof_free(r.p);
	}
	return r.exited ? EXIT_BAD : rc;
}

int main(int argc, char **argv)
{
	static cli c;
	int rc = cli_parse(&c, argc, argv);
	if (rc >= 0)
		return rc;
	if (c.snap_pid)
		return snapshot_main(c.snap_pid, c.snap_out);
	if (c.serve_addr) {
		if (optind != argc) {
			fprintf(stderr, "mprof-tui: --serve takes no file or command ('%s')\n", argv[optind]);
			return EXIT_BAD;
		}
		return serve_main(c.serve_addr, &c.so);
	}
	atexit(listing_sweep_shm);   /* segments of processes gone since (SIGKILL) */
	if (c.window_s > 0)
		return main_window(&c, argc, argv);
	if (c.sample_rate) {
		if (optind != argc - 1) {
			fprintf(stderr, "mprof-tui: --sample-rate=R takes one process id\n");
			return EXIT_BAD;
		}
		return sample_ctl_main(c.sample_rate, argv[optind], stdout, stderr);
	}
	if (c.inject_pid || c.detach_pid)
		return inject_main(c.inject_pid ? c.inject_pid : c.detach_pid, !c.inject_pid);
	/* Live: --attach [PID], or -- COMMAND ARGS (getopt stops at "--"). */
	int dashdash = optind > 1 && !strcmp(argv[optind - 1], "--") && optind < argc;
	if (c.attach && dashdash) {
		fprintf(stderr, "mprof-tui: --attach PID or -- COMMAND, not both\n");
		return EXIT_BAD;
	}
	if (c.attach && optind == argc)   /* no pid: the list */
		return listing_main();
	if (c.faults)
		return main_faults(&c, argc, argv, dashdash);
	if (c.attach && c.info && optind == argc - 1)
		return allocs_info_main(argv[optind]);
	if (c.attach)
		return main_attach(&c, argv[optind], optind != argc - 1);
	if (dashdash)
		return main_launch(&c, argv + optind);
	return main_profile(&c, argc, argv);
}
