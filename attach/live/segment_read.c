/* segment_read.c - consumer of the live segment.  The producer keeps
 * writing while we read, and a segment may be corrupt or hostile: every
 * count is clamped to its capacity and every index checked before use. */
#include "attach/live/segment_read.h"
#include "attach/shared/elfsym.h"
#include "attach/proc/procfs.h"
#include "attach/live/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SEG_READ_MAX_DEPTH 4096

static int region_ok(const seg_header *h, int r, uint64_t need, size_t len)
{
	return h->off[r] % 8 == 0 && h->off[r] >= sizeof(seg_header) && h->off[r] <= len &&
	       h->size[r] <= len - h->off[r] && h->size[r] >= need;
}

static int mul_ok(uint64_t n, uint64_t elem, uint64_t *out)
{
	return !__builtin_mul_overflow(n, elem, out);
}

/* Checks a copy of the header (the producer, or anyone with write access,
 * may change the mapping while we read: only the copy is trusted). */
static int header_check(const seg_header *h, size_t len, const char *name, prof_error *err)
{
	if (memcmp(h->magic, SEG_MAGIC, 8)) {
		prof_errorf(err, "%s: offset 0: not an mprof segment", name);
		return -1;
	}
	if (h->version != SEG_VERSION || h->header_size != sizeof(seg_header)) {
		prof_errorf(err, "%s: offset 8: segment version %u (header %u bytes), this mprof reads version %u",
			    name, h->version, h->header_size, SEG_VERSION);
		return -1;
	}
	if (h->file_size > len) {
		prof_errorf(err, "%s: offset 16: segment claims %llu bytes, %zu mapped", name,
			    (unsigned long long)h->file_size, len);
		return -1;
	}
	uint64_t ncnt;
	if (!h->counter_lanes || h->counter_lanes > SEG_MAX_LANES || h->lane_cap > h->stack_cap ||
	    __builtin_mul_overflow(h->counter_lanes - 1, h->lane_cap, &ncnt) ||
	    __builtin_add_overflow(ncnt, h->stack_cap, &ncnt)) {
		prof_errorf(err, "%s: offset %zu: bad counter lanes", name, offsetof(seg_header, counter_lanes));
		return -1;
	}
	struct { int r; uint64_t cap, elem; const char *what; } need[] = {
		{ SEG_R_STACKS, h->stack_cap, sizeof(seg_stack), "stacks" },
		{ SEG_R_COUNTERS, ncnt, sizeof(mp_counts), "counters" },
		{ SEG_R_FRAMES, h->frame_cap, sizeof(uint64_t), "frames" },
		{ SEG_R_HASH, h->hash_cap, sizeof(uint32_t), "hash" },
		{ SEG_R_RING, h->ring_cap, sizeof(seg_slot), "ring" },
		{ SEG_R_MODULES, h->module_cap, sizeof(seg_module), "modules" },
	};
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		uint64_t bytes;
		if (!mul_ok(need[i].cap, need[i].elem, &bytes) || !region_ok(h, need[i].r, bytes, len)) {
			prof_errorf(err, "%s: offset %zu: %s region out of bounds", name,
				    offsetof(seg_header, off) + (size_t)need[i].r * 8, need[i].what);
			return -1;
		}
	}
	if (h->stack_cap >= UINT32_MAX || (h->ring_cap & (h->ring_cap - 1)) ||
	    (h->hash_cap & (h->hash_cap - 1))) {
		prof_errorf(err, "%s: offset %zu: bad capacities", name, offsetof(seg_header, stack_cap));
		return -1;
	}
	return 0;
}

/* Copies the header out of data (len bytes) and checks the copy. */
static int header_copy(seg_header *hc, const void *data, size_t len, const char *name, prof_error *err)
{
	if (len < sizeof(seg_header)) {
		prof_errorf(err, "%s: offset 0: not an mprof segment", name);
		return -1;
	}
	memcpy(hc, data, sizeof(*hc));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return header_check(hc, len, name, err);
}

int seg_validate(const void *data, size_t len, const char *name, prof_error *err)
{
	seg_header hc;
	return header_copy(&hc, data, len, name, err);
}

int seg_allocs_copy(const void *data, size_t len, seg_alloc *out, int cap)
{
	seg_header hc;
	prof_error err;
	if (header_copy(&hc, data, len, "segment", &err) || !hc.alloc_off || hc.alloc_off % 8 ||
	    hc.alloc_off < sizeof(seg_header) || hc.alloc_off > len || len - hc.alloc_off < sizeof(seg_allocs))
		return 0;   /* a hook older than the table, or a bad offset */
	const seg_allocs *t = (const seg_allocs *)((const char *)data + hc.alloc_off);
	uint32_t tcap = __atomic_load_n(&t->cap, __ATOMIC_RELAXED);
	uint32_t n = __atomic_load_n(&t->count, __ATOMIC_ACQUIRE);
	if (tcap > (len - hc.alloc_off - sizeof(seg_allocs)) / sizeof(seg_alloc))
		return 0;
	n = n < tcap ? n : tcap;
	n = n < (uint32_t)cap ? n : (uint32_t)cap;
	for (uint32_t i = 0; i < n; i++) {   /* a copy, its strings ended */
		memcpy(&out[i], (const seg_alloc *)(t + 1) + i, sizeof(seg_alloc));
		out[i].prefix[sizeof(out[i].prefix) - 1] = 0;
		out[i].note[sizeof(out[i].note) - 1] = 0;
		out[i].path[sizeof(out[i].path) - 1] = 0;
	}
	return (int)n;
}

int seg_path_of(int pid, char *path, size_t len)
{
	proc_status st;
	int inner = !proc_status_read(pid, &st) && st.nspid > 0 ? (int)st.nspid : pid;
	if (inner != pid || proc_other_ns(pid, "mnt")) {
		snprintf(path, len, "/proc/%d/root" SEG_PATH_FMT, pid, inner);
		return inner;
	}
	snprintf(path, len, SEG_PATH_FMT, pid);
	return pid;
}

/* rest (relative) opened below dir one component at a time, none of them
 * a symbolic link: openat2's rule where the kernel has no openat2. */
static int open_beneath(int dir, const char *rest, int flags)
{
	char comp[256];
	int cur = dir;
	for (;;) {
		size_t n = strcspn(rest, "/");
		if (!n || n >= sizeof(comp) || (n == 2 && !strncmp(rest, "..", 2))) {
			if (cur != dir)
				close(cur);
			errno = EINVAL;
			return -1;
		}
		memcpy(comp, rest, n);
		comp[n] = 0;
		int last = !rest[n];
		int fd = openat(cur, comp, last ? flags | O_NOFOLLOW | O_CLOEXEC : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		if (cur != dir)
			close(cur);
		if (fd < 0 || last) {
			errno = fd < 0 && e == ENOTDIR ? ELOOP : e;   /* a symlink where a directory was */
			return fd;
		}
		cur = fd;
		rest += n + 1;
	}
}

int seg_file_open(const char *path, int flags)
{
	int pid, k = 0;
	if (sscanf(path, "/proc/%d/root/%n", &pid, &k) != 1 || !k)
		return open(path, flags | O_NOFOLLOW | O_CLOEXEC);
	char root[64];
	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	int dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -1;
	struct open_how how = { .flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, dir, path + k, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = open_beneath(dir, path + k, flags);
	int e = errno;
	close(dir);
	errno = e;
	return fd;
}

int seg_owner_ok(const char *path, unsigned owner)
{
	if (owner == geteuid())
		return 1;
	const char *base = strrchr(path, '/');
	int pid, host;
	char end;
	proc_status st;
	if (geteuid() != 0 || sscanf(base ? base + 1 : path, "mprof-%d%c", &pid, &end) != 1 || pid <= 0)
		return 0;
	if (sscanf(path, "/proc/%d/root/", &host) == 1)
		pid = host;   /* a container's segment: the process is the host pid's */
	if (proc_status_read(pid, &st))
		return 0;
	return (long)owner == st.uid[1] || (long)owner == st.uid[3];
}

/* The magic not written yet, or caught while it is written: each of its
 * bytes still 0 or already the magic's (a reader may see a store half done). */
static int magic_coming(const void *p)
{
	const unsigned char *b = p;
	for (int i = 0; i < 8; i++)
		if (b[i] && b[i] != (unsigned char)SEG_MAGIC[i])
			return 0;
	return memcmp(p, SEG_MAGIC, 8) != 0;
}

/* Maps path (writable: for seg_sample requests) after the checks below;
 * *young is set when the file looks like a segment its hook is still
 * making (shorter than a header, or no magic yet: it is written last). */
static int seg_map_once(seg_map *m, const char *path, seg_header *hc, int writable, int *young, prof_error *err)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", path);
	int fd = seg_file_open(path, writable ? O_RDWR : O_RDONLY);
	if (fd < 0) {
		prof_errorf(err, "%s: %s", path, errno == ENOENT ? "no such segment (is the process running under libmprof.so?)"
						 : errno == ELOOP ? "a symbolic link on its path: refused (it could lead out of the container)"
						 : strerror(errno));
		return -1;
	}
	/* Another user could have put it there, or could change it: refused. */
	struct stat st;
	int trusted = 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		prof_errorf(err, "%s: not a regular file: refused", path);
	else if (!seg_owner_ok(path, st.st_uid))
		prof_errorf(err, "%s: owned by uid %u, not by you (uid %u)%s: refused", path, (unsigned)st.st_uid,
			    (unsigned)geteuid(), geteuid() ? "" : " nor by the process it names");
	else if ((st.st_mode & 07777) != 0600)
		prof_errorf(err, "%s: mode %04o, not 0600: refused (others could change what it says)", path,
			    (unsigned)(st.st_mode & 07777));
	else if (st.st_size < (off_t)sizeof(seg_header)) {
		prof_errorf(err, "%s: offset 0: %lld bytes, too short for a segment header", path,
			    (long long)st.st_size);
		*young = 1;
	} else
		trusted = 1;
	if (!trusted) {
		close(fd);
		return -1;
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		prof_errorf(err, "%s: cannot map: %s", path, strerror(errno));
		return -1;
	}
	/* The bounds used later are those of this copy, checked here, whatever
	 * is written to the mapping afterwards. */
	seg_header own;
	if (header_copy(hc ? hc : &own, p, (size_t)st.st_size, path, err)) {
		*young = magic_coming(p);
		munmap(p, (size_t)st.st_size);
		return -1;
	}
	m->h = p;
	m->len = (size_t)st.st_size;
	return 0;
}

/* A process just started under the hook (mprof-tui -- CMD, or a script
 * that attaches as soon as the file shows) may still be making its
 * segment: it is waited for, 1 s at most, before the refusal. */
static int seg_map_path(seg_map *m, const char *path, seg_header *hc, int writable, prof_error *err)
{
	for (int tries = 0;; tries++) {
		int young = 0;
		if (!seg_map_once(m, path, hc, writable, &young, err))
			return 0;
		if (!young || tries == 100)
			return -1;
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
}

int seg_open_path(seg_map *m, const char *path, seg_header *hc, prof_error *err)
{
	return seg_map_path(m, path, hc, 0, err);
}

/* /dev/shm/mprof-PID mapped as seg_map_path does; when there is no such
 * file, why (seg_missing: no process, or one without the hook). */
static int seg_map_pid(seg_map *m, int pid, seg_header *hc, int writable, prof_error *err)
{
	char path[64];
	seg_path_of(pid, path, sizeof(path));
	if (access(path, F_OK) && errno == ENOENT) {
		memset(m, 0, sizeof(*m));
		seg_missing(pid, NULL, err);
		return -1;
	}
	return seg_map_path(m, path, hc, writable, err);
}

int seg_open_arg(seg_map *m, const char *opt, const char *pid_arg, seg_header *hc, int writable, FILE *err)
{
	int pid = proc_pid_arg(pid_arg);
	if (pid < 0) {
		fprintf(err, "mprof-tui: %s takes one process id, not '%s'\n", opt, pid_arg);
		return -1;
	}
	prof_error e;
	if (seg_map_pid(m, pid, hc, writable, &e)) {
		fprintf(err, "mprof-tui: %s\n", e.msg);
		return -1;
	}
	return pid;
}

int seg_open(seg_map *m, int pid, prof_error *err)
{
	return seg_map_pid(m, pid, NULL, 0, err);
}

void seg_missing(int pid, const char *lib, prof_error *err)
{
	char comm[64], proc[64];
	snprintf(proc, sizeof(proc), "/proc/%d", pid);
	if (access(proc, F_OK)) {
		prof_errorf(err, PROC_NONE_FMT, pid);
		return;
	}
	proc_comm(pid, comm, sizeof(comm));
	char found[4096];
	prof_error lerr;
	if (!lib && !launch_find_lib(found, sizeof(found), &lerr))
		lib = found;
	prof_errorf(err, SEG_PATH_FMT ": no segment: process %d (%s) does not run under the hook; start it as "
		    "LD_PRELOAD=%s %s, or load the hook into it: mprof-tui --inject %d", pid, pid, comm,
		    lib ? lib : "/path/to/libmprof.so", comm[0] ? comm : "PROGRAM", pid);
}

seg_header *seg_map_header_rw(const seg_map *m, size_t *len, prof_error *err)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t hl = (sizeof(seg_header) + (size_t)pg - 1) / (size_t)pg * (size_t)pg;
	int fd = open(m->name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	seg_header *hw = fd < 0 ? MAP_FAILED : mmap(NULL, hl, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (hw == MAP_FAILED) {
		prof_errorf(err, "%s: cannot map for writing: %s", m->name, strerror(e));
		return NULL;
	}
	*len = hl;
	return hw;
}

const mp_counts *seg_window_counters(const seg_map *m, const seg_header *hc)
{
	uint64_t bytes;
	if (!mul_ok(hc->stack_cap, sizeof(mp_counts), &bytes) || hc->win_off % 8 ||
	    hc->win_off < sizeof(seg_header) || hc->win_off > m->len || m->len - hc->win_off < bytes)
		return NULL;
	return (const mp_counts *)((const char *)m->h + hc->win_off);
}

const seg_peak_stack *seg_peak_stacks(const void *data, size_t len, const seg_header *hc)
{
	uint64_t bytes, off = hc->peak.off;
	if (!off || !mul_ok(hc->stack_cap, sizeof(seg_peak_stack), &bytes) || off % 8 || off < sizeof(seg_header) ||
	    off > len || len - off < bytes)
		return NULL;
	return (const seg_peak_stack *)((const char *)data + off);
}

void seg_peak_meta(prof *p, const seg_header *live, const seg_peak_stack *ps, uint64_t seq)
{
	const seg_peak *pk = &live->peak;
	prof_peak m = { __atomic_load_n(&pk->time_ns, __ATOMIC_RELAXED), 0, __atomic_load_n(&pk->bytes, __ATOMIC_RELAXED),
			__atomic_load_n(&pk->objs, __ATOMIC_RELAXED) };
	uint64_t n = __atomic_load_n(&live->attaches, __ATOMIC_ACQUIRE);
	m.start_ns = n ? __atomic_load_n(&live->attach_ns, __ATOMIC_RELAXED) : live->start_time_ns;
	if (!ps || !seg_peak_whole(pk, seq))
		m = (prof_peak){ .start_ns = m.start_ns };   /* a copy written meanwhile: the peak is now */
	p->meta.peak = m;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	prof_peak_now(p, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
}

void seg_close(seg_map *m)
{
	if (m->h)
		munmap((void *)m->h, m->len);
	m->h = NULL;
}

static uint64_t clamp(uint64_t v, uint64_t cap)
{
	return v < cap ? v : cap;
}

/* h is the checked copy; live the mapped header, for the growing counts. */
static int add_modules(prof *p, const seg_header *h, const seg_header *live, const char *base)
{
	const seg_module *mods = (const seg_module *)(base + h->off[SEG_R_MODULES]);
	uint64_t n = clamp(__atomic_load_n(&live->module_count, __ATOMIC_ACQUIRE), h->module_cap);
	for (uint64_t i = 0; i < n; i++) {
		seg_module m;   /* a copy: the mapping may change under us */
		memcpy(&m, &mods[i], sizeof(m));
		char path[SEG_MOD_PATH], bid[SEG_MOD_BUILD_ID];
		snprintf(path, sizeof(path), "%.*s", (int)strnlen(m.path, SEG_MOD_PATH - 1), m.path);
		snprintf(bid, sizeof(bid), "%.*s", (int)strnlen(m.build_id, SEG_MOD_BUILD_ID - 1), m.build_id);
		if (prof_module_add(p, path, bid, m.base, m.size, m.offset) == PROF_NONE)
			return -1;
	}
	return 0;
}

static int name_frames(prof *p, const seg_header *h, const char *base)
{
	const seg_module *mods = (const seg_module *)(base + h->off[SEG_R_MODULES]);
	char buf[ELFSYM_NAME_BUF];
	for (uint32_t m = 0; m < p->modules.len; m++) {
		struct elfsym *es = NULL;
		int opened = 0;
		for (size_t i = 0; i < p->frames.len; i++) {
			if (p->frames.v[i].module != m)
				continue;
			/* Module strings may move as the pool grows: re-read each time. */
			if (!opened) {
				es = elfsym_open(prof_strat(p, p->modules.v[m].path));
				opened = 1;
			}
			const prof_module *pm = &p->modules.v[m];
			uint64_t bias = __atomic_load_n(&mods[m].bias, __ATOMIC_RELAXED);
			int n = elfsym_name(es, buf, sizeof(buf), prof_strat(p, pm->path), p->frames.v[i].addr,
					    bias, pm->base, pm->offset);
			uint32_t s = prof_str(p, buf, (size_t)n);
			if (s == PROF_NONE) {
				elfsym_close(es);
				return -1;
			}
			p->frames.v[i].name = s;
		}
		elfsym_close(es);
	}
	return 0;
}

prof *seg_to_prof(const void *data, size_t len, const char *name, prof_error *err)
{
	seg_header hc;
	if (header_copy(&hc, data, len, name, err))
		return NULL;
	const seg_header *h = &hc, *live = data;
	const char *base = data;
	prof *p = prof_new();
	if (!p)
		goto nomem;
	p->meta.format = PROF_FMT_NATIVE;
	p->meta.scale = seg_sample_scale(live);
	p->meta.pid = h->pid;
	p->meta.time = (int64_t)time(NULL);
	p->meta.unknown_frees = __atomic_load_n(&live->unknown_frees, __ATOMIC_RELAXED);
	p->meta.unknown_free_bytes = h->unknown_free_bytes;
	p->meta.dropped = __atomic_load_n(&live->dropped_stacks, __ATOMIC_RELAXED) +
			  __atomic_load_n(&live->dropped_live, __ATOMIC_RELAXED);
	size_t cl = strnlen(h->cmdline, sizeof(h->cmdline) - 1);
	if (cl && (p->meta.cmdline = prof_str(p, h->cmdline, cl)) == PROF_NONE)
		goto nomem;
	if (add_modules(p, h, live, base))
		goto nomem;

	const seg_stack *sts = (const seg_stack *)(base + h->off[SEG_R_STACKS]);
	const mp_counts *cnt = (const mp_counts *)(base + h->off[SEG_R_COUNTERS]);
	const uint64_t *pcs = (const uint64_t *)(base + h->off[SEG_R_FRAMES]);
	uint64_t ns = clamp(__atomic_load_n(&live->stack_count, __ATOMIC_ACQUIRE), h->stack_cap);
	uint64_t nf = clamp(__atomic_load_n(&live->frame_used, __ATOMIC_ACQUIRE), h->frame_cap);
	const seg_peak_stack *ps = seg_peak_stacks(data, len, h);
	uint64_t pseq = seg_peak_begin(&live->peak);
	for (uint64_t s = 0; s < ns; s++) {
		mp_counts c;
		if (!seg_stack_counters(h, sts, cnt, s, &c))
			continue;
		uint64_t ao = c.alloc_objs;
		/* Read once: a changing entry must not pass the check and then move. */
		uint32_t depth = __atomic_load_n(&sts[s].depth, __ATOMIC_RELAXED);
		uint64_t fo = __atomic_load_n(&sts[s].frame_off, __ATOMIC_RELAXED);
		if (depth > SEG_READ_MAX_DEPTH || fo > nf || depth > nf - fo) {
			p->meta.dropped += ao;
			continue;
		}
		uint32_t *dst = prof_stack_begin(p, depth);
		if (!dst)
			goto nomem;
		for (uint32_t k = 0; k < depth; k++) {
			uint32_t f = prof_frame_intern(p, __atomic_load_n(&pcs[fo + k], __ATOMIC_RELAXED));
			if (f == PROF_NONE)
				goto nomem;
			dst[k] = f;
		}
		uint32_t sid = prof_stack_commit(p, depth);
		if (sid == PROF_NONE ||
		    prof_sample_add(p, sid, 0, ao, c.alloc_bytes, c.free_objs, c.free_bytes))
			goto nomem;
		if (ps) {
			p->samples.v[p->samples.len - 1].peak_objs = __atomic_load_n(&ps[s].objs, __ATOMIC_RELAXED);
			p->samples.v[p->samples.len - 1].peak_bytes = __atomic_load_n(&ps[s].bytes, __ATOMIC_RELAXED);
		}
	}
	seg_peak_meta(p, live, ps, pseq);
	for (size_t i = 0; i < p->frames.len; i++) {
		p->frames.v[i].module = prof_module_find(p, p->frames.v[i].addr);
		if (prof_frame_name_truncated(p, (uint32_t)i))
			goto nomem;
	}
	if (name_frames(p, h, base))
		goto nomem;
	return p;
nomem:
	prof_errorf(err, "%s: out of memory", name);
	prof_free(p);
	return NULL;
}

void seg_since_text(const seg_header *h, char *buf, size_t cap)
{
	uint32_t flags = __atomic_load_n(&h->flags, __ATOMIC_ACQUIRE);
	uint64_t n = __atomic_load_n(&h->attaches, __ATOMIC_ACQUIRE);
	int64_t at = n ? __atomic_load_n(&h->attach_ns, __ATOMIC_RELAXED) : h->start_time_ns;
	time_t t = (time_t)(at / 1000000000);
	struct tm tm;
	char when[32] = "?";
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	const char *until = (flags & SEG_FLAG_DETACHED) ? ", until the detach" : "";
	if (!(flags & SEG_FLAG_LATE))
		snprintf(buf, cap, "since the start at %s", when);
	else if (!n)
		snprintf(buf, cap, "since the injection at %s%s (history before it is unknown)", when, until);
	else
		snprintf(buf, cap, "since the injection at %s%s (re-injected %llu time%s; blocks seen before the detach are forgotten)",
			 when, until, (unsigned long long)n, n == 1 ? "" : "s");
}
