/* follow.c - the live consumer (see follow.h). The producer keeps writing
 * while we read and a segment may be hostile: bounds come from the header
 * copy taken when it was validated, counts are clamped to capacities and
 * every index is checked before use. */
#include "attach/live/follow.h"
#include "attach/shared/elfsym.h"
#include "attach/proc/procfs.h"
#include "core/heap_scale.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FOLLOW_MAX_DEPTH 4096

static uint64_t clamp(uint64_t v, uint64_t cap)
{
	return v < cap ? v : cap;
}

/* Says we read the ring (segment.h's seg_ring_beat).  1 when the last beat
 * was so long ago that the hook may have left events out. */
static int follow_beat(follow *f)
{
	if (!f->hw)
		return 0;
	int64_t now = follow_now_ns(f);
	int gap = f->beat_ns && now - f->beat_ns > SEG_RING_STALE_NS / 2;
	seg_ring_beat(f->hw, now);
	f->beat_ns = now;
	return gap;
}

/* Reads events from the ring's head on, the timeline's value taken from the
 * counters at the next sync: at the attach, and after events were missed. */
static void ring_restart(follow *f)
{
	f->ring_pos = __atomic_load_n(&f->m.h->ring_head, __ATOMIC_ACQUIRE);
	f->resync = 1;
}

/* follow_open_path for the process pid whose header says inner (its pid
 * in its own namespace). */
static int follow_map(follow *f, const char *path, int pid, int inner, prof_error *err)
{
	memset(f, 0, sizeof(*f));
	f->pid = pid;
	f->child_status = -1;
	if (seg_open_path(&f->m, path, &f->hc, err))
		return -1;
	if (pid > 0 && f->hc.pid != inner) {
		prof_errorf(err, "%s: offset %zu: segment of pid %lld, not %d", path, offsetof(seg_header, pid),
			    (long long)f->hc.pid, inner);
		seg_close(&f->m);
		return -1;
	}
	f->p = prof_new();
	if (!f->p) {
		follow_close(f);
		prof_errorf(err, "%s: out of memory", path);
		return -1;
	}
	f->p->meta.format = PROF_FMT_NATIVE;
	f->p->meta.scale = seg_sample_scale(f->m.h);
	f->p->meta.pid = f->hc.pid;
	size_t cl = strnlen(f->hc.cmdline, sizeof(f->hc.cmdline) - 1);
	if (cl)
		f->p->meta.cmdline = prof_str(f->p, f->hc.cmdline, cl);
	/* The hook writes events only while someone beats (segment.h): a
	 * segment we may not write gets the counters only. */
	prof_error ignored;
	f->hw = seg_map_header_rw(&f->m, &f->hw_len, &ignored);
	f->attaches = f->hc.attaches;
	follow_beat(f);
	ring_restart(f);
	tl_init(&f->tl, 100 * 1000000LL);
	tl_advance(&f->tl, follow_now_ns(f) / f->tl.bucket_ns);   /* the run starts at the attach */
	return 0;
}

int follow_open_path(follow *f, const char *path, int pid, prof_error *err)
{
	return follow_map(f, path, pid, pid, err);
}

int follow_proc_check(int pid, char *comm, size_t comm_len, prof_error *err)
{
	char proc[64];
	struct stat st;
	snprintf(proc, sizeof(proc), "/proc/%d", pid);
	if (pid <= 0 || stat(proc, &st)) {
		prof_errorf(err, PROC_NONE_FMT, pid);
		return -1;
	}
	proc_comm(pid, comm, comm_len);
	if (st.st_uid != geteuid() && geteuid() != 0) {
		struct passwd *pw = getpwuid(st.st_uid);
		prof_errorf(err, "process %d (%s) belongs to %s (uid %u), not to you: refused", pid, comm,
			    pw ? pw->pw_name : "another user", (unsigned)st.st_uid);
		return -1;
	}
	return 0;
}

int follow_open(follow *f, int pid, const char *lib, prof_error *err)
{
	char comm[64];
	memset(f, 0, sizeof(*f));
	if (follow_proc_check(pid, comm, sizeof(comm), err))
		return -1;
	char path[64];
	int inner = seg_path_of(pid, path, sizeof(path));
	if (access(path, F_OK) && errno == ENOENT) {
		seg_missing(pid, lib, err);
		return -1;
	}
	return follow_map(f, path, pid, inner, err);
}

void follow_close(follow *f)
{
	for (size_t i = 0; f->es && i < f->nmods; i++)
		elfsym_close(f->es[i]);
	free(f->es);
	free(f->es_tried);
	free(f->sample_of);
	free(f->seg_of);
	free(f->pending);
	prof_free(f->p);
	if (f->hw)   /* the beat is left to go stale: another follower may beat too */
		munmap(f->hw, f->hw_len);
	seg_close(&f->m);
	memset(f, 0, sizeof(*f));
}

int64_t follow_now_ns(const follow *f)
{
	if (f->exited && f->exit_mono_ns)
		return f->exit_mono_ns;
	return seg_event_clock(&f->hc);   /* the producer's event clock */
}

int64_t follow_rss(int pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/statm", pid);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return -1;
	long long size, res;
	int n = fscanf(fp, "%lld %lld", &size, &res);
	fclose(fp);
	return n == 2 ? res * (int64_t)sysconf(_SC_PAGESIZE) : -1;
}

int follow_check_exit(follow *f)
{
	if (f->child > 0 && f->child_status < 0) {
		int st;
		if (waitpid(f->child, &st, WNOHANG) == f->child)
			f->child_status = st;
	}
	if (f->exited)
		return 1;
	int gone = f->pid <= 0 || (f->child > 0 && f->child_status >= 0) ||
		   __atomic_load_n(&f->m.h->state, __ATOMIC_ACQUIRE) == SEG_STATE_EXITED || proc_gone(f->pid);
	if (!gone && proc_has_hook(f->pid) == 0) {
		/* Ran a new program without the hook; or with it, still being
		 * loaded by ld.so (then a new segment follows): gone only when the
		 * hook stays away. */
		int64_t now = follow_now_ns(f);
		if (!f->nohook_ns)
			f->nohook_ns = now;
		gone = now - f->nohook_ns >= FOLLOW_NOHOOK_NS;
	} else if (!gone) {
		f->nohook_ns = 0;
	}
	if (gone) {
		f->exit_mono_ns = follow_now_ns(f);
		f->exited = 1;
	}
	return f->exited;
}

int follow_execd(const follow *f)
{
	if (f->pid <= 0 || f->exited || !f->m.h)
		return 0;
	seg_header h;   /* the file at the path we mapped, its pid the one our header holds */
	return seg_file_header(f->m.name, &h) && h.pid == f->hc.pid &&
	       (h.start_mono_ns != f->hc.start_mono_ns || h.start_time_ns != f->hc.start_time_ns);
}

/* ---- the profile mirror -------------------------------------------------- */

static const char *base_of(const follow *f)
{
	return (const char *)f->m.h;
}

static int add_modules(follow *f, uint64_t n)
{
	const seg_module *mods = (const seg_module *)(base_of(f) + f->hc.off[SEG_R_MODULES]);
	struct elfsym **es = realloc(f->es, (size_t)n * sizeof(*es));
	if (!es)
		return -1;
	f->es = es;
	uint8_t *tried = realloc(f->es_tried, (size_t)n);
	if (!tried)
		return -1;
	f->es_tried = tried;
	for (uint64_t i = f->nmods; i < n; i++) {
		char path[SEG_MOD_PATH], bid[SEG_MOD_BUILD_ID];
		snprintf(path, sizeof(path), "%.*s", (int)strnlen(mods[i].path, SEG_MOD_PATH - 1), mods[i].path);
		snprintf(bid, sizeof(bid), "%.*s", (int)strnlen(mods[i].build_id, SEG_MOD_BUILD_ID - 1),
			 mods[i].build_id);
		if (prof_module_add(f->p, path, bid, mods[i].base, mods[i].size, mods[i].offset) == PROF_NONE)
			return -1;
		f->es[i] = NULL;
		f->es_tried[i] = 0;
		f->nmods = (size_t)i + 1;
	}
	return 0;
}

/* Names frame i "path(sym+0xoff) [0xaddr]" as the hook's dumps do. */
static int name_frame(follow *f, size_t i)
{
	prof *p = f->p;
	prof_frame *fr = &p->frames.v[i];
	fr->module = prof_module_find(p, fr->addr);
	if (fr->module == PROF_NONE)
		return prof_frame_name_truncated(p, (uint32_t)i);
	uint32_t m = fr->module;
	if (!f->es_tried[m]) {
		f->es[m] = elfsym_open(prof_strat(p, p->modules.v[m].path));
		f->es_tried[m] = 1;
	}
	const seg_module *mods = (const seg_module *)(base_of(f) + f->hc.off[SEG_R_MODULES]);
	char buf[ELFSYM_NAME_BUF], path[SEG_MOD_PATH];
	snprintf(path, sizeof(path), "%s", prof_strat(p, p->modules.v[m].path));
	const prof_module *pm = &p->modules.v[m];
	int n = elfsym_name(f->es[m], buf, sizeof(buf), path, fr->addr, mods[m].bias, pm->base, pm->offset);
	uint32_t s = prof_str(p, buf, (size_t)n);
	if (s == PROF_NONE)
		return -1;
	p->frames.v[i].name = s;
	return 0;
}

enum { ADD_DONE, ADD_AGAIN, ADD_NOMEM };

static int try_add(follow *f, uint64_t id, uint64_t nframes)
{
	const seg_stack *sts = (const seg_stack *)(base_of(f) + f->hc.off[SEG_R_STACKS]);
	const uint64_t *pcs = (const uint64_t *)(base_of(f) + f->hc.off[SEG_R_FRAMES]);
	uint32_t state = __atomic_load_n(&sts[id].state, __ATOMIC_ACQUIRE);
	if (state == SEG_STACK_DUP)
		return ADD_DONE;
	if (state != SEG_STACK_READY)
		return ADD_AGAIN;
	uint32_t depth = sts[id].depth;
	uint64_t fo = sts[id].frame_off;
	if (depth > FOLLOW_MAX_DEPTH || fo > nframes || depth > nframes - fo) {
		f->p->meta.dropped++;
		return ADD_DONE;
	}
	prof *p = f->p;
	uint32_t *dst = prof_stack_begin(p, depth);
	if (!dst)
		return ADD_NOMEM;
	for (uint32_t k = 0; k < depth; k++) {
		uint32_t fr = prof_frame_intern(p, pcs[fo + k]);
		if (fr == PROF_NONE)
			return ADD_NOMEM;
		dst[k] = fr;
	}
	uint32_t sid = prof_stack_commit(p, depth);
	if (sid == PROF_NONE || prof_sample_add(p, sid, 0, 0, 0, 0, 0))
		return ADD_NOMEM;
	size_t k = p->samples.len - 1;
	uint32_t *so = realloc(f->seg_of, p->samples.len * sizeof(*so));
	if (!so)
		return ADD_NOMEM;
	f->seg_of = so;
	so[k] = (uint32_t)id;
	f->sample_of[id] = (uint32_t)k;
	return ADD_DONE;
}

static int pending_push(follow *f, uint64_t id)
{
	if (vec_grow((void **)&f->pending, &f->pending_cap, f->npending + 1, sizeof(*f->pending)))
		return -1;
	f->pending[f->npending++] = id;
	return 0;
}

int follow_sync(follow *f)
{
	const seg_header *h = f->m.h;
	prof *p = f->p;
	int ch = 0;
	size_t nframes0 = p->frames.len, nsamp0 = p->samples.len;
	uint64_t nm = clamp(__atomic_load_n(&h->module_count, __ATOMIC_ACQUIRE), f->hc.module_cap);
	if (nm > f->nmods) {
		if (add_modules(f, nm))
			return -1;
		/* Frames seen before their module was published get named now. */
		for (size_t i = 0; i < nframes0; i++)
			if (p->frames.v[i].module == PROF_NONE && name_frame(f, i))
				return -1;
		ch |= FOLLOW_FRAMES;
	}
	uint64_t ns = clamp(__atomic_load_n(&h->stack_count, __ATOMIC_ACQUIRE), f->hc.stack_cap);
	uint64_t nf = clamp(__atomic_load_n(&h->frame_used, __ATOMIC_ACQUIRE), f->hc.frame_cap);
	if (ns > f->seg_cap) {
		size_t cap = f->seg_cap ? f->seg_cap : 1024;
		while (cap < ns)
			cap *= 2;
		if (cap > f->hc.stack_cap)
			cap = (size_t)f->hc.stack_cap;
		uint32_t *so = realloc(f->sample_of, cap * sizeof(*so));
		if (!so)
			return -1;
		for (size_t i = f->seg_cap; i < cap; i++)
			so[i] = PROF_NONE;
		f->sample_of = so;
		f->seg_cap = cap;
	}
	size_t keep = 0;
	for (size_t i = 0; i < f->npending; i++) {
		int r = try_add(f, f->pending[i], nf);
		if (r == ADD_NOMEM)
			return -1;
		if (r == ADD_AGAIN)
			f->pending[keep++] = f->pending[i];
	}
	f->npending = keep;
	for (uint64_t id = f->scanned; id < ns; id++) {
		int r = try_add(f, id, nf);
		if (r == ADD_NOMEM || (r == ADD_AGAIN && pending_push(f, id)))
			return -1;
	}
	if (ns > f->scanned)
		f->scanned = ns;
	for (size_t i = nframes0; i < p->frames.len; i++)
		if (name_frame(f, i))
			return -1;
	if (p->frames.len != nframes0)
		ch |= FOLLOW_FRAMES;
	if (p->samples.len != nsamp0)
		ch |= FOLLOW_STACKS;

	/* The counters, in place: exact, or a moment stale. */
	const mp_counts *cnt = (const mp_counts *)(base_of(f) + f->hc.off[SEG_R_COUNTERS]);
	int64_t ib = 0, io = 0;
	int moved = 0;
	const seg_peak_stack *ps = seg_peak_stacks(f->m.h, f->m.len, &f->hc);
	uint64_t pseq = seg_peak_begin(&h->peak);
	for (size_t k = 0; k < p->samples.len; k++) {
		mp_counts c;
		seg_counter_estimate(&f->hc, cnt, f->seg_of[k], &c);
		prof_sample *s = &p->samples.v[k];
		if (ps) {
			s->peak_objs = __atomic_load_n(&ps[f->seg_of[k]].objs, __ATOMIC_RELAXED);
			s->peak_bytes = __atomic_load_n(&ps[f->seg_of[k]].bytes, __ATOMIC_RELAXED);
		}
		uint64_t ao = c.alloc_objs, ab = c.alloc_bytes, fo = c.free_objs, fb = c.free_bytes;
		moved |= (ao != s->c.alloc_objs) | (ab != s->c.alloc_bytes) | (fo != s->c.free_objs) | (fb != s->c.free_bytes);
		s->c.alloc_objs = ao;
		s->c.alloc_bytes = ab;
		s->c.free_objs = fo;
		s->c.free_bytes = fb;
		ib += (int64_t)(ab - fb);
		io += (int64_t)(ao - fo);
	}
	if (moved)
		ch |= FOLLOW_COUNTS;
	f->inuse_bytes = ib;
	f->inuse_objs = io;
	int64_t pk0 = p->meta.peak.time_ns;
	seg_peak_meta(p, h, ps, pseq);
	if (p->meta.peak.time_ns != pk0)
		ch |= FOLLOW_COUNTS;   /* a new peak: the at-peak view and the title move */
	p->meta.time = (int64_t)time(NULL);
	p->meta.unknown_frees = __atomic_load_n(&h->unknown_frees, __ATOMIC_RELAXED);
	p->meta.dropped = __atomic_load_n(&h->dropped_stacks, __ATOMIC_RELAXED) +
			  __atomic_load_n(&h->dropped_live, __ATOMIC_RELAXED);
	if (f->resync) {
		/* Attach time, or events were lost: the counters are the truth. */
		tl_heap(&f->tl, follow_now_ns(f), ib);
		f->resync = 0;
	}
	return ch;
}

void follow_since_note(const follow *f, char *buf, size_t cap)
{
	uint64_t uf = f->p->meta.unknown_frees;
	if (!f->attaches) {
		snprintf(buf, cap, "history before the attach is unknown (%llu older frees apart)", (unsigned long long)uf);
		return;
	}
	time_t t = (time_t)(__atomic_load_n(&f->m.h->attach_ns, __ATOMIC_RELAXED) / 1000000000);
	struct tm tm;
	char when[16] = "?";
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	snprintf(buf, cap, "counts since the re-injection at %s: blocks from before are forgotten (%llu older frees apart)",
		 when, (unsigned long long)uf);
}

/* ---- the ring ----------------------------------------------------------- */

uint64_t follow_drain_ring(const seg_slot *ring, uint64_t cap, uint64_t head, uint64_t *pos,
			   int64_t *value, timeline *tl, uint64_t *lost, uint64_t rate)
{
	uint64_t i = *pos, n = 0, mask = cap - 1;
	int64_t v = *value;
	if (head - i > cap) {   /* lapped: the oldest slots are gone */
		*lost += head - cap - i;
		i = head - cap;
	}
	if (tl->last < 0)
		tl_advance(tl, 0);
	tl_bucket *b = &tl->b[tl->last % TL_KEEP];
	int64_t bend = (tl->last + 1) * tl->bucket_ns, peak = tl->peak;
	seg_slot c;
	for (; i < head; i++) {
		const seg_slot *e = &ring[i & mask];
		uint64_t s1 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
		if (s1 != i + 1) {
			if (s1 > i + 1) {   /* overwritten by a later lap */
				(*lost)++;
				continue;
			}
			break;              /* not written yet: next time */
		}
		if (!seg_slot_copy(e, s1, &c) || c.len > SEG_SLOT_DATA) {
			(*lost)++;
			continue;
		}
		seg_event ev, prev = { .time_ns = c.time_ns, .tid = c.tid };
		const uint8_t *p = c.data, *end = c.data + c.len;
		for (uint32_t k = 0; k < c.n && (p = seg_slot_next(p, end, &prev, &ev)); k++) {
			int64_t t = (int64_t)ev.time_ns, size = (int64_t)ev.size;
			if (t >= bend) {   /* a new bucket starts from the value so far */
				tl->cur = v;
				tl_advance(tl, t / tl->bucket_ns);
				b = &tl->b[tl->last % TL_KEEP];
				bend = (tl->last + 1) * tl->bucket_ns;
			}
			if (rate) {   /* sampled: each event stands for 1/p of its kind, dithered by its key */
				uint64_t o, bb;
				heap_weight_at((uint64_t)size, rate, heap_weight_frac(ev.key), &o, &bb);
				size = (int64_t)bb;
			}
			v += ev.kind == SEG_EV_ALLOC ? size : -size;
			if (v > b->heap)
				b->heap = v;
			if (v > peak)
				peak = v;
			n++;
		}
	}
	tl->peak = peak;
	tl->cur = v;
	*pos = i;
	*value = v;
	return n;
}

uint64_t follow_drain(follow *f)
{
	const seg_header *h = f->m.h;
	if (!f->exited && follow_beat(f))
		ring_restart(f);   /* beats stopped for a while (stopped, suspended): events may be missing */
	uint64_t att = __atomic_load_n(&h->attaches, __ATOMIC_ACQUIRE);
	if (att != f->attaches) {   /* re-injected: the counts started afresh, the curve goes on from them */
		f->attaches = att;
		ring_restart(f);
	}
	uint64_t head = __atomic_load_n(&h->ring_head, __ATOMIC_ACQUIRE);
	uint64_t lost0 = f->lost_events, pos0 = f->ring_pos;
	int64_t v = f->tl.cur;
	const seg_slot *ring = (const seg_slot *)(base_of(f) + f->hc.off[SEG_R_RING]);
	/* Events are weighed at the rate in effect now: a change of rate
	 * (mprof-tui --sample-rate) resets the curve to the counters, which
	 * weigh each block at its own. */
	double scale = seg_sample_scale(h);
	uint64_t rate = __atomic_load_n(&h->sample_rate, __ATOMIC_RELAXED) ? (uint64_t)scale : 0;
	if (rate != f->rate) {
		f->rate = rate;
		f->resync = 1;
		f->p->meta.scale = scale;
	}
	uint64_t n = follow_drain_ring(ring, f->hc.ring_cap, head, &f->ring_pos, &v, &f->tl, &f->lost_events,
				       rate > 1 ? rate : 0);
	/* A slot its writer never finished (killed mid-write): skip it once
	 * the ring has moved well past it. */
	if (f->ring_pos == pos0 && head - f->ring_pos > f->hc.ring_cap / 2) {
		f->ring_pos++;
		f->lost_events++;
	}
	if (f->lost_events != lost0)
		f->resync = 1;
	int64_t now = follow_now_ns(f);
	if (!f->exited) {
		int64_t rss = follow_rss(f->pid);
		if (rss > 0)   /* 0: a zombie, its memory already gone */
			tl_rss(&f->tl, now, rss);
	}
	tl_advance(&f->tl, now / f->tl.bucket_ns);
	return n;
}
