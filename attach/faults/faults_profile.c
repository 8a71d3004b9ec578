/* faults_profile.c - the profile the faults build: started (again after
 * the target runs a new program) with its two root frames, and each
 * PERF_RECORD_SAMPLE decoded, its user stack unwound, and counted as a
 * page allocated at that stack and held by it until the page is given back
 * or faulted again, a sample per distinct stack under its kind's root. */
#include "attach/faults/faults_int.h"
#include "core/hash.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int faults_prof_start(faults *f)
{
	prof *p = prof_new();
	if (!p)
		return -1;
	p->meta.format = PROF_FMT_NATIVE;
	p->meta.pid = f->pid;
	p->meta.time = (int64_t)time(NULL);
	p->meta.scale = 1;
	char path[64], cmd[4096];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", f->pid);
	FILE *fp = fopen(path, "re");
	size_t n = fp ? fread(cmd, 1, sizeof(cmd) - 1, fp) : 0;
	if (fp)
		fclose(fp);
	for (size_t i = 0; i + 1 < n; i++)
		if (!cmd[i])
			cmd[i] = ' ';
	if (n && cmd[n - 1] == 0)
		n--;
	if (n)
		p->meta.cmdline = prof_str(p, cmd, n);
	if (prof_frame_intern(p, FAULTS_MINOR_ADDR) == PROF_NONE || prof_frame_intern(p, FAULTS_MAJOR_ADDR) == PROF_NONE) {
		prof_free(p);
		return -1;
	}
	p->frames.v[0].name = prof_str(p, "[minor page faults]", 19);
	p->frames.v[1].name = prof_str(p, "[major page faults]", 19);
	prof_free(f->p);
	f->p = p;
	u64map_free(&f->stack_of);
	memset(&f->stack_of, 0, sizeof(f->stack_of));
	u64map_free(&f->pages);   /* the old program's pages went with it */
	memset(&f->pages, 0, sizeof(f->pages));
	f->st.held = 0;
	f->gen++;
	return 0;
}

/* The sample of this stack (leaf-first pcs under the kind's root), made
 * on first sight. PROF_NONE when out of memory. */
static uint32_t sample_of(faults *f, const uint64_t *pcs, size_t n, int kind)
{
	prof *p = f->p;
	uint64_t h = kind ? 0x9e3779b97f4a7c15ULL : 0;
	for (size_t i = 0; i < n; i++)
		h = hash_mix64(h ^ pcs[i]) + i;
	for (;; h = hash_mix64(h + 1)) {
		uint32_t s = u64map_get(&f->stack_of, h);
		if (s == U64MAP_NONE)
			break;
		const prof_stack *st = &p->stacks.v[p->samples.v[s].stack];
		const uint32_t *fr = prof_stack_frames(p, p->samples.v[s].stack);
		if (st->depth != n + 1 || fr[n] != (uint32_t)kind)
			continue;
		size_t i = 0;
		while (i < n && p->frames.v[fr[i]].addr == pcs[i])
			i++;
		if (i == n)
			return s;
	}
	uint32_t fr[FAULTS_MAX_DEPTH + 1];
	for (size_t i = 0; i < n; i++) {
		size_t had = p->frames.len;
		if ((fr[i] = prof_frame_intern(p, pcs[i])) == PROF_NONE)
			return PROF_NONE;
		if (p->frames.len > had)
			p->frames.v[fr[i]].module = prof_module_find(p, pcs[i]);
	}
	fr[n] = (uint32_t)kind;   /* frames 0 and 1 are the roots */
	uint32_t st = prof_stack_add(p, fr, (uint32_t)n + 1);
	if (st == PROF_NONE || prof_sample_add(p, st, (uint64_t)f->page_size, 0, 0, 0, 0))
		return PROF_NONE;
	uint32_t s = (uint32_t)p->samples.len - 1;
	return u64map_put(&f->stack_of, h, s) ? PROF_NONE : s;
}

typedef struct rd {
	const uint8_t *p, *end;
} rd;

static int rd_u64(rd *r, uint64_t *v)
{
	if (r->end - r->p < 8)
		return -1;
	memcpy(v, r->p, 8);
	r->p += 8;
	return 0;
}

/* One PERF_RECORD_SAMPLE: IDENTIFIER, IP, TID, TIME, ADDR, REGS_USER,
 * STACK_USER.  Every fault is a page made (allocated); a fault on a page
 * held already means the one held had gone (given back, or the zero
 * page a read mapped, copied at a write): the page moves to this stack. */
int faults_on_sample(faults *f, const uint8_t *rec, size_t len)
{
	rd r = { rec + sizeof(struct perf_event_header), rec + len };
	const struct perf_event_header *h = (const void *)rec;
	uint64_t id, ip, pidtid, when, addr, abi, regs[24], size = 0, dyn = 0;
	if (rd_u64(&r, &id) || rd_u64(&r, &ip) || rd_u64(&r, &pidtid) || rd_u64(&r, &when) || rd_u64(&r, &addr) ||
	    rd_u64(&r, &abi))
		return 0;
	int pid = (int)(uint32_t)pidtid, tid = (int)(pidtid >> 32);
	int nregs = abi ? __builtin_popcountll(FAULTS_REGS_MASK) : 0;
	for (int i = 0; i < nregs; i++)
		if (rd_u64(&r, &regs[i]))
			return 0;
	const uint8_t *stack = NULL;
	if (rd_u64(&r, &size) == 0 && size) {
		if ((uint64_t)(r.end - r.p) < size + 8)
			return 0;
		stack = r.p;
		r.p += size;
		rd_u64(&r, &dyn);
		if (dyn > size)
			dyn = size;
	}
	if (pid != f->pid)
		return 1;
	uint32_t kind = u64map_get(&f->ids, id);
	kind = kind == 1;
	if (h->misc & PERF_RECORD_MISC_KERNEL)
		f->st.in_kernel++;
	uint64_t pcs[FAULTS_MAX_DEPTH];
	size_t n = 0;
	if (nregs == 17) {
		/* perf's order (AX BX CX DX SI DI BP SP IP R8..R15) to DWARF's. */
		uint64_t dw[FAULTS_NREGS] = { regs[0], regs[3], regs[2], regs[1], regs[4], regs[5], regs[6], regs[7],
					      regs[9], regs[10], regs[11], regs[12], regs[13], regs[14], regs[15], regs[16],
					      regs[8] };
		n = stackunw_stack(f->unw, tid, dw, stack, (size_t)dyn, pcs, FAULTS_MAX_DEPTH);
		/* A fault the kernel took in a system call: the user pc is where
		 * the call returns to, a return address already. */
		if (n && (h->misc & PERF_RECORD_MISC_KERNEL))
			pcs[0]--;
	}
	if (n == 0)
		pcs[n++] = ip + 1;
	if (n == 1)
		f->st.pc_only++;
	uint32_t s = sample_of(f, pcs, n, (int)kind);
	if (s == PROF_NONE)
		return -1;
	uint64_t page = addr / (uint64_t)f->page_size;
	if (!f->pages.vals && u64map_init(&f->pages, 4096))
		return -1;
	size_t at = u64map_slot(&f->pages, page);
	uint32_t had = f->pages.vals[at];
	if (had != U64MAP_NONE) {
		f->st.repeats++;
		faults_page_left(f, had);
		f->pages.vals[at] = s;
	} else if (u64map_add_at(&f->pages, at, page, s)) {
		return -1;
	}
	mp_counts *c = &f->p->samples.v[s].c;
	c->alloc_objs++;
	c->alloc_bytes += (uint64_t)f->page_size;
	if (kind)
		f->st.major_pages++;
	else
		f->st.minor_pages++;
	f->st.held = f->pages.used;
	return 1;
}

void faults_page_left(faults *f, uint32_t s)
{
	if (s >= f->p->samples.len)
		return;
	mp_counts *c = &f->p->samples.v[s].c;
	c->free_objs++;
	c->free_bytes += (uint64_t)f->page_size;
}
