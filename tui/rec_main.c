/* rec_main.c - mprof-tui DIR: a recording's summary (--info), the heap at
 * a moment (--at), the growth between two (--diff-at), the allocations of
 * a window still alive at the end (--leaks) and the temporary allocations
 * (--temporary), as the usual --top reports; or the time-travel UI. The
 * command table's entry for a recording: its options and --help lines. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/agg.h"
#include "core/bytes.h"
#include "core/snapdiff.h"
#include "tui/missing_syms.h"
#include "tui/cmd.h"
#include "tui/rec.h"
#include "tui/rec_text.h"

static void info(FILE *out, recording *r)
{
	char pk[40];
	fprintf(out, "recording %s: pid %d, %zu file(s)%s\n", r->dir, r->pid, r->nf,
		r->other_pids ? " (files of other processes left aside)" : "");
	fprintf(out, "events %" PRIu64 " .. %" PRIu64 ", time %.3f s .. %.3f s\n", r->first_ev, r->end_ev,
		(double)r->first_time / 1e9, (double)r->end_time / 1e9);
	fprintf(out, "peak %" PRId64 " bytes (%s) at %.3f s, event %" PRIu64 "\n", r->peak,
		bytes_fmt(pk, sizeof(pk), r->peak), (double)r->peak_time / 1e9, r->peak_ev);
	fprintf(out, "waits %" PRIu64 " (%.3f s, longest %.3f ms), events lost %" PRIu64 ", files cut short %" PRIu64 "\n",
		r->wait_count, (double)r->wait_ns / 1e9, (double)r->wait_max_ns / 1e6, r->lost, r->truncated);
	char end[400];
	rec_end_line(r, end, sizeof(end));
	fprintf(out, "%s\n", end);
	for (size_t i = 0; i < r->nwaits; i++)
		fprintf(out, "  waited at %.3f s: %" PRIu64 " time(s), %.3f ms\n", (double)r->waits[i].time_ns / 1e9,
			r->waits[i].waits, (double)r->waits[i].wait_ns / 1e6);
	if (r->sample_rate)
		fprintf(out, "sampled: one allocation per %" PRIu64 " bytes on average; counts are estimates\n",
			r->sample_rate);
	size_t nt = r->p ? prof_truncated_stacks(r->p) : 0;
	if (nt)
		fprintf(out, "stacks cut at the depth limit: %zu (their root is [truncated])\n", nt);
	fprintf(out, "timeline (100 ms buckets, local peaks):\n");
	for (size_t i = 0; i < r->ntl; i++)
		fprintf(out, "  %.1f\t%" PRId64 "%s\n", (double)(r->first_bucket + (int64_t)i) * REC_BUCKET_NS / 1e9,
			r->tl[i].peak, r->first_bucket + (int64_t)i == (int64_t)(r->peak_time / REC_BUCKET_NS) ? "\tPEAK" : "");
}

static int moment(recording *r, const char *s, uint64_t *ev)
{
	prof_error err;
	if (rec_parse_moment(r, s, ev, &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return -1;
	}
	return 0;
}

/* The profile the batch options ask for: r->p (borrowed) or a new one (*own). */
static const prof *batch_prof(recording *r, const rec_opts *o, prof **own, char *what, size_t wl)
{
	prof_error err;
	uint64_t a, b;
	*own = NULL;
	if (o->diff_from) {
		snap sa, sb;
		if (moment(r, o->diff_from, &a) || moment(r, o->diff_to, &b))
			return NULL;
		rec_seek(r, a);
		if (snap_take(&sa, r->p, 1, 0, (int64_t)r->cur_time))
			return NULL;
		double ta = (double)r->cur_time / 1e9;
		rec_seek(r, b);
		if (snap_take(&sb, r->p, 2, 0, (int64_t)r->cur_time)) {
			snap_free(&sa);
			return NULL;
		}
		*own = snap_delta(r->p, a <= b ? &sa : &sb, a <= b ? &sb : &sa, NULL, &err);
		snprintf(what, wl, "growth from %.3f s to %.3f s", a <= b ? ta : (double)r->cur_time / 1e9,
			 a <= b ? (double)r->cur_time / 1e9 : ta);
		snap_free(&sa);
		snap_free(&sb);
	} else if (o->leak_from) {
		if (moment(r, o->leak_from, &a) || moment(r, o->leak_to, &b))
			return NULL;
		*own = rec_leaks(r, a, b, &err);
		snprintf(what, wl, "allocations made between events %" PRIu64 " and %" PRIu64 " still alive at the end",
			 a < b ? a : b, a < b ? b : a);
	} else if (o->temporary) {
		rec_life *l = rec_lifetimes(r, 1, 0);
		if (!l) {
			fprintf(stderr, "mprof-tui: %s: out of memory\n", r->dir);
			return NULL;
		}
		*own = rec_temp_prof(r, l, &err);
		free(l);
		snprintf(what, wl, "temporary allocations (freed before any other allocation)");
	} else {
		if (moment(r, o->at ? o->at : "end", &a))
			return NULL;
		if (!o->at || !strcmp(o->at, "end"))
			rec_seek_end(r);   /* its time is the run's end, as the screen's End says */
		else
			rec_seek(r, a);
		char m[80];
		rec_moment_text(r, m, sizeof(m));
		snprintf(what, wl, "the heap at %s", m);
		return r->p;
	}
	if (!*own)
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
	return *own;
}

int rec_run(const rec_opts *o)
{
	prof_error err;
	recording *r = rec_open(o->dir, 0, &err);
	if (!r) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return 2;
	}
	int rc = 0;
	if (o->info) {
		info(stdout, r);
	} else if (!o->batch) {
		rc = tui_rec(r, o);
	} else {
		prof *own;
		char what[200];
		const prof *p = batch_prof(r, o, &own, what, sizeof(what));
		if (!p) {
			rec_close(r);
			return 2;
		}
		sym_opts so = o->so;
		sym *sy = so.no_symbols && o->gran == SYM_GRAN_ADDRESS ? NULL : sym_open(p, &so);
		prof_nodemap m;
		agg a;
		if ((!sy && !(so.no_symbols && o->gran == SYM_GRAN_ADDRESS)) ||
		    sym_nodemap_agg(&m, &a, p, sy, (enum sym_gran)o->gran)) {
			fprintf(stderr, "mprof-tui: %s: out of memory\n", o->dir);
			rc = 1;
		} else {
			app_say_missing(sy, "show module+offset");
			FILE *note = o->ro.tsv ? stderr : stdout;
			fprintf(note, "# %s\n", what);
			if (r->sample_rate)
				fprintf(note, "# ESTIMATES: one allocation sampled per %" PRIu64 " bytes, counts scaled back\n",
					r->sample_rate);
			report_opts ro = o->ro;
			if (o->leak_from)
				ro.what = "leaked";
			else if (o->temporary)
				ro.what = "temporary";
			else if (o->diff_from)
				ro.what = ro.alloc ? "alloc growth" : "inuse growth";
			ro.magnitude = o->diff_from != NULL;
			rc = report_top(stdout, &a, &m, &ro) ? 1 : 0;
			agg_free(&a);
			nodemap_free(&m);
		}
		sym_close(sy);
		prof_free(own);
	}
	rec_close(r);
	return rc;
}

static const cmd_text rec_help[] = {
	{ SLOT_USE_REC,
	  "       mprof-tui [--at TIME | --diff-at T1 T2 | --leaks T1 T2 | --temporary] DIR\n" },
	{ SLOT_RECORDINGS,
	  "Recordings (MPROF_RECORD=DIR under the hook, or --record DIR --attach PID):\n"
	  "  mprof-tui DIR        the UI over the whole run: Left/Right move in time,\n"
	  "                       [ ] local peaks, P the peak, Home/End start/end,\n"
	  "                       m mark, d diff, L alive\n"
	  "                       at the end, T temporary allocations\n"
	  "  --info DIR           the recording's summary and timeline\n"
	  "  --at TIME            the heap at TIME (12.5s, 800ms, peak, start, end)\n"
	  "  --diff-at T1 T2      the growth between two moments\n"
	  "  --leaks T1 T2        allocations made between T1 and T2 alive at the end\n"
	  "  --temporary          allocations freed before the next allocation\n" },
	{ 0, NULL },
};

const cmd cmd_rec = {
	.name = "a recording",
	.takes = CMD_BIT(OPT_AT) | CMD_BIT(OPT_DIFF_AT) | CMD_BIT(OPT_LEAKS) | CMD_BIT(OPT_TEMP) |
		 CMD_BIT(OPT_INFO) | CMD_BIT(OPT_TOP) | CMD_BIT(OPT_LIMIT) | CMD_BIT(OPT_FORMAT) | CMD_METRIC | CMD_SYMS,
	.help = rec_help,
};

/* mprof-tui DIR: a recording's batch report or its UI (rec_main.c). */
int cmd_recording(const cli *c, const char *dir, int g)
{
	rec_opts rq = c->rq;
	rq.dir = dir;
	rq.info = c->info;
	rq.batch = c->batch || rq.at || rq.diff_from || rq.leak_from || rq.temporary;
	rq.ro = c->ro;
	rq.gran = g;
	rq.so = c->so;
	return rec_run(&rq);
}

