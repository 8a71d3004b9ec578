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
#include "core/load.h"
#include "core/report.h"
#include "attach/inject.h"
#include "attach/launch.h"
#include "attach/listing.h"
#include "attach/snapshot.h"
#include "symbols/sym.h"
#include "tui/tui.h"
#include "tui/rec.h"
#include "attach/record_attach.h"

#define EXIT_BAD 2

static const char usage_text[] =
	"usage: mprof-tui [options] FILE\n"
	"       mprof-tui [options] BASE NEW      (or --base BASE NEW; d: NEW - BASE)\n"
	"       mprof-tui --top=flat|cum [--alloc] [--objects] [-n N] [--format=text|tsv] FILE\n"
	"       mprof-tui --info FILE\n"
	"       mprof-tui --snapshot PID -o FILE\n"
	"       mprof-tui --attach [PID] [--interval MS]\n"
	"       mprof-tui --inject PID | --detach PID\n"
	"       mprof-tui [--interval MS] -- COMMAND [ARGS...]\n"
	"\n"
	"Reads a heap profile and reports where memory is. Formats, detected from\n"
	"the content: skynet-mprof .pro (v1), mprof native, pprof protobuf, Go and\n"
	"gperftools heap profiles, jemalloc heap_v2, folded stacks.\n"
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

	"\n"
	"Live (a process running under libmprof.so):\n"
	"  --attach PID         follow it: the screens of a file, refreshed, a\n"
	"                       timeline (heap in use, RSS); m snapshot, d diff\n"
	"                       two snapshots (growth), p pause, w/W write\n"
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
	"\n"
	"Recordings (MPROF_RECORD=DIR under the hook, or --record DIR --attach PID):\n"
	"  mprof-tui DIR        the UI over the whole run: Left/Right move in time,\n"
	"                       [ ] local peaks, P the peak, m mark, d diff, L alive\n"
	"                       at the end, T temporary allocations\n"
	"  --info DIR           the recording's summary and timeline\n"
	"  --at TIME            the heap at TIME (12.5s, 800ms, peak, start, end)\n"
	"  --diff-at T1 T2      the growth between two moments\n"
	"  --leaks T1 T2        allocations made between T1 and T2 alive at the end\n"
	"  --temporary          allocations freed before the next allocation\n"
	"  --record DIR --attach PID  record a hooked process until it exits\n"
	"  -h, --help           this text\n"
	"\n"
	"Exit status: 0 on success, 2 on bad input or usage, 1 on other errors.\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
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

int main(int argc, char **argv)
{
	report_opts ro = { .sort = REPORT_FLAT };
	int top = 0, info = 0;
	const char *gran = NULL;
	sym_opts so = { 0 };
	/* Room for every repeatable path option; freed at exit on every path. */
	const char **roots = path_list((size_t)argc);
	const char **spaths = path_list((size_t)argc);
	const char **sdirs = path_list((size_t)argc);
	size_t nroots = 0, nspaths = 0, nsdirs = 0;
	if (!roots || !spaths || !sdirs)
		return 1;
	enum { O_TOP = 256, O_ALLOC, O_INUSE, O_OBJECTS, O_FORMAT, O_GRAN, O_INFO,
	       O_NOSYM, O_ROOT, O_SPATH, O_SDIR, O_SNAPSHOT, O_EXPORT, O_DIFF, O_FLAME,
	       O_ATTACH, O_INTERVAL, O_BASE, O_INJECT, O_DETACH,
	       O_RECORD, O_AT, O_DIFF_AT, O_LEAKS, O_TEMP };
	const char *rec_dir = NULL;   /* --record DIR */
	rec_opts rq = { 0 };          /* a recording DIR: --at, --diff-at, --leaks, --temporary */
	int attach = 0;
	long interval = 500;
	int export_fmt = -1;
	const char *diff_base = NULL, *flame_out = NULL, *base_path = NULL;
	const char *snap_pid = NULL, *snap_out = NULL;
	const char *inject_pid = NULL, *detach_pid = NULL;
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
		{ "export", required_argument, NULL, O_EXPORT },
		{ "diff", required_argument, NULL, O_DIFF },
		{ "base", required_argument, NULL, O_BASE },
		{ "flamegraph", required_argument, NULL, O_FLAME },
		{ "attach", no_argument, NULL, O_ATTACH },
		{ "inject", required_argument, NULL, O_INJECT },
		{ "detach", required_argument, NULL, O_DETACH },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "record", required_argument, NULL, O_RECORD },
		{ "at", required_argument, NULL, O_AT },
		{ "diff-at", required_argument, NULL, O_DIFF_AT },
		{ "leaks", required_argument, NULL, O_LEAKS },
		{ "temporary", no_argument, NULL, O_TEMP },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:o:h", opts, NULL)) != -1) {
		switch (c) {
		case O_TOP:
			if (!strcmp(optarg, "flat"))
				ro.sort = REPORT_FLAT;
			else if (!strcmp(optarg, "cum"))
				ro.sort = REPORT_CUM;
			else {
				fprintf(stderr, "mprof-tui: --top takes flat or cum, not '%s'\n", optarg);
				return EXIT_BAD;
			}
			top = 1;
			break;
		case O_ALLOC: ro.alloc = 1; break;
		case O_INUSE: ro.alloc = 0; break;
		case O_OBJECTS: ro.objects = 1; break;
		case 'n': {
			char *end;
			errno = 0;
			ro.limit = strtol(optarg, &end, 10);
			if (errno || *end || ro.limit < 0) {
				fprintf(stderr, "mprof-tui: -n takes a row count, not '%s'\n", optarg);
				return EXIT_BAD;
			}
			break;
		}
		case O_FORMAT:
			if (!strcmp(optarg, "tsv"))
				ro.tsv = 1;
			else if (!strcmp(optarg, "text"))
				ro.tsv = 0;
			else {
				fprintf(stderr, "mprof-tui: --format takes text or tsv, not '%s'\n", optarg);
				return EXIT_BAD;
			}
			break;
		case O_GRAN: gran = optarg; break;
		case O_INFO: info = 1; break;
		case O_SNAPSHOT: snap_pid = optarg; break;
		case O_EXPORT:
			if ((export_fmt = export_parse(optarg)) < 0) {
				fprintf(stderr, "mprof-tui: --export takes pprof, folded, skynet or native, not '%s'\n", optarg);
				return EXIT_BAD;
			}
			break;
		case O_DIFF: diff_base = optarg; break;
		case O_BASE: base_path = optarg; break;
		case O_FLAME: flame_out = optarg; break;
		case O_ATTACH: attach = 1; break;
		case O_INJECT: inject_pid = optarg; break;
		case O_DETACH: detach_pid = optarg; break;
		case O_RECORD: rec_dir = optarg; break;
		case O_AT: rq.at = optarg; break;
		case O_DIFF_AT: case O_LEAKS:   /* two moments: T1 is the value, T2 the next word */
			if (optind >= argc) {
				fprintf(stderr, "mprof-tui: %s takes two moments (T1 T2)\n", argv[optind - 1]);
				return EXIT_BAD;
			}
			*(c == O_DIFF_AT ? &rq.diff_from : &rq.leak_from) = optarg;
			*(c == O_DIFF_AT ? &rq.diff_to : &rq.leak_to) = argv[optind++];
			break;
		case O_TEMP: rq.temporary = 1; break;
		case O_INTERVAL: {
			char *end;
			errno = 0;
			interval = strtol(optarg, &end, 10);
			if (errno || *end || interval < 10 || interval > 3600000) {
				fprintf(stderr, "mprof-tui: --interval takes milliseconds (10 or more), not '%s'\n", optarg);
				return EXIT_BAD;
			}
			break;
		}
		case 'o': snap_out = optarg; break;
		case O_NOSYM: so.no_symbols = 1; break;
		case O_ROOT: roots[nroots++] = optarg; break;
		case O_SPATH: spaths[nspaths++] = optarg; break;
		case O_SDIR: sdirs[nsdirs++] = optarg; break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "mprof-tui: option '%s' needs a value\n", argv[optind - 1]);
			usage(stderr);
			return EXIT_BAD;
		default:
			fprintf(stderr, "mprof-tui: unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return EXIT_BAD;
		}
	}
	if (snap_pid)
		return snapshot_main(snap_pid, snap_out);
	if (inject_pid || detach_pid)
		return inject_main(inject_pid ? inject_pid : detach_pid, !inject_pid);
	/* Live: --attach [PID], or -- COMMAND ARGS (getopt stops at "--"). */
	int dashdash = optind > 1 && !strcmp(argv[optind - 1], "--") && optind < argc;
	if (attach || dashdash) {
		if (attach && dashdash) {
			fprintf(stderr, "mprof-tui: --attach PID or -- COMMAND, not both\n");
			return EXIT_BAD;
		}
		char lib[4096];
		prof_error lerr;
		if (attach && optind == argc) {   /* no pid: the list */
			int have = launch_find_lib(lib, sizeof(lib), &lerr) == 0;
			return listing_run(stdout, stderr, "/dev/shm", have ? lib : NULL) < 0 ? EXIT_BAD : 0;
		}
		tui_live_opts lo = { .interval_ms = (int)interval, .so = so };
		lo.so.roots = roots;
		lo.so.search_paths = spaths;
		lo.so.source_dirs = sdirs;
		if (attach) {
			char *end;
			errno = 0;
			long pid = strtol(argv[optind], &end, 10);
			if (optind != argc - 1 || errno || *end || pid <= 0 || pid > INT32_MAX) {
				fprintf(stderr, "mprof-tui: --attach takes one process id, not '%s'\n", argv[optind]);
				return EXIT_BAD;
			}
			lo.pid = (int)pid;
			if (rec_dir)   /* --record DIR --attach PID: headless, until it exits */
				return record_attach(lo.pid, rec_dir, launch_find_lib(lib, sizeof(lib), &lerr) ? NULL : lib,
						     stderr);
		} else {
			lo.argv = argv + optind;
		}
		int lg = sym_gran_parse(gran ? gran : so.no_symbols ? "address" : "function");
		if (lg < 0) {
			fprintf(stderr, "mprof-tui: unknown granularity '%s' (function, line, address, module)\n", gran);
			return EXIT_BAD;
		}
		lo.gran = lg;
		lo.alloc = ro.alloc;
		lo.objects = ro.objects;
		return tui_live(&lo);
	}
	/* BASE NEW: two files; the UI keeps both (d toggles), batch diffs. */
	if (!base_path && !diff_base && optind == argc - 2)
		base_path = argv[optind++];
	int batch = top || info || export_fmt >= 0 || flame_out || !isatty(STDOUT_FILENO);
	if (base_path && (batch || diff_base)) {
		if (!diff_base)
			diff_base = base_path;
		base_path = NULL;
	}
	if (optind != argc - 1) {
		fprintf(stderr, optind >= argc ? "mprof-tui: no profile file given\n"
					       : "mprof-tui: one profile file, or two (BASE NEW)\n");
		usage(stderr);
		return EXIT_BAD;
	}
	if (!gran)
		gran = so.no_symbols ? "address" : "function";
	int g = sym_gran_parse(gran);
	if (g < 0) {
		fprintf(stderr, "mprof-tui: unknown granularity '%s' (function, line, address, module)\n", gran);
		return EXIT_BAD;
	}
	const char *path = argv[optind];
	if (rec_is_dir(path) || rq.at || rq.diff_from || rq.leak_from || rq.temporary) {
		rq.dir = path;
		rq.info = info;
		rq.batch = batch || rq.at || rq.diff_from || rq.leak_from || rq.temporary;
		rq.ro = ro;
		rq.gran = g;
		rq.so = so;
		rq.so.roots = roots;
		rq.so.search_paths = spaths;
		rq.so.source_dirs = sdirs;
		return rec_main(&rq);
	}
	prof_error err;
	prof *p = prof_load(path, &err);
	if (!p) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return EXIT_BAD;
	}
	if (diff_base) {   /* --diff BASE NEW: from here on p holds NEW - BASE */
		prof *b = prof_load(diff_base, &err), *d = b ? diff_build(b, p, &err) : NULL;
		int st = b ? 1 : EXIT_BAD;
		prof_free(b);
		prof_free(p);
		if (!d) {
			fprintf(stderr, "mprof-tui: %s\n", err.msg);
			return st;
		}
		p = d;
	}
	prof *base = NULL;
	if (base_path && !(base = prof_load(base_path, &err))) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		prof_free(p);
		return EXIT_BAD;
	}
	if ((export_fmt >= 0) && !snap_out) {
		fprintf(stderr, "mprof-tui: --export needs -o FILE\n");
		prof_free(p);
		prof_free(base);
		return EXIT_BAD;
	}
	int rc = 0;
	if (info) {
		rc = report_info(stdout, p) ? 1 : 0;
	} else {
		(void)top;
		prof_nodemap m;
		agg a;
		so.roots = roots;
		so.search_paths = spaths;
		so.source_dirs = sdirs;
		so.profile_path = path;
		/* Raw address rows need no symbols: skynet-mprof's own report. */
		sym *sy = so.no_symbols && g == SYM_GRAN_ADDRESS ? NULL : sym_open(p, &so);
		if ((!sy && !(so.no_symbols && g == SYM_GRAN_ADDRESS)) ||
		    sym_nodemap(&m, p, sy, (enum sym_gran)g) || agg_compute(&a, p, &m)) {
			fprintf(stderr, "mprof-tui: %s: out of memory\n", path);
			sym_close(sy);
			prof_free(p);
			prof_free(base);
			return 1;
		}
		const sym_missing_module *mm;
		/* The UI says it once in its status line instead. */
		size_t nmiss = sy && batch ? sym_missing(sy, &mm) : 0;
		for (size_t i = 0; i < nmiss; i++)
			fprintf(stderr, "mprof-tui: %s: %s; its frames keep their recorded names\n",
				mm[i].path, mm[i].why);
		enum agg_metric metric = agg_metric_of(ro.alloc, ro.objects);
		if (export_fmt >= 0 && export_write(p, &m, (enum export_format)export_fmt, metric, snap_out, &err)) {
			fprintf(stderr, "mprof-tui: %s\n", err.msg);
			rc = 1;
		}
		if (flame_out && !rc && flamegraph_save(p, &m, metric, diff_base != NULL, path, flame_out, &err)) {
			fprintf(stderr, "mprof-tui: %s\n", err.msg);
			rc = 1;
		}
		if (rc || ((export_fmt >= 0 || flame_out) && !top))
			;   /* the files were the job */
		/* No batch option and a terminal on stdout: the interactive UI. */
		else if (!top && isatty(STDOUT_FILENO)) {
			tui_file_opts to = { .p = p, .m = &m, .a = &a, .path = path, .sy = sy, .gran = g,
					     .alloc = ro.alloc, .objects = ro.objects, .base = base,
					     .base_path = base_path, .so = &so };
			rc = tui_run(&to);
		}
		else
			rc = report_top(stdout, &a, &m, &ro) ? 1 : 0;
		agg_free(&a);
		nodemap_free(&m);
		sym_close(sy);
	}
	if (fflush(stdout) && !rc) {
		fprintf(stderr, "mprof-tui: writing the report: %s\n", strerror(errno));
		rc = 1;
	}
	prof_free(p);
	prof_free(base);
	return rc;
}
