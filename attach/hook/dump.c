/* dump.c - MPROF_OUT: writes the segment's stacks and counters as a profile
 * through core's writers.  The prof model is built in mmap'd arrays (the
 * writers only read it), so a dump never calls malloc and can run from a
 * signal handler while other threads keep allocating. */
#include "attach/hook/hook.h"
#include "core/atomicfile.h"
#include "core/load.h"
#include "core/u64map.h"

_Static_assert(SEG_FRAME_TRUNCATED == PROF_TRUNCATED_ADDR, "one address for [truncated]");

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


/* One mmap'd block per array; all freed by dump_free. */
typedef struct dump_mem {
	void *p[8];
	size_t n[8];
	int k;
} dump_mem;

static void *dm_get(dump_mem *m, size_t bytes)
{
	void *p = hook_map(bytes);
	if (p) {
		m->p[m->k] = p;
		m->n[m->k++] = bytes;
	}
	return p;
}

static void dm_free(dump_mem *m)
{
	for (int i = 0; i < m->k; i++)
		hook_unmap(m->p[i], m->n[i]);
}

static uint32_t str_add(prof *p, size_t cap, const char *s, size_t len)
{
	if (p->strs.len + len + 1 > cap)
		return PROF_NONE;
	return prof_str_put(p, s, len);
}

/* The newest module whose range holds pc, or PROF_NONE. */
static uint32_t module_of(const seg_module *mods, uint64_t n, uint64_t pc)
{
	for (uint64_t i = n; i-- > 0;)
		if (pc >= mods[i].base && pc - mods[i].base < mods[i].size)
			return (uint32_t)i;
	return PROF_NONE;
}

static int build(seg_header *h, prof *p, dump_mem *dm)
{
	uint64_t ns = __atomic_load_n(&h->stack_count, __ATOMIC_ACQUIRE);
	uint64_t nf = __atomic_load_n(&h->frame_used, __ATOMIC_ACQUIRE);
	uint64_t nm = __atomic_load_n(&h->module_count, __ATOMIC_ACQUIRE);
	if (ns > h->stack_cap)
		ns = h->stack_cap;
	if (nf > h->frame_cap)
		nf = h->frame_cap;
	const seg_stack *sts = seg_region(h, SEG_R_STACKS);
	const mp_counts *cnt = seg_region(h, SEG_R_COUNTERS);
	const uint64_t *pcs = seg_region(h, SEG_R_FRAMES);
	const seg_module *mods = seg_region(h, SEG_R_MODULES);
	const seg_peak_stack *pst = h->peak.off ? (const seg_peak_stack *)((char *)h + h->peak.off) : NULL;
	uint64_t pseq = seg_peak_begin(&h->peak);
	prof_peak pk = { h->peak.time_ns, h->attaches ? h->attach_ns : h->start_time_ns, h->peak.bytes,
			 h->peak.objs };

	uint64_t slots = 1024;
	while (slots < 2 * nf + 2)
		slots *= 2;
	size_t strcap = 4096 + sizeof(h->cmdline) + nm * (SEG_MOD_PATH + SEG_MOD_BUILD_ID) +
			nf * (SEG_MOD_PATH + ELFSYM_NAME_MAX + 64);
	uint64_t *hkeys = dm_get(dm, slots * sizeof(uint64_t));
	uint32_t *hvals = dm_get(dm, slots * sizeof(uint32_t));
	p->frames.v = dm_get(dm, (nf + 1) * sizeof(prof_frame));
	p->stack_frames.v = dm_get(dm, (nf + 1) * sizeof(uint32_t));
	p->stacks.v = dm_get(dm, (ns + 1) * sizeof(prof_stack));
	p->samples.v = dm_get(dm, (ns + 1) * sizeof(prof_sample));
	p->modules.v = dm_get(dm, (nm + 1) * sizeof(prof_module));
	p->strs.v = dm_get(dm, strcap);
	if (dm->k != 8)
		return -1;
	u64map fidx;   /* pc -> frame, over the mapped arrays: never grows */
	u64map_over(&fidx, hkeys, hvals, slots);

	p->meta.format = PROF_FMT_NATIVE;
	p->meta.pid = h->pid;
	p->meta.time = (int64_t)time(NULL);
	p->meta.scale = seg_sample_scale(h);
	p->meta.dropped = h->dropped_stacks + h->dropped_live;
	p->meta.unknown_frees = h->unknown_frees;
	p->meta.unknown_free_bytes = h->unknown_free_bytes;
	p->meta.cmdline = PROF_NONE;
	size_t cl = strnlen(h->cmdline, sizeof(h->cmdline) - 1);
	if (cl)
		p->meta.cmdline = str_add(p, strcap, h->cmdline, cl);

	for (uint64_t i = 0; i < nm; i++) {
		const seg_module *m = &mods[i];
		size_t bl = strnlen(m->build_id, SEG_MOD_BUILD_ID - 1);
		prof_module *pm = &p->modules.v[p->modules.len++];
		pm->path = str_add(p, strcap, m->path, strnlen(m->path, SEG_MOD_PATH - 1));
		pm->build_id = bl ? str_add(p, strcap, m->build_id, bl) : PROF_NONE;
		pm->base = m->base;
		pm->size = m->size;
		pm->offset = m->offset;
	}

	for (uint64_t s = 0; s < ns; s++) {
		mp_counts c;
		if (!seg_stack_counters(h, sts, cnt, s, &c))
			continue;
		uint32_t depth = sts[s].depth;
		if (sts[s].frame_off > nf || depth > nf - sts[s].frame_off)
			continue;
		uint32_t off = (uint32_t)p->stack_frames.len;
		for (uint32_t k = 0; k < depth; k++) {
			uint64_t pc = pcs[sts[s].frame_off + k];
			size_t j = u64map_slot(&fidx, pc);
			if (fidx.vals[j] == U64MAP_NONE) {
				u64map_set_at(&fidx, j, pc, (uint32_t)p->frames.len);
				p->frames.v[p->frames.len++] = (prof_frame){
					.addr = pc, .name = PROF_NONE, .module = module_of(mods, nm, pc) };
			}
			p->stack_frames.v[p->stack_frames.len++] = fidx.vals[j];
		}
		p->stacks.v[p->stacks.len] = (prof_stack){ .off = off, .depth = depth };
		p->samples.v[p->samples.len++] = (prof_sample){
			.stack = (uint32_t)p->stacks.len++,
			.c = c,
			.peak_objs = pst ? __atomic_load_n(&pst[s].objs, __ATOMIC_RELAXED) : 0,
			.peak_bytes = pst ? __atomic_load_n(&pst[s].bytes, __ATOMIC_RELAXED) : 0,
		};
	}
	/* a copy written meanwhile is of a peak reached now: the counters are it */
	p->meta.peak = pst && seg_peak_whole(&h->peak, pseq) ? pk : (prof_peak){ .start_ns = pk.start_ns };
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	prof_peak_now(p, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
	return 0;
}

/* Names every frame "path(sym+0xoff) [0xaddr]" like backtrace_symbols,
 * one module's symbol table open at a time. */
static void name_frames(seg_header *h, prof *p, size_t strcap)
{
	char buf[ELFSYM_NAME_BUF];
	for (size_t i = 0; i < p->frames.len; i++)   /* the root of a cut stack: named in v1 too */
		if (p->frames.v[i].addr == SEG_FRAME_TRUNCATED && p->frames.v[i].module == PROF_NONE)
			p->frames.v[i].name = str_add(p, strcap, PROF_TRUNCATED_NAME, sizeof(PROF_TRUNCATED_NAME) - 1);
	for (uint32_t m = 0; m < p->modules.len; m++) {
		struct elfsym *es = NULL;
		int opened = 0;
		const prof_module *pm = &p->modules.v[m];
		const char *path = p->strs.v + pm->path;
		for (size_t i = 0; i < p->frames.len; i++) {
			prof_frame *f = &p->frames.v[i];
			if (f->module != m)
				continue;
			if (!opened) {
				es = elfsym_open(path);
				opened = 1;
			}
			const seg_module *sm = (const seg_module *)seg_region(h, SEG_R_MODULES) + m;
			int n = elfsym_name(es, buf, sizeof(buf), path, f->addr, sm->bias, pm->base, pm->offset);
			if (n > 0)
				f->name = str_add(p, strcap, buf, (size_t)n);
		}
		elfsym_close(es);
	}
}

int dump_write(seg_header *h, const char *path, int v1)
{
	if (!h)
		return EINVAL;
	prof p;
	memset(&p, 0, sizeof(p));
	dump_mem dm = { .k = 0 };
	int rc = ENOMEM;
	char tmp[4096 + ATOMICFILE_SUFFIX];
	if (build(h, &p, &dm))
		goto out;
	name_frames(h, &p, dm.n[7]);
	int fd = atomicfile_open(path, tmp, sizeof(tmp), 0644);
	if (fd < 0) {
		rc = errno;
		goto out;
	}
	prof_error err;
	errno = 0;
	int w = v1 ? pro_v1_write(&p, fd, &err) : pro_native_write(&p, fd, &err);
	rc = w ? (errno ? errno : EIO) : 0;
	if (close(fd) && !rc)
		rc = errno;
	if (rc)
		unlink(tmp);
	else if (atomicfile_commit(tmp, path))
		rc = errno;
	if (!rc)
		__atomic_fetch_add(&h->dumps, 1, __ATOMIC_RELAXED);
out:
	dm_free(&dm);
	return rc;
}
