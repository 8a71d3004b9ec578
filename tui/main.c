/* main.c - mprof-tui's entry: a dispatcher over the command table (cmd.h).
 * It parses the command line once (cmd_opts.c), picks the first entry that
 * claims it (in the order the ifs had before the table), rejects in one
 * place an option that entry does not take, and runs the entry. --help is
 * the entries' pieces in their slots, with the lines common to all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attach/live/listing.h"
#include "tui/cmd.h"

/* Dispatch order: the first entry that claims the command line runs. */
static const cmd *const cmds[] = {
	&cmd_snapshot, &cmd_serve, &cmd_window, &cmd_sample, &cmd_dumpon, &cmd_inject, &cmd_detach,
	&cmd_listing, &cmd_faults_live, &cmd_faults, &cmd_info_attach, &cmd_record,
	&cmd_budget, &cmd_live, &cmd_launch, &cmd_file,
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

/* The lines of --help no one mode owns. */
static const cmd_text common_help[] = {
	{ SLOT_INTRO,
	  "\n"
	  "Reads a heap profile and reports where memory is. Formats, detected from\n"
	  "the content: skynet-mprof .pro (v1), mprof native, pprof protobuf, legacy\n"
	  "text heap profiles (gperftools, tcmalloc, Go: every kind pprof reads),\n"
	  "jemalloc heap_v2, folded stacks.\n"
	  "\n" },
	{ SLOT_SYMBOLS,
	  "Symbols (addresses to function, file:line and inline chain):\n"
	  "  --no-symbols         keep the recorded names, as skynet-mprof prints\n"
	  "                       them (the default granularity becomes address)\n"
	  "  --root=DIR           look for recorded module paths under DIR too\n"
	  "                       (a copy of the target's file system); repeatable\n"
	  "  --search-path=DIR    look for modules by file name in DIR; repeatable\n"
	  "  --source-dir=DIR     find source files under DIR; repeatable\n"
	  "\n" },
	{ SLOT_END,
	  "  -h, --help           this text\n"
	  "\n"
	  "Exit status: 0 on success, 2 on bad input or usage, 1 on other errors.\n" },
	{ 0, NULL },
};

static void help_slot(FILE *f, const cmd_text *t, int slot)
{
	for (; t->text; t++)
		if (t->slot == slot)
			fputs(t->text, f);
}

static void usage(FILE *f)
{
	for (int s = 0; s < SLOT_N; s++) {
		help_slot(f, common_help, s);
		for (size_t i = 0; i < NCMDS; i++) {
			help_slot(f, cmds[i]->help, s);
			for (const cmd *const *a = cmds[i]->also; a && *a; a++)
				help_slot(f, (*a)->help, s);
		}
	}
}

/* An option given that the chosen entry does not take, said with both:
 * exit 2 rather than one of them silently ignored; 0 when none. */
static int cmd_conflict(const cmd *e, const cli *c)
{
	if (c->attach && c->dashdash) {
		fprintf(stderr, "mprof-tui: --attach PID or -- COMMAND, not both\n");
		return EXIT_BAD;
	}
	uint64_t takes = e->takes | CMD_BIT(OPT_HELP);
	for (const cmd *const *a = e->also; a && *a; a++)
		takes |= (*a)->takes;
	uint64_t extra = c->opts & ~takes;
	if (!extra)
		return 0;
	int o = 0;
	while (!(extra & CMD_BIT(o)))
		o++;
	fprintf(stderr, "mprof-tui: %s does not go with %s\n", cli_opt_name(o), e->name);
	return EXIT_BAD;
}

int main(int argc, char **argv)
{
	static cli c;
	int rc = cli_parse(&c, argc, argv);
	if (rc == CLI_HELP) {
		usage(stdout);
		return 0;
	}
	if (rc >= 0)
		return rc;
	const cmd *e = cmds[NCMDS - 1];
	for (size_t i = 0; i < NCMDS - 1; i++)
		if (cmds[i]->claims(&c)) {
			e = cmds[i];
			break;
		}
	if (!e->keeps_shm)
		atexit(listing_sweep_shm);   /* segments of processes gone since (SIGKILL) */
	if ((rc = cmd_conflict(e, &c)))
		return rc;
	return e->run(&c, argc, argv);
}
