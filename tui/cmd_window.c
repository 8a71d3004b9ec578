/* cmd_window.c - mprof-tui --window SECONDS PID: what a process allocates
 * in the next SECONDS and what of it is still alive at the end (the hook
 * loaded for it if the process has none, detached after unless --keep);
 * the window's profile saved, reported or opened in the UI, and its one
 * summary line on stderr. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "attach/live/launch.h"
#include "attach/live/window.h"
#include "attach/proc/procfs.h"
#include "core/bytes.h"
#include "core/load.h"
#include "tui/write_ui.h"
#include "tui/cmd.h"

static const cmd_text window_help[] = {
	{ SLOT_USE_WINDOW,
	  "       mprof-tui --window SECONDS [--keep] [-o FILE] [--export=FMT -o OUT] PID\n" },
	{ SLOT_LIVE_WINDOW,
	  "  --window SECONDS PID what PID allocates in the next SECONDS (alloc) and\n"
	  "                       what of it is still alive at the end (in use);\n"
	  "                       older blocks count nowhere. Loads the hook if PID\n"
	  "                       has none, detaches it after unless --keep. -o FILE\n"
	  "                       (native); --export, --flamegraph, --top as for a\n"
	  "                       file; without -o: mprof-window-PID.pro, then the UI\n"
	  "                       (or --top's report when stdout is not a terminal).\n"
	  "                       Ctrl-C closes the window early\n" },
	{ 0, NULL },
};

/* What the window saw, in one line on stderr. */
static void window_say(const window_result *r, const window_opts *o, const char *file)
{
	uint64_t ao = 0, ab = 0, io = 0, ib = 0;
	for (size_t k = 0; k < r->p->samples.len; k++) {
		const mp_counts *m = &r->p->samples.v[k].c;
		ao += m->alloc_objs;
		ab += m->alloc_bytes;
		io += m->alloc_objs - m->free_objs;
		ib += m->alloc_bytes - m->free_bytes;
	}
	char a[32], i[32];
	bytes_fmt(a, sizeof(a), (int64_t)ab);
	bytes_fmt(i, sizeof(i), (int64_t)ib);
	fprintf(stderr, "mprof-tui: window of %.1f s on process %d: %llu allocation%s (%s) from %zu stack%s, "
		"%llu of them (%s) still in use at its end%s%s\n", r->open_s, o->pid, (unsigned long long)ao,
		ao == 1 ? "" : "s", a, r->p->samples.len, r->p->samples.len == 1 ? "" : "s", (unsigned long long)io, i, file ? "; written to " : "", file ? file : "");
	if (r->odd)
		fprintf(stderr, "mprof-tui: note: %zu stack%s freed more in the window than they allocated in it "
			"(the hook miscounted): left out\n", r->odd, r->odd == 1 ? "" : "s");
	if (r->exited)
		fprintf(stderr, "mprof-tui: process %d ended %.1f s into the %g s window: the profile holds what it "
			"allocated until then\n", o->pid, r->open_s, o->seconds);
	else if (r->signal)
		fprintf(stderr, "mprof-tui: the window was closed early by %s\n", strsignal(r->signal));
	if (r->detached)
		fprintf(stderr, "mprof-tui: detached from process %d (%d call slots restored); it runs on without "
			"the hook\n", o->pid, r->detach_slots);
	else if (r->injected && o->keep && !r->exited)
		fprintf(stderr, "mprof-tui: libmprof.so keeps recording in process %d (--keep); mprof-tui --detach "
			"%d stops it\n", o->pid, o->pid);
	if (r->note[0])
		fprintf(stderr, "mprof-tui: the window was written, but the detach failed: %s\n", r->note);
}

/* --window SECONDS PID: the window's profile to -o FILE (native), to
 * --export's OUT, --flamegraph's SVG, --top's report; with none of them,
 * to a free mprof-window-PID.pro opened in the UI (or reported when stdout
 * is not a terminal). Exit 2 also when the process ended during it. */
static int main_window(cli *c, int argc, char **argv)
{
	long pid = optind == argc - 1 ? proc_pid_arg(argv[optind]) : -1;
	if (pid < 0) {
		fprintf(stderr, optind == argc - 1 ? "mprof-tui: --window SECONDS takes a process id, not '%s'\n"
						   : "mprof-tui: --window SECONDS takes one process id\n",
			optind < argc ? argv[optind] : "");
		return EXIT_BAD;
	}
	if (c->export_fmt >= 0 && !c->snap_out) {
		fprintf(stderr, "mprof-tui: --export needs -o FILE\n");
		return EXIT_BAD;
	}
	int g = cli_gran(c);
	if (g < 0)
		return EXIT_BAD;
	char lib[4096], name[64];
	prof_error err;
	window_opts o = { .pid = (int)pid, .seconds = c->window_s, .keep = c->keep,
			  .lib = launch_find_lib(lib, sizeof(lib), &err) ? NULL : lib, .msg = stderr };
	window_result r;
	if (window_run(&o, &r, &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		if (r.note[0])
			fprintf(stderr, "mprof-tui: and the hook loaded for it could not be detached: %s\n", r.note);
		return EXIT_BAD;
	}
	/* The native file: -o FILE, or a free name when nothing else is asked. */
	const char *file = c->export_fmt < 0 ? c->snap_out : NULL;
	int report = c->top || c->info || c->export_fmt >= 0 || c->flame_out || !file;
	if (!file && c->export_fmt < 0 && !c->flame_out && !c->top) {
		snprintf(name, sizeof(name), "mprof-window-%ld", pid);
		write_ui_free_name(lib, sizeof(lib), name);
		file = lib;
	}
	if (file && prof_save(r.p, file, PROF_FMT_NATIVE, &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		prof_free(r.p);
		return 1;
	}
	window_say(&r, &o, file);
	int rc = r.note[0] ? 1 : 0;
	if (report) {
		c->given = r.p;   /* opened_load takes it */
		snprintf(name, sizeof(name), "window-%ld", pid);
		const char *path = file ? file : name;
		int rr = c->top || c->info || c->export_fmt >= 0 || c->flame_out || !isatty(STDOUT_FILENO)
				 ? cmd_batch(c, path, g) : cmd_file_ui(c, NULL, path, g, 0);
		rc = rr ? rr : rc;
	} else {
		prof_free(r.p);
	}
	return r.exited ? EXIT_BAD : rc;
}

static int window_claims(const cli *c)
{
	return c->window_s > 0;
}

const cmd cmd_window = {
	.name = "--window",
	.takes = CMD_BIT(OPT_WINDOW) | CMD_BIT(OPT_KEEP) | CMD_BIT(OPT_OUTPUT) | CMD_BIT(OPT_EXPORT) |
		 CMD_BIT(OPT_TOP) | CMD_BIT(OPT_INFO) | CMD_BIT(OPT_FLAME) | CMD_BIT(OPT_GRAPH) | CMD_BIT(OPT_DIFF) |
		 CMD_BIT(OPT_LIMIT) | CMD_BIT(OPT_FORMAT) | CMD_METRIC | CMD_SYMS,
	.help = window_help,
	.claims = window_claims,
	.run = main_window,
};
