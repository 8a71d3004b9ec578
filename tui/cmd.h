/* cmd.h - mprof-tui's command table: what the command line asked for (cli),
 * the options it may hold (one bit each), and one entry per mode (file UI
 * and reports, recordings, live, inject, window, record, serve, faults,
 * snapshot, sample rate), each declared in its own tui/cmd_*.c with the
 * options it takes, its pieces of --help and its entry function. main.c
 * parses once over all options, picks the first entry that claims the
 * command line, rejects an option that entry does not take, and runs it. */
#ifndef MPROF_TUI_CMD_H
#define MPROF_TUI_CMD_H

#include <stdint.h>
#include <stdio.h>

#include "core/agg.h"
#include "core/prof.h"
#include "core/report.h"
#include "symbols/sym.h"
#include "tui/rec.h"

#define EXIT_BAD 2

/* Every option of mprof-tui, one bit each in cli.given and cmd.takes. */
enum cmd_opt {
	OPT_TOP, OPT_ALLOC, OPT_INUSE, OPT_OBJECTS, OPT_LIMIT, OPT_FORMAT, OPT_GRAN, OPT_INFO,
	OPT_NOSYM, OPT_ROOT, OPT_SPATH, OPT_SDIR, OPT_SNAPSHOT, OPT_SERVE, OPT_EXPORT, OPT_DIFF,
	OPT_BASE, OPT_FLAME, OPT_GRAPH, OPT_ATTACH, OPT_INJECT, OPT_DETACH, OPT_INTERVAL,
	OPT_RECORD, OPT_AT, OPT_DIFF_AT, OPT_LEAKS, OPT_TEMP, OPT_FAULTS, OPT_DURATION,
	OPT_WINDOW, OPT_KEEP, OPT_SAMPLE_RATE, OPT_OUTPUT, OPT_HELP, OPT_PEAK, OPT_BUDGET, OPT_TIMEOUT,
	OPT_DUMP_ON, OPT_IGNORE, OPT_N
};
#define CMD_BIT(o) ((uint64_t)1 << (o))
/* The options every mode that reads symbols takes. */
#define CMD_SYMS (CMD_BIT(OPT_NOSYM) | CMD_BIT(OPT_ROOT) | CMD_BIT(OPT_SPATH) | CMD_BIT(OPT_SDIR))
/* The options that choose what a profile is summed as. */
#define CMD_METRIC (CMD_BIT(OPT_ALLOC) | CMD_BIT(OPT_INUSE) | CMD_BIT(OPT_OBJECTS) | CMD_BIT(OPT_GRAN))

/* What the command line asked for; the entries read it. */
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
	int peak;                        /* --peak: the counters at the heap's peak */
	const char *budget;              /* --budget TERMS */
	int junit;                       /* --format=junit (with --budget) */
	double duration;                 /* --duration SECONDS, 0: until it exits */
	double timeout_s;                /* --timeout SECONDS of an HTTP fetch; 0: the default */
	const char *sample_rate;         /* --sample-rate=R */
	const char *dump_on;             /* --dump-on TRIGGERS */
	const char *ignore;              /* --ignore REGEX: stacks through a matching function left out */
	int batch;                       /* a report, not the UI */
	double window_s;                 /* --window SECONDS; 0 none */
	int keep;                        /* --keep: a hook loaded for the window stays on */
	prof *given;                     /* a profile already in memory (the window's):
					  * opened_load takes it instead of reading path */
	const char *ui_status;           /* the file UI's first status line (a launch that ended early) */
	uint64_t opts;                   /* CMD_BIT of every option given */
	int dashdash;                    /* "--" then COMMAND: argv + optind is it */
	int nargs;                       /* the words after the options (argc - optind) */
} cli;

/* Where a piece of --help goes: the usage lines first, then the sections. */
enum cmd_slot {
	SLOT_USE_FILE, SLOT_USE_REPORT, SLOT_USE_REC, SLOT_USE_RECORD, SLOT_USE_SNAPSHOT,
	SLOT_USE_SERVE, SLOT_USE_WINDOW, SLOT_USE_LIVE, SLOT_USE_INFO_ATTACH, SLOT_USE_INJECT,
	SLOT_USE_SAMPLE, SLOT_USE_LAUNCH, SLOT_USE_FAULTS, SLOT_USE_FAULTS_LIVE,
	SLOT_INTRO, SLOT_BATCH, SLOT_SYMBOLS, SLOT_TWO_RUNS, SLOT_TWO_RUNS_REPORT, SLOT_BUDGET,
	SLOT_LIVE, SLOT_LIVE_INFO, SLOT_LIVE_LISTING, SLOT_LIVE_LAUNCH, SLOT_LIVE_SNAPSHOT,
	SLOT_LIVE_INJECT, SLOT_LIVE_SERVE, SLOT_LIVE_WINDOW, SLOT_LIVE_SAMPLE,
	SLOT_RECORDINGS, SLOT_RECORD, SLOT_FAULTS, SLOT_FAULTS_LIVE, SLOT_END, SLOT_N
};

typedef struct cmd_text {
	int slot;                        /* an enum cmd_slot; the list ends at text NULL */
	const char *text;
} cmd_text;

typedef struct cmd {
	const char *name;                /* in messages: "--serve", "a profile file" */
	uint64_t takes;                  /* CMD_BIT of each option it reads */
	const cmd_text *help;            /* its pieces of --help */
	/* Whether the command line is this mode; NULL: always (the last entry). */
	int (*claims)(const cli *c);
	int (*run)(cli *c, int argc, char **argv);
	int keeps_shm;                   /* 1: no sweep of dead segments at exit */
	/* The modes its run picks by the file and the terminal (the profile's:
	 * report, recording); their options count as its own. NULL-ended. */
	const struct cmd *const *also;
} cmd;

extern const cmd cmd_file, cmd_report, cmd_rec, cmd_record, cmd_snapshot, cmd_serve,
	cmd_window, cmd_live, cmd_listing, cmd_info_attach, cmd_launch, cmd_inject,
	cmd_sample, cmd_faults, cmd_faults_live, cmd_detach, cmd_budget, cmd_dumpon;

/* Parses argv into c (cmd_opts.c); -1 to go on, CLI_HELP for -h, else
 * the exit status. */
#define CLI_HELP (-2)
int cli_parse(cli *c, int argc, char **argv);
/* The option's name as --help spells it ("--top", "-n"). */
const char *cli_opt_name(int opt);
/* The granularity asked for, as a sym_gran; -1 (said) when unknown. */
int cli_gran(const cli *c);
/* After a usage error: the first usage line and where the rest is. */
void cmd_usage_hint(void);

/* The batch report of one profile (cmd_report.c); also the window's. */
int cmd_batch(const cli *c, const char *path, int g);
/* The UI over path (cmd_file.c); with base_path, BASE too for d. */
int cmd_file_ui(const cli *c, const char *base_path, const char *path, int g, int diff_open);
/* A profile with its symbols, node map and aggregate at one granularity
 * (cmd_open.c): what the UI and the batch report both start from. */
typedef struct opened {
	prof *p;                 /* owned; NEW - BASE with --diff BASE */
	sym *sy;                 /* owned; NULL for raw address rows */
	prof_nodemap m;
	agg a;
	sym_opts so;
} opened;

/* Loads path (minus --diff BASE); 0, else the exit status (said). */
int opened_load(opened *f, const cli *c, const char *path);
/* Symbols, map and aggregate over f->p at granularity g; 0, or 1 (said). */
int opened_build(opened *f, const cli *c, const char *path, int g);
/* Frees what opened_build made (built) and the profile. */
void opened_free(opened *f, int built);
/* mprof-tui DIR (rec_main.c): a recording's batch report or its UI. */
int cmd_recording(const cli *c, const char *dir, int g);
/* The report went to stdout: a failed write is an error. */
int cmd_stdout_done(int rc);

#endif
