/* cmd_dumpon.c - mprof-tui --dump-on SPEC PID: triggered dumps in a
 * running process (attach/live/'s dumpon_ctl_request); its entry of the
 * command table. */
#include <getopt.h>
#include <stdio.h>
#include "attach/live/dumpon_ctl.h"
#include "tui/cmd.h"

static const cmd_text dumpon_help[] = {
	{ SLOT_USE_SAMPLE,
	  "       mprof-tui --dump-on TRIGGERS [-o OUT.pro] PID\n" },
	{ SLOT_LIVE_SAMPLE,
	  "  --dump-on T PID      the hook writes a dump when a trigger fires, the\n"
	  "                       program running on: heap:SIZE (bytes in use),\n"
	  "                       rss:SIZE, growth:SIZE/TIME (in use grew by SIZE\n"
	  "                       within TIME), memhigh (cgroup v2 memory.high hit);\n"
	  "                       comma-separated; SIZE 512M, 1G or 80% (of the\n"
	  "                       cgroup's memory.max). Dumps: OUT.trigger-N.pro\n"
	  "                       (-o, else MPROF_OUT's, else mprof-PID.pro here);\n"
	  "                       injects libmprof.so when the process has none\n"
	  "\n" },
	{ 0, NULL },
};

static int dumpon_run(cli *c, int argc, char **argv)
{
	if (optind != argc - 1) {
		fprintf(stderr, "mprof-tui: --dump-on TRIGGERS takes one process id\n");
		return EXIT_BAD;
	}
	return dumpon_ctl_request(c->dump_on, argv[optind], c->snap_out, stdout, stderr);
}

static int dumpon_claims(const cli *c)
{
	return c->dump_on != NULL;
}

const cmd cmd_dumpon = {
	.name = "--dump-on",
	.takes = CMD_BIT(OPT_DUMP_ON) | CMD_BIT(OPT_OUTPUT),
	.help = dumpon_help,
	.claims = dumpon_claims,
	.run = dumpon_run,
};
