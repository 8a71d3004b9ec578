/* faults_maps.c - the target's mappings as modules of the profile (and
 * of the unwinder): its executable file mappings read from /proc/PID/maps
 * when attached, then those the kernel reports in its mmap records; and
 * the other non-sample records, lost samples and a new program run. */
#include "attach/faults/faults_int.h"
#include "attach/proc/maps.h"

#include <string.h>

/* The module of a file mapping, added to the profile (one per file and
 * base; a later segment widens it). */
static void map_file(faults *f, const char *path, uint64_t start, uint64_t end, uint64_t pgoff)
{
	if (path[0] != '/')
		return;
	char bid[128];
	if (stackunw_map(f->unw, path, start, end, pgoff, bid, sizeof(bid)) < 0)
		bid[0] = 0;
	prof *p = f->p;
	uint64_t base = start - pgoff;
	for (size_t i = 0; i < p->modules.len; i++) {
		prof_module *m = &p->modules.v[i];
		if (m->base == base && !strcmp(prof_strat(p, m->path), path)) {
			if (end - base > m->size)
				m->size = end - base;
			return;
		}
	}
	prof_module_add(p, path, bid[0] ? bid : NULL, base, end - base, 0);
}

/* The executable file mappings of /proc/PID/maps (a process attached to). */
void faults_maps_scan(faults *f)
{
	proc_maps r;
	proc_map m;
	if (proc_maps_open(&r, f->pid))
		return;
	while (proc_maps_next(&r, &m))
		if (m.perms[2] == 'x')
			map_file(f, m.path, m.lo, m.hi, m.offset);
	proc_maps_close(&r);
}

/* The non-sample records: mappings, a new program, lost samples. */
void faults_on_meta(faults *f, const uint8_t *rec, size_t len)
{
	const struct perf_event_header *h = (const void *)rec;
	const uint8_t *b = rec + sizeof(*h);
	size_t bl = len - sizeof(*h);
	if (h->type == PERF_RECORD_LOST && bl >= 16) {
		uint64_t lost;
		memcpy(&lost, b + 8, 8);
		f->st.lost += lost;
		f->p->meta.dropped = f->st.lost;
	} else if (h->type == PERF_RECORD_MMAP2 && bl > 64) {
		uint32_t pid;
		uint64_t start, mlen, pgoff;
		memcpy(&pid, b, 4);
		memcpy(&start, b + 8, 8);
		memcpy(&mlen, b + 16, 8);
		memcpy(&pgoff, b + 24, 8);
		char path[4096];
		size_t pl = strnlen((const char *)b + 64, bl - 64);
		if ((int)pid != f->pid || pl >= sizeof(path))
			return;
		memcpy(path, b + 64, pl);
		path[pl] = 0;
		map_file(f, path, start, start + mlen, pgoff);
	} else if (h->type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC) && bl >= 8) {
		uint32_t pid;
		memcpy(&pid, b, 4);
		if ((int)pid != f->pid || (f->p->samples.len == 0 && f->p->modules.len == 0))
			return;
		/* A new program: the old one's pages and modules are gone. */
		f->st.execs++;
		stackunw_reset(f->unw);
		if (faults_prof_start(f) == 0)
			f->p->meta.dropped = f->st.lost;
	}
}
