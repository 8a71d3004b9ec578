/* cmd_live.c - mprof-tui on a process running under libmprof.so: --attach
 * PID follows it (live_ui.c; the hook offered when it has none), --attach
 * alone lists those that can be attached, --info --attach PID says how the
 * hook is in it, --record DIR --attach PID records it headless until it
 * exits, and -- COMMAND starts one with the hook preloaded and follows it:
 * five entries of the command table, each with the options it reads. */
#include <getopt.h>
#include <stdio.h>

#include "attach/live/launch.h"
#include "attach/live/listing.h"
#include "attach/live/record_attach.h"
#include "attach/proc/procfs.h"
#include "remote/remote.h"
#include "tui/allocs_ui.h"
#include "tui/cmd.h"
#include "tui/tui.h"

static const cmd_text live_help[] = {
	{ SLOT_USE_LIVE,
	  "       mprof-tui --attach [PID] [--interval MS]\n"
	  "       mprof-tui --attach URL [--interval MS] [--timeout SECONDS]\n" },
	{ SLOT_LIVE,
	  "Live (a process running under libmprof.so):\n"
	  "  --attach PID         follow it: the screens of a file, refreshed, a\n"
	  "                       timeline (heap in use, RSS); m snapshot, d diff\n"
	  "                       two snapshots (growth), p pause, w/W write,\n"
	  "                       z/Z zoom the timeline, = fit the whole run\n"
	  "  --attach URL         follow a served heap profile (a Go service's\n"
	  "                       /debug/pprof/heap, --serve's): fetched every\n"
	  "                       --interval (default 2000 ms); a failed fetch is\n"
	  "                       on the status line, the last profile stays\n" },
	{ 0, NULL },
};

static const cmd_text info_attach_help[] = {
	{ SLOT_USE_INFO_ATTACH,
	  "       mprof-tui --info --attach PID\n" },
	{ SLOT_LIVE_INFO,
	  "  --info --attach PID  how the hook is in it and which allocators it found\n"
	  "                       (interposed, GOT slots, entry-patched, refused)\n" },
	{ 0, NULL },
};

static const cmd_text listing_help[] = {
	{ SLOT_LIVE_LISTING,
	  "  --attach             list the processes that can be attached (and\n"
	  "                       remove the segments of those that are gone)\n" },
	{ 0, NULL },
};

static const cmd_text record_help[] = {
	{ SLOT_USE_RECORD,
	  "       mprof-tui --record DIR --attach PID\n" },
	{ SLOT_RECORD,
	  "  --record DIR --attach PID  record a hooked process until it exits\n"
	  "\n" },
	{ 0, NULL },
};

static const cmd_text launch_help[] = {
	{ SLOT_USE_LAUNCH,
	  "       mprof-tui [--interval MS] [-o FILE] -- COMMAND [ARGS...]\n" },
	{ SLOT_LIVE_LAUNCH,
	  "  -- COMMAND ARGS      start COMMAND with the hook preloaded and follow\n"
	  "                       it; its output goes to a file named on screen,\n"
	  "                       its profile to mprof.COMMAND.PID.pro here (-o FILE:\n"
	  "                       there); through a wrapper script's exec, the\n"
	  "                       screen follows the program it runs\n"
	  "  --interval MS        refresh period (default 500)\n" },
	{ 0, NULL },
};

/* --attach PID: follow a hooked process (or inject the hook), or with
 * --record DIR record it headless until it exits. */
static int main_attach(const cli *c, const char *pid_arg, int extra)
{
	char lib[4096];
	prof_error err;
	if (remote_is_url(pid_arg) && !extra && !c->rec_dir) {
		int g = cli_gran(c);
		if (g < 0)
			return EXIT_BAD;
		/* A refetch is a request to the service: 2 s unless --interval says. */
		tui_live_opts lo = { .interval_ms = (c->opts & CMD_BIT(OPT_INTERVAL)) ? (int)c->interval : 2000,
				     .so = c->so, .gran = g, .alloc = c->ro.alloc, .objects = c->ro.objects };
		return tui_live_http(pid_arg, &lo);
	}
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

/* -- COMMAND ARGS: start it with the hook preloaded and follow it; one
 * that ended before its screen was up opens as the profile it left. */
static int main_launch(cli *c, char *const *cmd)
{
	int g = cli_gran(c);
	if (g < 0)
		return EXIT_BAD;
	char ended[4096] = "";
	tui_live_opts lo = { .argv = cmd, .interval_ms = (int)c->interval, .so = c->so, .gran = g,
			     .alloc = c->ro.alloc, .objects = c->ro.objects, .out = c->snap_out,
			     .ended = ended, .ended_len = sizeof(ended) };
	int rc = tui_live(&lo);
	if (rc != TUI_LIVE_ENDED)
		return rc;
	char status[512];
	snprintf(status, sizeof(status), "%.60s ended before its screen was up: its final profile (%.300s); q quits",
		 cmd[0], ended);
	c->ui_status = status;
	return cmd_file_ui(c, NULL, ended, g, 0);
}

static int live_run(cli *c, int argc, char **argv)
{
	return main_attach(c, argv[optind], optind != argc - 1);
}

static int launch_run(cli *c, int argc, char **argv)
{
	(void)argc;
	return main_launch(c, argv + optind);
}

static int listing_cmd_run(cli *c, int argc, char **argv)
{
	(void)c, (void)argc, (void)argv;
	return listing_print();
}

static int info_attach_run(cli *c, int argc, char **argv)
{
	(void)c, (void)argc;
	return allocs_info_print(argv[optind]);
}

static int live_claims(const cli *c)
{
	return c->attach;
}

/* --attach with no process id: the list. */
static int listing_claims(const cli *c)
{
	return c->attach && c->nargs == 0;
}

static int info_attach_claims(const cli *c)
{
	return c->attach && c->info && c->nargs == 1;
}

static int record_claims(const cli *c)
{
	return c->attach && c->rec_dir;
}

static int launch_claims(const cli *c)
{
	return c->dashdash;
}

const cmd cmd_live = {
	.name = "--attach",
	.takes = CMD_BIT(OPT_ATTACH) | CMD_BIT(OPT_INTERVAL) | CMD_BIT(OPT_TIMEOUT) | CMD_METRIC | CMD_SYMS,
	.help = live_help,
	.claims = live_claims,
	.run = live_run,
};

const cmd cmd_listing = {
	.name = "--attach without a process id",
	.takes = CMD_BIT(OPT_ATTACH),
	.help = listing_help,
	.claims = listing_claims,
	.run = listing_cmd_run,
};

const cmd cmd_info_attach = {
	.name = "--info --attach",
	.takes = CMD_BIT(OPT_INFO) | CMD_BIT(OPT_ATTACH),
	.help = info_attach_help,
	.claims = info_attach_claims,
	.run = info_attach_run,
};

const cmd cmd_record = {
	.name = "--record",
	.takes = CMD_BIT(OPT_RECORD) | CMD_BIT(OPT_ATTACH),
	.help = record_help,
	.claims = record_claims,
	.run = live_run,
};

const cmd cmd_launch = {
	.name = "-- COMMAND",
	.takes = CMD_BIT(OPT_INTERVAL) | CMD_BIT(OPT_OUTPUT) | CMD_METRIC | CMD_SYMS,
	.help = launch_help,
	.claims = launch_claims,
	.run = launch_run,
};
