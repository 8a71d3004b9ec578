/* maps.c - the memory-map trailer of a legacy heap profile into modules:
 * MAPPED_LIBRARIES: (a /proc/PID/maps copy) or "--- Memory map: ---"
 * (Google's brief "start-end: path" lines and "name=value" variables that
 * later paths use as $name), both read by either line form, as pprof does. */
#include "core/maps.h"

#include <stdio.h>
#include <string.h>

#define MAPS_VARS 16

/* The variables defined so far; spans point into the profile's bytes. */
typedef struct maps_vars {
	tspan k[MAPS_VARS], v[MAPS_VARS];
	int n;
} maps_vars;

int maps_is_trailer(tspan l)
{
	tspan_ws(&l);
	return tspan_starts(l, "MAPPED_LIBRARIES:") || tspan_starts(l, "--- Memory map: ---");
}

/* l without a glog prefix ("I1124 10:00:00.000 maps.cc:12] "), as pprof
 * reads it. */
static tspan log_prefix_cut(tspan l)
{
	const char *c = l.s;
	while (c < l.e && *c != '[' && *c != ']')
		c++;
	if (c + 1 >= l.e || *c != ']' || (c[1] != ' ' && c[1] != '\t'))
		return l;
	const char *d = c;
	while (d > l.s && d[-1] >= '0' && d[-1] <= '9')
		d--;
	if (d == c || d - 1 <= l.s || d[-1] != ':')
		return l;
	l.s = c + 1;
	return l;
}

/* "name=value": remembered (a later definition wins); 0 if l is not one. */
static int vars_define(maps_vars *mv, tspan l)
{
	tspan_ws(&l);
	const char *k = l.s;
	while (l.s < l.e && (*l.s == '_' || (*l.s >= 'a' && *l.s <= 'z') || (*l.s >= 'A' && *l.s <= 'Z') ||
			     (l.s > k && *l.s >= '0' && *l.s <= '9')))
		l.s++;
	tspan key = { k, l.s };
	if (key.s == key.e || !tspan_lit(&l, "="))
		return 0;
	tspan_ws(&l);
	while (l.e > l.s && (l.e[-1] == ' ' || l.e[-1] == '\t'))
		l.e--;
	int i = 0;
	while (i < mv->n && !((size_t)(mv->k[i].e - mv->k[i].s) == (size_t)(key.e - key.s) &&
			      !memcmp(mv->k[i].s, key.s, (size_t)(key.e - key.s))))
		i++;
	if (i == MAPS_VARS)
		return 1;   /* more than anyone writes: the rest stay unexpanded */
	if (i == mv->n)
		mv->n++;
	mv->k[i] = key;
	mv->v[i] = l;
	return 1;
}

/* path with every $name of a defined variable expanded, cut to len - 1. */
static void vars_expand(const maps_vars *mv, tspan path, char *out, size_t len)
{
	size_t n = 0;
	for (const char *c = path.s; c < path.e && n + 1 < len;) {
		int hit = -1;
		for (int i = 0; *c == '$' && i < mv->n && hit < 0; i++) {
			size_t kn = (size_t)(mv->k[i].e - mv->k[i].s);
			if ((size_t)(path.e - c - 1) >= kn && !memcmp(c + 1, mv->k[i].s, kn))
				hit = i;
		}
		if (hit < 0) {
			out[n++] = *c++;
			continue;
		}
		for (const char *v = mv->v[hit].s; v < mv->v[hit].e && n + 1 < len; v++)
			out[n++] = *v;
		c += 1 + (mv->k[hit].e - mv->k[hit].s);
	}
	out[n] = 0;
}

static int all_of(tspan w, const char *set)
{
	for (const char *c = w.s; c < w.e; c++)
		if (!strchr(set, *c))
			return 0;
	return w.s < w.e;
}

#define HEXDIGITS "0123456789abcdefABCDEF"

/* One mapping line into start, end, file offset, path (empty: anonymous)
 * and build id (empty: none); 0 if it is not one. Either /proc's
 * "start-end perms offset dev inode [path]" or pprof's brief form
 * "start-end[:] [perms] [path] [(@offset)] [build-id]". */
static int parse_line(tspan l, uint64_t *start, uint64_t *end, uint64_t *foff, tspan *path, tspan *bid)
{
	tspan w[6];
	int n = 0;
	if (!tspan_hex(&l, start))
		return 0;
	if (l.s < l.e && *l.s == '-')
		l.s++;
	if (!tspan_hex(&l, end) || *end < *start)
		return 0;
	if (l.s < l.e && *l.s == ':')
		l.s++;
	*foff = 0;
	path->s = path->e = bid->s = bid->e = l.e;
	tspan r = l;
	while (n < 6 && tspan_word(&r, &w[n]))
		n++;
	if (n >= 4 && all_of(w[0], "-rwxps") && all_of(w[1], HEXDIGITS) && all_of(w[2], HEXDIGITS ":") &&
	    all_of(w[3], "0123456789")) {
		tspan o = w[1];
		if (!tspan_hex(&o, foff))
			return 0;   /* offset over 64 bits */
		if (n > 4) {
			path->s = w[4].s;
			path->e = l.e;
			while (path->e > path->s && (path->e[-1] == ' ' || path->e[-1] == '\t'))
				path->e--;
		}
		return 1;
	}
	int i = 0;
	if (i < n && all_of(w[i], "-rwxps"))
		i++;
	if (i < n && *w[i].s != '(')
		*path = w[i++];
	if (i < n && w[i].e - w[i].s > 3 && !memcmp(w[i].s, "(@", 2) && w[i].e[-1] == ')') {
		tspan o = { w[i].s + 2, w[i].e - 1 };
		if (!tspan_hex(&o, foff) || o.s != o.e)
			return 0;
		i++;
	}
	if (i < n && all_of(w[i], HEXDIGITS))
		*bid = w[i++];
	return i == n && tspan_empty(r);
}

int maps_read(prof *p, tscan *t, const char *name, prof_error *err)
{
	tspan l;
	uint32_t cur = PROF_NONE;
	char path[4096];
	maps_vars mv = { .n = 0 };
	while (tscan_line(t, &l)) {
		if (tspan_empty(l))
			continue;
		uint64_t start, end, foff;
		tspan pt, bt;
		l = log_prefix_cut(l);
		if (!parse_line(l, &start, &end, &foff, &pt, &bt)) {
			if (vars_define(&mv, l))
				continue;
			prof_errorf(err, "%s: line %lu: not a maps line (start-end perms offset dev inode path, "
				    "start-end: path [(@offset)] [build-id], or name=value)", name, t->line);
			return -1;
		}
		if (pt.s == pt.e) {          /* anonymous memory: no module */
			cur = PROF_NONE;
			continue;
		}
		vars_expand(&mv, pt, path, sizeof(path));
		if (cur != PROF_NONE) {
			prof_module *m = &p->modules.v[cur];
			if (!strcmp(p->strs.v + m->path, path) && start >= m->base) {
				if (end - m->base > m->size)
					m->size = end - m->base;
				continue;
			}
		}
		char bid[256];
		size_t bn = (size_t)(bt.e - bt.s) < sizeof(bid) ? (size_t)(bt.e - bt.s) : sizeof(bid) - 1;
		memcpy(bid, bt.s, bn);
		bid[bn] = 0;
		cur = prof_module_add(p, path, bid, start, end - start, foff);
		if (cur == PROF_NONE) {
			prof_errorf(err, "%s: line %lu: out of memory", name, t->line);
			return -1;
		}
	}
	return 0;
}

void maps_assign_frames(prof *p)
{
	for (size_t i = 0; i < p->frames.len; i++)
		p->frames.v[i].module = prof_module_find(p, p->frames.v[i].addr);
}

int maps_frame_in(const prof *p, uint32_t f, const char *base)
{
	uint32_t m = p->frames.v[f].module;
	if (m == PROF_NONE)
		return 0;
	return maps_module_is(p, m, base);
}

int maps_module_is(const prof *p, uint32_t m, const char *base)
{
	const char *path = p->strs.v + p->modules.v[m].path;
	const char *slash = strrchr(path, '/');
	return strncmp(slash ? slash + 1 : path, base, strlen(base)) == 0;
}
