/* cmd_sample.c - mprof-tui --sample-rate=R PID: change what a hooked
 * process records while it runs (attach/live/'s sample_ctl_request); its entry
 * of the command table. */
#include <getopt.h>
#include <stdio.h>
#include "attach/live/sample_ctl.h"
#include "tui/cmd.h"

static const cmd_text sample_help[] = {
	{ SLOT_USE_SAMPLE,
	  "       mprof-tui --sample-rate=BYTES|all|off PID\n" },
	{ SLOT_LIVE_SAMPLE,
	  "  --sample-rate=R PID  change what a hooked process records while it runs:\n"
	  "                       one allocation per R bytes on average (512K, 1M;\n"
	  "                       counts become unbiased estimates), all, or off\n"
	  "                       (nothing new; frees of recorded blocks still count);\n"
	  "                       taken within the next 64 KiB a thread allocates\n" },
	{ 0, NULL },
};

static int sample_run(cli *c, int argc, char **argv)
{
	if (optind != argc - 1) {
		fprintf(stderr, "mprof-tui: --sample-rate=R takes one process id\n");
		return EXIT_BAD;
	}
	return sample_ctl_request(c->sample_rate, argv[optind], stdout, stderr);
}

static int sample_claims(const cli *c)
{
	return c->sample_rate != NULL;
}

const cmd cmd_sample = {
	.name = "--sample-rate",
	.takes = CMD_BIT(OPT_SAMPLE_RATE),
	.help = sample_help,
	.claims = sample_claims,
	.run = sample_run,
};
