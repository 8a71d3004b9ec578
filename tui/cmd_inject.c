/* cmd_inject.c - mprof-tui --inject PID and --detach PID: load libmprof.so
 * into a process started without it, or stop an injected hook
 * (inject_ui.c's inject_ui_run); two entries of the command table, so that
 * one given with the other is said, not settled by their order. */
#include <stdio.h>
#include "tui/cmd.h"
#include "tui/inject_ui.h"

static const cmd_text inject_help[] = {
	{ SLOT_USE_INJECT,
	  "       mprof-tui --inject PID | --detach PID\n" },
	{ SLOT_LIVE_INJECT,
	  "  --inject PID         load libmprof.so into a process started without it\n"
	  "                       (ptrace, x86_64; glibc, jemalloc, tcmalloc); names\n"
	  "                       its allocator; recording starts then, earlier\n"
	  "                       history is unknown. --attach PID offers it (y/n)\n"
	  "  --detach PID         stop an injected hook: the program's calls go to\n"
	  "                       its allocator again; its segment stays readable\n" },
	{ 0, NULL },
};

static int inject_run(cli *c, int argc, char **argv)
{
	(void)argc, (void)argv;
	return inject_ui_run(c->inject_pid ? c->inject_pid : c->detach_pid, !c->inject_pid);
}

static int inject_claims(const cli *c)
{
	return c->inject_pid != NULL;
}

static int detach_claims(const cli *c)
{
	return c->detach_pid != NULL;
}

static const cmd_text detach_help[] = { { 0, NULL } };   /* inject's lines say both */

const cmd cmd_inject = {
	.name = "--inject",
	.takes = CMD_BIT(OPT_INJECT),
	.help = inject_help,
	.claims = inject_claims,
	.run = inject_run,
};

const cmd cmd_detach = {
	.name = "--detach",
	.takes = CMD_BIT(OPT_DETACH),
	.help = detach_help,
	.claims = detach_claims,
	.run = inject_run,
};
