/* faults.c - page faults by call stack (see faults.h): the events (one per
 * thread, CPU and kind, inherited by the threads started later, all of a
 * CPU's written into one ring, as perf record does), the rings read with
 * the kernel's head/tail protocol, the process's mappings followed from
 * /proc/PID/maps and the kernel's mmap records, and the first touches. */
#include "attach/faults/faults.h"
#include "attach/proc/procfs.h"
#include "core/hash.h"
#include "core/prof.h"
#include "core/u64map.h"
#include "core/vec.h"
#include "symbols/stackunw.h"

#include <asm/perf_regs.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FAULTS_STACK_USER 8192       /* bytes of stack copied per sample, perf's default */
#define FAULTS_MAX_DEPTH 256
/* Ring bytes in all (a burst of faults must fit while the unwinder is
 * descheduled: 64 MiB is ~7,800 samples), at most 64 MiB and at least
 * 1 MiB a CPU, halved until the kernel agrees (mlock limits). */
#define FAULTS_RINGS_TOTAL ((size_t)128 << 20)
#define FAULTS_QUEUE_MAX ((size_t)512 << 20)   /* bytes of samples waiting to be unwound */

/* The x86-64 user registers the unwinder needs, in perf's numbering. */
#define FAULTS_REGS_MASK                                                                                        \
	((1ULL << PERF_REG_X86_AX) | (1ULL << PERF_REG_X86_BX) | (1ULL << PERF_REG_X86_CX) |                    \
	 (1ULL << PERF_REG_X86_DX) | (1ULL << PERF_REG_X86_SI) | (1ULL << PERF_REG_X86_DI) |                    \
	 (1ULL << PERF_REG_X86_BP) | (1ULL << PERF_REG_X86_SP) | (1ULL << PERF_REG_X86_IP) |                    \
	 (0xffULL << PERF_REG_X86_R8))
#define FAULTS_NREGS 17

typedef struct fring {
	int fd;                  /* the event whose buffer it is; -1: none yet */
	struct perf_event_mmap_page *mp;
	uint8_t *data;
	uint64_t size;           /* data bytes, a power of two */
} fring;

struct faults {
	int pid;
	pid_t child;
	int status;
	int gone;
	int ncpu;
	fring *rings;
	int *fds;
	size_t nfds, fds_cap;
	u64map ids;              /* event id -> kind (0 minor, 1 major) */
	u64map tids;             /* threads opened on */
	int inherit_thread;      /* the kernel keeps children's faults out */
	int exclude_kernel;
	stackunw *unw;
	prof *p;
	unsigned gen;
	u64map stack_of;         /* stack hash (probed) -> sample */
	u64map pages;            /* (generation, page) -> touched */
	long page_size;
	uint8_t *q;              /* records copied out of the rings, in order */
	size_t q_cap, q_len;
	size_t q_head;           /* the next record to handle */
	size_t q_meta;           /* records before it had their non-sample part applied */
	uint8_t *scratch;        /* a record that wraps the ring's end */
	size_t scratch_cap;
	faults_stats st;
	/* The screens' reader thread (faults_thread_start). */
	pthread_t thread;
	pthread_mutex_t lock;    /* held by the thread around faults_poll */
	int threaded;
	volatile int stop;
};

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int paranoid(void)
{
	char b[32];
	file_first_line("/proc/sys/kernel/perf_event_paranoid", b, sizeof(b));
	return b[0] ? atoi(b) : 99;
}

/* ---- the profile ------------------------------------------------------------ */

static int prof_start(faults *f)
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
	f->gen++;
	return 0;
}

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
static void maps_scan(faults *f)
{
	char path[64], line[4352];
	snprintf(path, sizeof(path), "/proc/%d/maps", f->pid);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long s, e, off;
		char perms[8];
		int at = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &at) < 4 || !at || perms[2] != 'x')
			continue;
		line[strcspn(line, "\n")] = 0;
		map_file(f, line + at, s, e, off);
	}
	fclose(fp);
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

/* ---- samples ---------------------------------------------------------------- */

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

/* One PERF_RECORD_SAMPLE: IDENTIFIER, IP, TID, ADDR, REGS_USER, STACK_USER. */
static int on_sample(faults *f, const uint8_t *rec, size_t len)
{
	rd r = { rec + sizeof(struct perf_event_header), rec + len };
	const struct perf_event_header *h = (const void *)rec;
	uint64_t id, ip, pidtid, addr, abi, regs[24], size = 0, dyn = 0;
	if (rd_u64(&r, &id) || rd_u64(&r, &ip) || rd_u64(&r, &pidtid) || rd_u64(&r, &addr) || rd_u64(&r, &abi))
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
	uint64_t page = addr / (uint64_t)f->page_size;
	uint64_t key = ((uint64_t)(f->gen & 0xffff) << 48) ^ page;
	size_t at;
	if (!f->pages.vals && u64map_init(&f->pages, 4096))
		return -1;
	at = u64map_slot(&f->pages, key);
	if (f->pages.vals[at] != U64MAP_NONE) {
		f->st.repeats++;
		return 1;
	}
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
	if (s == PROF_NONE || u64map_add_at(&f->pages, at, key, 1))
		return -1;
	mp_counts *c = &f->p->samples.v[s].c;
	c->alloc_objs++;
	c->alloc_bytes += (uint64_t)f->page_size;
	if (kind)
		f->st.major_pages++;
	else
		f->st.minor_pages++;
	return 1;
}

/* The non-sample records: mappings, a new program, lost samples. */
static void on_meta(faults *f, const uint8_t *rec, size_t len)
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
		if (prof_start(f) == 0)
			f->p->meta.dropped = f->st.lost;
	}
}

/* The record at pos of ring r, contiguous (copied when it wraps). */
static const uint8_t *ring_rec(faults *f, fring *r, uint64_t pos, size_t *len)
{
	uint64_t off = pos & (r->size - 1);
	struct perf_event_header h;
	if (off + sizeof(h) <= r->size) {
		memcpy(&h, r->data + off, sizeof(h));
	} else {
		size_t first = (size_t)(r->size - off);
		memcpy(&h, r->data + off, first);
		memcpy((uint8_t *)&h + first, r->data, sizeof(h) - first);
	}
	*len = h.size;
	if (h.size < sizeof(h))
		return NULL;
	if (off + h.size <= r->size)
		return r->data + off;
	if (f->scratch_cap < h.size) {
		uint8_t *n = realloc(f->scratch, h.size);
		if (!n)
			return NULL;
		f->scratch = n;
		f->scratch_cap = h.size;
	}
	size_t first = (size_t)(r->size - off);
	memcpy(f->scratch, r->data + off, first);
	memcpy(f->scratch + first, r->data, h.size - first);
	return f->scratch;
}

/* A fault on a page counted already (or of another process): its record
 * is dropped as it is read, never queued or unwound. */
static int sample_known(faults *f, const uint8_t *rec, size_t len)
{
	uint64_t pidtid, addr;
	if (len < sizeof(struct perf_event_header) + 32)
		return 0;
	memcpy(&pidtid, rec + sizeof(struct perf_event_header) + 16, 8);
	memcpy(&addr, rec + sizeof(struct perf_event_header) + 24, 8);
	if ((int)(uint32_t)pidtid != f->pid) {
		f->st.others++;
		return 1;
	}
	uint64_t key = ((uint64_t)(f->gen & 0xffff) << 48) ^ (addr / (uint64_t)f->page_size);
	if (u64map_get(&f->pages, key) == U64MAP_NONE)
		return 0;
	f->st.repeats++;
	return 1;
}

/* Copies what the kernel wrote out of the rings into the queue, so a burst
 * of faults outruns the unwinder only by the queue's size, not the rings'.
 * -1 when out of memory. */
static int drain(faults *f)
{
	for (int c = 0; c < f->ncpu; c++) {
		fring *r = &f->rings[c];
		if (!r->mp)
			continue;
		uint64_t head = __atomic_load_n(&r->mp->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = r->mp->data_tail;
		while (tail < head) {
			size_t len;
			const uint8_t *rec = ring_rec(f, r, tail, &len);
			if (!rec)
				return -1;
			int sample = ((const struct perf_event_header *)rec)->type == PERF_RECORD_SAMPLE;
			f->st.samples += sample;
			if (!sample || !sample_known(f, rec, len)) {
				if (f->q_len - f->q_head + len > FAULTS_QUEUE_MAX) {
					f->st.samples -= sample;   /* left in the ring: read again later */
					break;
				}
				/* The handled part goes once it is half the queue: moving
				 * a large backlog at every append would be quadratic. */
				if (f->q_len + len > f->q_cap && f->q_head >= f->q_cap / 2) {
					memmove(f->q, f->q + f->q_head, f->q_len - f->q_head);
					f->q_len -= f->q_head;
					f->q_meta -= f->q_head;
					f->q_head = 0;
				}
				if (vec_grow((void **)&f->q, &f->q_cap, f->q_len + len, 1))
					return -1;
				memcpy(f->q + f->q_len, rec, len);
				f->q_len += len;
			}
			tail += len;
		}
		/* The kernel may reuse what we read only after this store. */
		__atomic_store_n(&r->mp->data_tail, tail, __ATOMIC_RELEASE);
	}
	return 0;
}

/* Handles at most max queued samples; returns how many, -1 on ENOMEM. */
static long process(faults *f, long max)
{
	/* First every queued mapping and exec, whichever ring it came from: a
	 * sample in a library another CPU mapped finds its module. */
	while (f->q_meta < f->q_len) {
		const struct perf_event_header *h = (const void *)(f->q + f->q_meta);
		if (h->type != PERF_RECORD_SAMPLE)
			on_meta(f, f->q + f->q_meta, h->size);
		f->q_meta += h->size;
	}
	long done = 0;
	while (f->q_head < f->q_meta && done < max) {
		const struct perf_event_header *h = (const void *)(f->q + f->q_head);
		if (h->type == PERF_RECORD_SAMPLE) {
			if (on_sample(f, f->q + f->q_head, h->size) < 0)
				return -1;
			done++;
		}
		f->q_head += h->size;
	}
	if (f->q_head == f->q_len)
		f->q_head = f->q_len = f->q_meta = 0;
	return done;
}

long faults_poll(faults *f, long max)
{
	long done = 0;
	for (;;) {
		if (drain(f))
			return -1;
		long n = process(f, max && max - done < 16 ? max - done : 16);   /* drained often: rings fill in milliseconds */
		if (n < 0)
			return -1;
		done += n;
		if (f->q_len == f->q_head || (max && done >= max))
			return done;
	}
}

uint64_t faults_backlog(const faults *f)
{
	uint64_t n = f->q_len - f->q_head;
	for (int c = 0; c < f->ncpu; c++)
		if (f->rings[c].mp)
			n += __atomic_load_n(&f->rings[c].mp->data_head, __ATOMIC_ACQUIRE) - f->rings[c].mp->data_tail;
	return n;
}

/* ---- events ----------------------------------------------------------------- */

static void attr_fill(const faults *f, struct perf_event_attr *a, int kind, int launch)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = kind ? PERF_COUNT_SW_PAGE_FAULTS_MAJ : PERF_COUNT_SW_PAGE_FAULTS_MIN;
	a->sample_period = 1;   /* every fault; period 1 is never throttled */
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR |
			 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = FAULTS_REGS_MASK;
	a->sample_stack_user = FAULTS_STACK_USER;
	a->disabled = 1;
	a->enable_on_exec = launch;
	a->inherit = 1;
	a->inherit_thread = (unsigned)f->inherit_thread;
	a->exclude_kernel = (unsigned)f->exclude_kernel;
	a->exclude_hv = 1;
	/* The mappings and execs once per thread and CPU: on the minor event. */
	a->mmap = a->mmap2 = a->comm = a->comm_exec = kind == 0;
}

static int fd_keep(faults *f, int fd)
{
	if (vec_grow((void **)&f->fds, &f->fds_cap, f->nfds + 1, sizeof(*f->fds)))
		return -1;
	f->fds[f->nfds++] = fd;
	return 0;
}

static int ring_map(faults *f, fring *r, int fd)
{
	size_t pages = 256;
	while (pages < 16384 && 2 * pages * (size_t)f->page_size * (size_t)f->ncpu <= FAULTS_RINGS_TOTAL)
		pages *= 2;
	for (; pages >= 8; pages /= 2) {
		size_t len = (pages + 1) * (size_t)f->page_size;
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			continue;
		r->fd = fd;
		r->mp = m;
		r->data = (uint8_t *)m + f->page_size;
		r->size = pages * (uint64_t)f->page_size;
		return 0;
	}
	return -1;
}

static void refusal(faults *f, int e, prof_error *err)
{
	int par = paranoid();
	if (e == EACCES || e == EPERM)
		prof_errorf(err, "pid %d: page-fault events refused (%s): kernel.perf_event_paranoid is %d; allow them with "
			    "sysctl kernel.perf_event_paranoid=2 (or lower), or run with CAP_PERFMON",
			    f->pid, strerror(e), par);
	else if (e == ENOENT || e == ENOSYS || e == EOPNOTSUPP)
		prof_errorf(err, "pid %d: this kernel has no software page-fault events (perf_event_open: %s)", f->pid,
			    strerror(e));
	else if (e == ESRCH)
		prof_errorf(err, "no process %d", f->pid);
	else if (e == EMFILE || e == ENFILE)
		prof_errorf(err, "pid %d: out of file descriptors for its events (%zu open): raise ulimit -n", f->pid,
			    f->nfds);
	else
		prof_errorf(err, "pid %d: perf_event_open: %s", f->pid, strerror(e));
}

/* Opens both kinds on thread tid on every CPU, into the CPUs' rings.
 * 0; 1 when the thread is gone; -1 with err. */
static int open_thread(faults *f, int tid, int launch, prof_error *err)
{
	int opened = 0;
	for (int c = 0; c < f->ncpu; c++)
		for (int kind = 0; kind < 2; kind++) {
			struct perf_event_attr a;
			long fd;
			for (;;) {
				attr_fill(f, &a, kind, launch);
				fd = perf_open(&a, tid, c);
				if (fd >= 0)
					break;
				int e = errno;
				if (e == EINVAL && f->inherit_thread) {   /* before 5.13: children's samples are left out here */
					f->inherit_thread = 0;
					continue;
				}
				if ((e == EACCES || e == EPERM) && !f->exclude_kernel) {   /* our own process's user faults only */
					f->exclude_kernel = 1;
					f->st.kernel_excluded = 1;
					continue;
				}
				if (e == ENODEV)   /* an offline CPU */
					break;
				if (e == ESRCH && tid != f->pid)
					return 1;
				refusal(f, e, err);
				return -1;
			}
			if (fd < 0)
				continue;
			uint64_t id = 0;
			fring *r = &f->rings[c];
			if (fd_keep(f, (int)fd) || ioctl((int)fd, PERF_EVENT_IOC_ID, &id) ||
			    u64map_put(&f->ids, id, (uint32_t)kind)) {
				if (f->nfds == 0 || f->fds[f->nfds - 1] != (int)fd)
					close((int)fd);
				prof_errorf(err, "pid %d: setting up its events: %s", f->pid, strerror(errno ? errno : ENOMEM));
				return -1;
			}
			if (!r->mp ? ring_map(f, r, (int)fd) : ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd)) {
				prof_errorf(err, "pid %d: mapping the events' ring buffer: %s", f->pid, strerror(errno));
				return -1;
			}
			opened++;
		}
	if (!opened) {
		prof_errorf(err, "pid %d: no CPU accepted its page-fault events", f->pid);
		return -1;
	}
	f->st.threads++;
	return u64map_put(&f->tids, (uint64_t)tid, 1) ? (prof_errorf(err, "out of memory"), -1) : 0;
}

/* Every thread of the process until a scan finds none new: threads the
 * ones with events start later inherit them. */
static int open_all_threads(faults *f, prof_error *err)
{
	for (int round = 0; round < 100; round++) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task", f->pid);
		DIR *d = opendir(path);
		if (!d) {
			prof_errorf(err, "no process %d", f->pid);
			return -1;
		}
		int fresh = 0;
		struct dirent *de;
		while ((de = readdir(d))) {
			int tid = proc_pid_arg(de->d_name);
			if (tid < 0 || u64map_get(&f->tids, (uint64_t)tid) != U64MAP_NONE)
				continue;
			int rc = open_thread(f, tid, 0, err);
			if (rc < 0) {
				closedir(d);
				return -1;
			}
			fresh += rc == 0;
		}
		closedir(d);
		if (!fresh)
			return 0;
	}
	return 0;
}

static faults *faults_new(int pid, prof_error *err)
{
	faults *f = calloc(1, sizeof(*f));
	if (!f) {
		prof_errorf(err, "out of memory");
		return NULL;
	}
	f->pid = pid;
	f->status = -1;
	f->page_size = sysconf(_SC_PAGESIZE);
	f->inherit_thread = 1;
	long n = sysconf(_SC_NPROCESSORS_CONF);
	f->ncpu = n > 0 ? (int)n : 1;
	f->rings = calloc((size_t)f->ncpu, sizeof(*f->rings));
	f->unw = stackunw_new(pid);
	if (!f->rings || !f->unw || u64map_init(&f->ids, 64) || u64map_init(&f->tids, 64) || prof_start(f)) {
		faults_close(f);
		prof_errorf(err, "out of memory");
		return NULL;
	}
	for (int c = 0; c < f->ncpu; c++)
		f->rings[c].fd = -1;
	return f;
}

static int enable_all(faults *f, prof_error *err)
{
	for (size_t i = 0; i < f->nfds; i++)
		if (ioctl(f->fds[i], PERF_EVENT_IOC_ENABLE, 0)) {
			prof_errorf(err, "pid %d: enabling its events: %s", f->pid, strerror(errno));
			return -1;
		}
	return 0;
}

int faults_attach(faults **out, int pid, prof_error *err)
{
	char proc[64];
	struct stat st;
	*out = NULL;
	snprintf(proc, sizeof(proc), "/proc/%d", pid);
	if (pid <= 0 || stat(proc, &st) || proc_gone(pid)) {
		prof_errorf(err, "no process %d", pid);
		return -1;
	}
	if (st.st_uid != geteuid() && geteuid() != 0) {
		struct passwd *pw = getpwuid(st.st_uid);
		char comm[64];
		snprintf(proc, sizeof(proc), "/proc/%d/comm", pid);
		file_first_line(proc, comm, sizeof(comm));
		prof_errorf(err, "process %d (%s) belongs to %s (uid %u), not to you: refused", pid, comm,
			    pw ? pw->pw_name : "another user", (unsigned)st.st_uid);
		return -1;
	}
	faults *f = faults_new(pid, err);
	if (!f)
		return -1;
	if (open_all_threads(f, err) || enable_all(f, err)) {
		faults_close(f);
		return -1;
	}
	/* After the events: a mapping made meanwhile is in a record or here. */
	maps_scan(f);
	*out = f;
	return 0;
}

int faults_launch(faults **out, char *const argv[], prof_error *err)
{
	int go[2], ex[2];
	*out = NULL;
	if (pipe2(go, O_CLOEXEC))
		goto fail_errno;
	if (pipe2(ex, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		goto fail_errno;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(go[0]), close(go[1]), close(ex[0]), close(ex[1]);
		goto fail_errno;
	}
	if (pid == 0) {   /* runs argv once the parent's events are on it */
		char c;
		close(go[1]);
		close(ex[0]);
		if (read(go[0], &c, 1) == 1) {
			execvp(argv[0], argv);
			int e = errno;
			if (write(ex[1], &e, sizeof(e)) < 0)
				_exit(127);
		}
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	faults *f = faults_new(pid, err);
	int bad = !f || open_thread(f, pid, 1, err) != 0;
	if (!bad && write(go[1], "g", 1) != 1) {
		prof_errorf(err, "starting %s: %s", argv[0], strerror(errno));
		bad = 1;
	}
	close(go[1]);
	int e = 0;
	if (!bad && read(ex[0], &e, sizeof(e)) == (ssize_t)sizeof(e)) {
		prof_errorf(err, "cannot run %s: %s", argv[0], strerror(e));
		bad = 1;
	}
	close(ex[0]);
	if (bad) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		faults_close(f);
		return -1;
	}
	f->child = pid;
	*out = f;
	return 0;
fail_errno:
	prof_errorf(err, "starting %s: %s", argv[0], strerror(errno));
	return -1;
}

void faults_close(faults *f)
{
	if (!f)
		return;
	if (f->threaded) {
		__atomic_store_n(&f->stop, 1, __ATOMIC_RELEASE);
		pthread_join(f->thread, NULL);
		pthread_mutex_destroy(&f->lock);
	}
	for (int c = 0; f->rings && c < f->ncpu; c++)
		if (f->rings[c].mp)
			munmap(f->rings[c].mp, f->rings[c].size + (uint64_t)f->page_size);
	for (size_t i = 0; i < f->nfds; i++)
		close(f->fds[i]);
	if (f->child > 0 && f->status < 0) {   /* never leave our child running */
		kill(f->child, SIGKILL);
		waitpid(f->child, &f->status, 0);
	}
	free(f->fds);
	free(f->rings);
	free(f->scratch);
	free(f->q);
	u64map_free(&f->ids);
	u64map_free(&f->tids);
	u64map_free(&f->stack_of);
	u64map_free(&f->pages);
	stackunw_free(f->unw);
	prof_free(f->p);
	free(f);
}

int faults_gone(faults *f)
{
	if (f->gone)
		return 1;
	if (f->child > 0) {
		if (waitpid(f->child, &f->status, WNOHANG) == f->child)
			f->gone = 1;
	} else {
		f->gone = proc_gone(f->pid);
	}
	return f->gone;
}

int faults_status(const faults *f)
{
	return f->status;
}

pid_t faults_pid(const faults *f)
{
	return f->pid;
}

prof *faults_prof(const faults *f)
{
	return f->p;
}

unsigned faults_generation(const faults *f)
{
	return f->gen;
}

const faults_stats *faults_get_stats(const faults *f)
{
	return &f->st;
}

long faults_page_size(const faults *f)
{
	return f->page_size;
}

void faults_summary(const faults *f, const faults_stats *s, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len,
				    "%" PRIu64 " pages first touched (%" PRIu64 " minor, %" PRIu64 " major, %" PRIu64
				    " KiB), %" PRIu64 " repeated faults, %" PRIu64 " samples lost",
				    s->minor_pages + s->major_pages, s->minor_pages, s->major_pages,
				    (s->minor_pages + s->major_pages) * (uint64_t)f->page_size / 1024, s->repeats, s->lost);
	if (s->pc_only && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %" PRIu64 " stacks not unwound past the pc", s->pc_only);
	if (s->others && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %" PRIu64 " faults of child processes left out", s->others);
	if (s->kernel_excluded && n < len)
		n += (size_t)snprintf(buf + n, len - n, "; faults the kernel takes for it (read(2) into fresh pages) "
				      "are not seen: kernel.perf_event_paranoid is %d", paranoid());
	if (s->execs && n < len)
		snprintf(buf + n, len - n, "; it ran a new program %" PRIu64 " time(s): the profile is of the last",
			 s->execs);
}

/* ---- the screens' reader ----------------------------------------------------- */

static void *reader(void *arg)
{
	faults *f = arg;
	while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&f->lock);
		long n = faults_poll(f, 512);   /* a bounded hold: the screens sync between */
		pthread_mutex_unlock(&f->lock);
		if (n <= 0) {
			struct timespec ts = { 0, n < 0 ? 100000000 : 1000000 };
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

int faults_thread_start(faults *f)
{
	if (pthread_mutex_init(&f->lock, NULL))
		return -1;
	if (pthread_create(&f->thread, NULL, reader, f)) {
		pthread_mutex_destroy(&f->lock);
		return -1;
	}
	f->threaded = 1;
	return 0;
}

static int mirror_fill(const prof *p, prof *m)
{
	int ch = 0;
	if (m->modules.len < p->modules.len || m->frames.len < p->frames.len)
		ch |= FAULTS_SYNC_FRAMES;
	for (size_t i = 0; i < p->modules.len; i++) {
		const prof_module *pm = &p->modules.v[i];
		if (i < m->modules.len) {
			if (m->modules.v[i].size != pm->size) {
				m->modules.v[i].size = pm->size;
				ch |= FAULTS_SYNC_FRAMES;
			}
		} else if (prof_module_add(m, prof_strat(p, pm->path), prof_strat(p, pm->build_id), pm->base, pm->size,
					   pm->offset) == PROF_NONE) {
			return -1;
		}
	}
	for (size_t i = m->frames.len; i < p->frames.len; i++) {
		const prof_frame *pf = &p->frames.v[i];
		uint32_t x = prof_frame_intern(m, pf->addr);
		if (x != i)
			return -1;
		m->frames.v[x].module = pf->module;
		if (pf->name != PROF_NONE) {
			const char *nm = prof_strat(p, pf->name);
			if ((m->frames.v[x].name = prof_str(m, nm, strlen(nm))) == PROF_NONE)
				return -1;
		}
	}
	if (m->stacks.len < p->stacks.len)
		ch |= FAULTS_SYNC_STACKS;
	for (size_t i = m->stacks.len; i < p->stacks.len; i++)
		if (prof_stack_add(m, prof_stack_frames(p, (uint32_t)i), p->stacks.v[i].depth) == PROF_NONE)
			return -1;
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *ps = &p->samples.v[i];
		if (i >= m->samples.len) {
			if (prof_sample_add(m, ps->stack, ps->size, 0, 0, 0, 0))
				return -1;
			ch |= FAULTS_SYNC_STACKS;
		}
		if (memcmp(&m->samples.v[i].c, &ps->c, sizeof(ps->c))) {
			m->samples.v[i].c = ps->c;
			ch |= FAULTS_SYNC_COUNTS;
		}
	}
	if (m->meta.cmdline == PROF_NONE && p->meta.cmdline != PROF_NONE) {
		const char *c = prof_strat(p, p->meta.cmdline);
		m->meta.cmdline = prof_str(m, c, strlen(c));
	}
	m->meta.format = p->meta.format;
	m->meta.pid = p->meta.pid;
	m->meta.time = p->meta.time;
	m->meta.scale = p->meta.scale;
	m->meta.dropped = p->meta.dropped;
	return ch;
}

int faults_sync(faults *f, prof *mirror, faults_stats *st, unsigned *gen)
{
	if (f->threaded)
		pthread_mutex_lock(&f->lock);
	*gen = f->gen;
	*st = f->st;
	int rc = mirror_fill(f->p, mirror);
	if (f->threaded)
		pthread_mutex_unlock(&f->lock);
	return rc;
}
