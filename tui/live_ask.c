/* live_ask.c - live mode's prompts and their answers: w and W (write now,
 * the diff on screen, or "#N FILE" snapshot N) and d (the two moments of a
 * diff, snapshot numbers or now). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/live_ui.h"
#include "tui/write_ui.h"

/* "3", "#3" or "now" -> snapshot index, -1 for now; -2 when bad. */
static int parse_moment(const live_ui *lv, const char *s)
{
	if (!strcmp(s, "now"))
		return -1;
	if (*s == '#')
		s++;
	char *end;
	long n = strtol(s, &end, 10);
	if (*end || end == s)
		return -2;
	for (int i = 0; i < lv->nsnaps; i++)
		if (lv->snaps[i].number == n)
			return i;
	return -2;
}

static void answer_diff(app *a, const char *ans)
{
	live_ui *lv = LV(a);
	char t1[64] = "", t2[64] = "";
	int n = sscanf(ans, "%63s %63s", t1, t2);
	int from = 0, to = lv->nsnaps >= 2 ? lv->nsnaps - 1 : -1;
	if (n >= 1)
		from = parse_moment(lv, t1);
	if (n >= 2)
		to = parse_moment(lv, t2);
	else if (n == 1)
		to = -1;
	if (from == -2 || to == -2) {
		snprintf(a->v.status, sizeof(a->v.status), "diff: '%s': give two snapshot numbers (1 to %d) or now", ans,
			 lv->snaps[lv->nsnaps - 1].number);
		return;
	}
	/* Earlier first; now is the latest moment. */
	if (from < 0 || (to >= 0 && to < from)) {
		int t = from;
		from = to;
		to = t;
	}
	if (from < 0 || from == to) {
		snprintf(a->v.status, sizeof(a->v.status), "diff: pick two different moments (now counts as one)");
		return;
	}
	live_diff_open(a, from, to);
}

/* "#N FILE", or "#N" for a free name of its own: snapshot N written. */
static int answer_snapshot(app *a, const char *ans)
{
	live_ui *lv = LV(a);
	view *v = &a->v;
	char file[512];
	if (*ans != '#')
		return 0;
	char *end;
	long n = strtol(ans + 1, &end, 10);
	int which = -2;
	for (int i = 0; i < lv->nsnaps; i++)
		if (lv->snaps[i].number == n)
			which = i;
	if (which == -2) {
		snprintf(v->status, sizeof(v->status), "write: no snapshot #%ld", n);
		return 1;
	}
	ans = end;
	while (*ans == ' ')
		ans++;
	if (!*ans) {
		char base[64];
		snprintf(base, sizeof(base), "mprof-%d-s%ld", lv->fu.f.pid, n);
		write_ui_free_name(file, sizeof(file), base);
	} else {
		snprintf(file, sizeof(file), "%s", ans);
	}
	prof_error err;
	prof *p = snap_delta(lv->fu.f.p, NULL, &lv->snaps[which], NULL, &err);
	if (!p) {
		snprintf(v->status, sizeof(v->status), "write: %.240s", err.msg);
		return 1;
	}
	write_ui_save(a, p, file, a->ask.arg);
	prof_free(p);
	return 1;
}

/* Now, or the diff on screen. */
static const prof *write_profile(const app *a)
{
	const live_ui *lv = LV(a);
	return lv->diff ? a->v.p : lv->fu.f.p;
}

int live_ask_write(app *a, int v1)
{
	live_ui *lv = LV(a);
	char base[300];
	if (lv->diff) {
		char f[16], t[16];
		snprintf(base, sizeof(base), "mprof-%d-diff-%s-%s", lv->fu.f.pid, live_moment_name(lv, lv->from, f, sizeof(f)),
			 live_moment_name(lv, lv->to, t, sizeof(t)));
		for (char *c = base; *c; c++)
			if (*c == '#')
				*c = 's';
	} else {
		snprintf(base, sizeof(base), "mprof-%d-now", lv->fu.f.pid);
	}
	return write_ui_prompt(a, v1, &(write_ask){ .what = lv->diff ? "the diff" : "now", .base = base,
						     .more = "#N FILE: snapshot N", .answer = answer_snapshot,
						     .profile = write_profile });
}

int live_ask_diff(app *a)
{
	live_ui *lv = LV(a);
	if (!lv->nsnaps) {
		snprintf(a->v.status, sizeof(a->v.status),
			 "no snapshot yet: m takes one (d compares two; now counts as one)");
		return 0;
	}
	char lead[sizeof(a->ask.lead)];
	if (lv->nsnaps >= 2)
		snprintf(lead, sizeof(lead), "diff FROM TO, snapshot numbers or now [%d %d]: ",
			 lv->snaps[0].number, lv->snaps[lv->nsnaps - 1].number);
	else
		snprintf(lead, sizeof(lead), "diff FROM TO, snapshot numbers or now [%d now]: ", lv->snaps[0].number);
	return app_prompt(a, answer_diff, 0, NULL, lead);
}

