/* prof_peak.c - the heap's high-water mark in the profile model
 * (prof_meta.peak and each sample's share): the --peak view, and the
 * peak made good when the heap is highest at the moment it is read.
 * Allocation-free: the hook's dumps use prof_peak_now. */
#include "core/prof.h"

int prof_select_peak(prof *p)
{
	if (!p->meta.peak.time_ns)
		return -1;
	for (size_t i = 0; i < p->samples.len; i++) {
		prof_sample *s = &p->samples.v[i];
		s->c = (mp_counts){ s->peak_objs, s->peak_bytes, 0, 0 };
	}
	return 0;
}

void prof_peak_now(prof *p, int64_t now_ns)
{
	uint64_t b = 0, o = 0;
	for (size_t i = 0; i < p->samples.len; i++) {
		uint64_t so, sb;
		counts_inuse(&p->samples.v[i].c, &so, &sb);
		b += sb;
		o += so;
	}
	if (p->meta.peak.time_ns && b <= p->meta.peak.bytes)
		return;
	for (size_t i = 0; i < p->samples.len; i++) {
		prof_sample *s = &p->samples.v[i];
		counts_inuse(&s->c, &s->peak_objs, &s->peak_bytes);
	}
	p->meta.peak.time_ns = now_ns;
	p->meta.peak.bytes = b;
	p->meta.peak.objs = o;
}
