/* view_peak.c - the at-peak view: a copy of the profile that shares all
 * but its samples with the one shown (those hold the counters at the
 * peak: prof_select_peak), put under the view with view_reload; a reload
 * while it is on (live mode) makes it again from the new profile. */
#include "core/view.h"
#include "core/view_int.h"

#include <stdlib.h>
#include <string.h>

/* The at-peak copy of p in v->peak_p (p itself when p has no peak: the
 * view leaves the at-peak mode). */
const prof *view_peak_of(view *v, const prof *p)
{
	if (p == &v->peak_p)
		return p;
	prof_sample *s = p->meta.peak.time_ns ? malloc((p->samples.len + 1) * sizeof(*s)) : NULL;
	free(v->peak_p.samples.v);
	memset(&v->peak_p, 0, sizeof(v->peak_p));
	if (!s) {
		v->peak = 0;
		return p;
	}
	memcpy(s, p->samples.v, p->samples.len * sizeof(*s));
	v->peak_p = *p;   /* frames, stacks, names: p's, read only */
	v->peak_p.samples.v = s;
	v->peak_p.samples.cap = p->samples.len;
	prof_select_peak(&v->peak_p);
	v->peak_src = p;
	return &v->peak_p;
}

void view_peak_free(view *v)
{
	free(v->peak_p.samples.v);
	memset(&v->peak_p, 0, sizeof(v->peak_p));
	v->peak = 0;
}

int view_toggle_alloc(view *v)
{
	if (v->peak) {   /* at peak -> in use */
		v->peak = 0;
		int rc = view_reload(v, v->peak_src, 0);
		view_peak_free(v);
		return rc;
	}
	if (v->alloc && v->p->meta.peak.time_ns && v->gran_build) {   /* allocated -> at peak */
		v->alloc = 0;
		v->peak = 1;
		return view_reload(v, v->p, 0);
	}
	v->alloc = !v->alloc;
	return view_resort(v);
}
