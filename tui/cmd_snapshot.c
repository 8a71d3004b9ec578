/* cmd_snapshot.c - mprof-tui --snapshot PID -o FILE: the current state of
 * a process running under libmprof.so written to FILE in the native format
 * (attach/live/'s snapshot_to_file); its entry of the command table. */
#include <stdio.h>
#include "attach/live/snapshot.h"
#include "tui/cmd.h"

static const cmd_text snapshot_help[] = {
	{ SLOT_USE_SNAPSHOT,
	  "       mprof-tui --snapshot PID -o FILE\n" },
	{ SLOT_LIVE_SNAPSHOT,
	  "  --snapshot PID -o FILE  write the current state of a process running\n"
	  "                       under libmprof.so to FILE (native format)\n" },
	{ 0, NULL },
};

static int snapshot_run(cli *c, int argc, char **argv)
{
	(void)argc, (void)argv;
	return snapshot_to_file(c->snap_pid, c->snap_out);
}

static int snapshot_claims(const cli *c)
{
	return c->snap_pid != NULL;
}

const cmd cmd_snapshot = {
	.name = "--snapshot",
	.takes = CMD_BIT(OPT_SNAPSHOT) | CMD_BIT(OPT_OUTPUT),
	.help = snapshot_help,
	.claims = snapshot_claims,
	.run = snapshot_run,
	.keeps_shm = 1,
};
