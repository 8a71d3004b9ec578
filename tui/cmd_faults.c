/* cmd_faults.c - mprof-tui --faults: physical memory by stack from page
 * faults, no hook needed: -o FILE -- COMMAND, PID -o FILE [--duration S]
 * (attach/faults/'s faults_run), or the pages view live with --attach PID
 * (faults_ui.c); two entries of the command table, since the live one takes
 * the screens' options and the other the file's. */
#include <getopt.h>
#include <stdio.h>

#include "attach/faults/faults.h"
#include "attach/proc/procfs.h"
#include "tui/cmd.h"
#include "tui/tui.h"

static const cmd_text faults_help[] = {
	{ SLOT_USE_FAULTS,
	  "       mprof-tui --faults -o FILE -- COMMAND [ARGS...]\n"
	  "       mprof-tui --faults PID [--duration SECONDS] -o FILE\n" },
	{ SLOT_FAULTS,
	  "Physical memory by stack (page faults; no hook needed):\n"
	  "  --faults -o FILE -- COMMAND ARGS  run COMMAND, sample every page fault\n"
	  "                       it takes (perf_event_open) until it exits; alloc =\n"
	  "                       every page a fault made, inuse = pages still resident\n"
	  "                       (pagemap), each at the stack of its latest fault;\n"
	  "                       FILE is an ordinary profile: bytes = pages x page\n"
	  "                       size, objects = pages, under the roots [minor page\n"
	  "                       faults] and [major page faults]\n"
	  "  --faults PID -o FILE the same on a running process and the threads it\n"
	  "                       starts, until it exits or Ctrl-C\n"
	  "  --duration SECONDS   with --faults PID: stop after SECONDS\n" },
	{ 0, NULL },
};

static const cmd_text faults_live_help[] = {
	{ SLOT_USE_FAULTS_LIVE,
	  "       mprof-tui --faults --attach PID\n" },
	{ SLOT_FAULTS_LIVE,
	  "  --faults --attach PID  the pages view, live; v switches to the heap and\n"
	  "                       back when PID runs under the hook, w writes\n" },
	{ 0, NULL },
};

/* --faults: -o FILE -- COMMAND, PID -o FILE [--duration S], or the
 * screens with --attach PID. */
static int main_faults(cli *c, int argc, char **argv)
{
	int dashdash = c->dashdash;
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
		return faults_run(NULL, argv + optind, 0, c->snap_out, stderr);
	if (optind != argc - 1) {
		fprintf(stderr, optind == argc ? "mprof-tui: --faults needs a process id or -- COMMAND\n"
					       : "mprof-tui: --faults takes one process id\n");
		cmd_usage_hint();
		return EXIT_BAD;
	}
	return faults_run(argv[optind], NULL, c->duration, c->snap_out, stderr);
}

static int faults_claims(const cli *c)
{
	return c->faults;
}

static int faults_live_claims(const cli *c)
{
	return c->faults && c->attach;
}

const cmd cmd_faults = {
	.name = "--faults",
	.takes = CMD_BIT(OPT_FAULTS) | CMD_BIT(OPT_OUTPUT) | CMD_BIT(OPT_DURATION),
	.help = faults_help,
	.claims = faults_claims,
	.run = main_faults,
};

const cmd cmd_faults_live = {
	.name = "--faults --attach",
	.takes = CMD_BIT(OPT_FAULTS) | CMD_BIT(OPT_ATTACH) | CMD_BIT(OPT_INTERVAL) | CMD_METRIC | CMD_SYMS,
	.help = faults_live_help,
	.claims = faults_live_claims,
	.run = main_faults,
};
