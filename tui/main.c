/* main.c - mprof-tui's entry: options, then the batch report or the UI. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg.h"
#include "core/load.h"
#include "core/report.h"

#define EXIT_BAD 2

static const char usage_text[] =
	"usage: mprof-tui [options] FILE\n"
	"       mprof-tui --top=flat|cum [--alloc] [--objects] [-n N] [--format=text|tsv] FILE\n"
	"       mprof-tui --info FILE\n"
	"\n"
	"Reads a heap profile (skynet-mprof .pro v1, or mprof's native format;\n"
	"the format is detected from the content) and reports where memory is.\n"
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
	"  --granularity=G      address (the default)\n"
	"  --info               list function names, then every sample with its\n"
	"                       stack, root first (skynet-mprof's -info)\n"
	"  -h, --help           this text\n"
	"\n"
	"Exit status: 0 on success, 2 on bad input or usage, 1 on other errors.\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

int main(int argc, char **argv)
{
	report_opts ro = { .sort = REPORT_FLAT };
	int top = 0, info = 0;
	const char *gran = "address";
	enum { O_TOP = 256, O_ALLOC, O_INUSE, O_OBJECTS, O_FORMAT, O_GRAN, O_INFO };
	static const struct option opts[] = {
		{ "top", required_argument, NULL, O_TOP },
		{ "alloc", no_argument, NULL, O_ALLOC },
		{ "inuse", no_argument, NULL, O_INUSE },
		{ "objects", no_argument, NULL, O_OBJECTS },
		{ "limit", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "granularity", required_argument, NULL, O_GRAN },
		{ "info", no_argument, NULL, O_INFO },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:h", opts, NULL)) != -1) {
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
	if (optind != argc - 1) {
		fprintf(stderr, optind >= argc ? "mprof-tui: no profile file given\n"
					       : "mprof-tui: one profile file at a time\n");
		usage(stderr);
		return EXIT_BAD;
	}
	if (strcmp(gran, "address")) {
		fprintf(stderr, "mprof-tui: unknown granularity '%s' (address)\n", gran);
		return EXIT_BAD;
	}
	const char *path = argv[optind];
	prof_error err;
	prof *p = prof_load(path, &err);
	if (!p) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return EXIT_BAD;
	}
	int rc = 0;
	if (info) {
		rc = report_info(stdout, p) ? 1 : 0;
	} else {
		(void)top;
		prof_nodemap m;
		agg a;
		if (nodemap_by_address(&m, p) || agg_compute(&a, p, &m)) {
			fprintf(stderr, "mprof-tui: %s: out of memory\n", path);
			prof_free(p);
			return 1;
		}
		rc = report_top(stdout, &a, &m, &ro) ? 1 : 0;
		agg_free(&a);
		nodemap_free(&m);
	}
	if (fflush(stdout) && !rc) {
		fprintf(stderr, "mprof-tui: writing the report: %s\n", strerror(errno));
		rc = 1;
	}
	prof_free(p);
	return rc;
}
