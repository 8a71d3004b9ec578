/* maps.c - MAPPED_LIBRARIES (a /proc/PID/maps copy) into modules. */
#include "core/maps.h"

#include <stdio.h>
#include <string.h>

int maps_read(prof *p, tscan *t, const char *name, prof_error *err)
{
	tspan l;
	uint32_t cur = PROF_NONE;
	char path[4096];
	while (tscan_line(t, &l)) {
		if (tspan_empty(l))
			continue;
		uint64_t start, end, foff;
		tspan w;
		if (!tspan_hex(&l, &start) || !tspan_lit(&l, "-") || !tspan_hex(&l, &end) || end < start ||
		    !tspan_word(&l, &w) || !tspan_hex(&l, &foff) || !tspan_word(&l, &w) || !tspan_word(&l, &w)) {
			prof_errorf(err, "%s: line %lu: not a maps line (start-end perms offset dev inode path)",
				    name, t->line);
			return -1;
		}
		tspan_ws(&l);
		size_t n = (size_t)(l.e - l.s);
		if (!n) {          /* anonymous memory: no module */
			cur = PROF_NONE;
			continue;
		}
		if (n >= sizeof(path))
			n = sizeof(path) - 1;
		memcpy(path, l.s, n);
		path[n] = 0;
		if (cur != PROF_NONE) {
			prof_module *m = &p->modules.v[cur];
			if (!strcmp(p->strs.v + m->path, path) && start >= m->base) {
				if (end - m->base > m->size)
					m->size = end - m->base;
				continue;
			}
		}
		cur = prof_module_add(p, path, NULL, start, end - start, foff);
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
	const char *path = p->strs.v + p->modules.v[m].path;
	const char *slash = strrchr(path, '/');
	return strncmp(slash ? slash + 1 : path, base, strlen(base)) == 0;
}
