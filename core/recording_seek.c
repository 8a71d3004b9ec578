/* recording_seek.c - moving in time in an open recording: the nearest
 * checkpoint, then the events up to the moment replayed. */
#include "core/recording_int.h"
#include "core/agg.h"
#include "core/snapdiff.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- moving in time --------------------------------------------------------- */

/* The file holding position ev (the last that starts at or before it). */
size_t rec_file_of(const recording *r, uint64_t ev)
{
	size_t i = r->nf - 1;
	while (i > 0 && r->f[i].first_ev > ev)
		i--;
	return i;
}

/* The chunk of f holding position ev, or SIZE_MAX. */
static size_t chunk_of(const rec_file *f, uint64_t ev)
{
	size_t lo = 0, hi = f->nch;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (f->ch[mid].first <= ev)
			lo = mid;
		else
			hi = mid;
	}
	if (lo >= f->nch || ev < f->ch[lo].first || ev >= f->ch[lo].first + f->ch[lo].count)
		return SIZE_MAX;
	return lo;
}

/* Puts the replay state at the nearest checkpoint at or before ev in file fi. */
static void from_checkpoint(recording *r, size_t fi, uint64_t ev, uint64_t t)
{
	const rec_file *f = &r->f[fi];
	size_t k = 0;
	while (k + 1 < f->nck && f->ck[k + 1].ev <= ev && f->ck[k + 1].time <= t)
		k++;
	const rec_ck *c = &f->ck[k];
	memset(r->cur, 0, r->nids * sizeof(mp_counts));
	memcpy(r->cur, c->c, (c->n < r->nids ? c->n : r->nids) * sizeof(mp_counts));
	r->cur_ev = c->ev;
	r->cur_time = c->time;
	r->cur_at_end = 0;
	r->cur_inuse = c->inuse;
	r->cur_file = fi;
}

/* Replays events up to position ev, stopping before one that would take
 * the running time past t. */
static void replay(recording *r, uint64_t ev, uint64_t t)
{
	const rec_file *f = &r->f[r->cur_file];
	uint64_t end = f->first_ev + f->nev;
	if (ev > end)
		ev = end;
	uint64_t rate = r->sample_rate;
	while (r->cur_ev < ev) {
		size_t c = chunk_of(f, r->cur_ev);
		const rec_event *e = c == SIZE_MAX ? NULL : rec_cursor_chunk(r->cursor, f, c);
		if (!e)
			break;
		/* Events are contiguous within a chunk: walk it without lookups. */
		const rec_chref *ch = &f->ch[c];
		uint64_t stop = ch->first + ch->count < ev ? ch->first + ch->count : ev;
		for (e += r->cur_ev - ch->first; r->cur_ev < stop; e++) {
			uint64_t nt = e->time_ns > r->cur_time ? e->time_ns : r->cur_time;
			if (nt > t)
				return;
			if (e->stack < r->nids)
				rec_apply(&r->cur[e->stack], e, r->cur_ev, rate, r->dither, &r->cur_inuse);
			r->cur_time = nt;
			r->cur_ev++;
		}
	}
}

static void to_prof(recording *r)
{
	prof *p = r->p;
	for (size_t k = 0; k < p->samples.len; k++) {
		const mp_counts *c = &r->cur[r->id_of[k]];
		prof_sample *s = &p->samples.v[k];
		s->c = *c;
	}
}

static void seek_to(recording *r, uint64_t ev, uint64_t t)
{
	if (ev < r->first_ev)
		ev = r->first_ev;
	if (ev > r->end_ev)
		ev = r->end_ev;
	size_t fi = rec_file_of(r, ev);
	const rec_file *f = &r->f[fi];
	/* Forward from where we are when no checkpoint is nearer. */
	size_t k = 0;
	while (k + 1 < f->nck && f->ck[k + 1].ev <= ev)
		k++;
	if (r->cur_at_end || !(r->cur_file == fi && r->cur_ev <= ev && r->cur_ev >= f->ck[k].ev && r->cur_time <= t))
		from_checkpoint(r, fi, ev, t);
	replay(r, ev, t);
	to_prof(r);
}

int rec_seek(recording *r, uint64_t ev)
{
	seek_to(r, ev, UINT64_MAX);
	return 0;
}

void rec_seek_end(recording *r)
{
	seek_to(r, r->end_ev, UINT64_MAX);
	if (r->end_time > r->cur_time) {
		r->cur_time = r->end_time;
		r->cur_at_end = 1;   /* the next seek starts from a checkpoint, with event times */
	}
}

uint64_t rec_ev_at(recording *r, uint64_t t_ns)
{
	if (t_ns < r->first_time)
		return r->first_ev;
	size_t fi = r->nf - 1;
	while (fi > 0 && r->f[fi].t0 > t_ns)
		fi--;
	const rec_file *f = &r->f[fi];
	from_checkpoint(r, fi, f->first_ev + f->nev, t_ns);
	replay(r, f->first_ev + f->nev, t_ns);
	to_prof(r);
	return r->cur_ev;
}

int rec_parse_moment(recording *r, const char *s, uint64_t *ev, prof_error *err)
{
	if (!strcmp(s, "peak")) {
		*ev = r->peak_ev;
		return 0;
	}
	if (!strcmp(s, "start")) {
		*ev = r->first_ev;
		return 0;
	}
	if (!strcmp(s, "end")) {
		*ev = r->end_ev;
		return 0;
	}
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	double mul = 1e9;
	if (!strcmp(end, "ms"))
		mul = 1e6;
	else if (*end && strcmp(end, "s"))
		v = -1;
	if (errno || end == s || !(v >= 0) || v * mul > 9.2e18) {
		prof_errorf(err, "'%s' is not a time: seconds from the start (12.5s, 800ms), peak, start or end", s);
		return -1;
	}
	if (v * mul > (double)r->end_time) {
		prof_errorf(err, "%s: '%s' is past the end of the recording (%.3f s; 'end' is that moment)", r->dir, s,
			    (double)r->end_time / 1e9);
		return -1;
	}
	*ev = rec_ev_at(r, (uint64_t)(v * mul));
	return 0;
}
