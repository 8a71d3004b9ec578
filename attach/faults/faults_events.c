/* faults_events.c - the perf events: one per thread, CPU and kind (minor,
 * major), inherited by the threads started later, all of a CPU's written
 * into one ring (as perf record does), the ring mapped as large as the
 * kernel allows; the fallbacks of older kernels and of a stricter
 * perf_event_paranoid, and the one-line refusal that names what is
 * missing; every thread of an attached process opened until a scan finds
 * none new, then all enabled at once. */
#include "attach/faults/faults_int.h"
#include "attach/proc/procfs.h"
#include "core/vec.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int faults_paranoid(void)
{
	char b[32];
	file_first_line("/proc/sys/kernel/perf_event_paranoid", b, sizeof(b));
	return b[0] ? atoi(b) : 99;
}

static void attr_fill(const faults *f, struct perf_event_attr *a, int kind, int launch)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = kind ? PERF_COUNT_SW_PAGE_FAULTS_MAJ : PERF_COUNT_SW_PAGE_FAULTS_MIN;
	a->sample_period = 1;   /* every fault; period 1 is never throttled */
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = FAULTS_REGS_MASK;
	a->sample_stack_user = FAULTS_STACK_USER;
	a->disabled = 1;
	a->enable_on_exec = launch;
	a->inherit = 1;
	a->inherit_thread = (unsigned)f->inherit_thread;
	a->exclude_kernel = (unsigned)f->exclude_kernel;
	a->exclude_hv = 1;
	a->sample_id_all = 1;   /* a loss's record says when it ended */
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
	while (pages < 65536 && 2 * pages * (size_t)f->page_size * (size_t)f->ncpu <= FAULTS_RINGS_TOTAL)
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
	int par = faults_paranoid();
	if (e == EACCES || e == EPERM)
		prof_errorf(err, "pid %d: page-fault events refused (%s): kernel.perf_event_paranoid is %d; allow them with "
			    "sysctl kernel.perf_event_paranoid=2 (or lower), or run with CAP_PERFMON",
			    f->pid, strerror(e), par);
	else if (e == ENOENT || e == ENOSYS || e == EOPNOTSUPP)
		prof_errorf(err, "pid %d: this kernel has no software page-fault events (perf_event_open: %s)", f->pid,
			    strerror(e));
	else if (e == ESRCH)
		prof_errorf(err, PROC_NONE_FMT, f->pid);
	else if (e == EMFILE || e == ENFILE)
		prof_errorf(err, "pid %d: out of file descriptors for its events (%zu open): raise ulimit -n", f->pid,
			    f->nfds);
	else
		prof_errorf(err, "pid %d: perf_event_open: %s", f->pid, strerror(e));
}

/* Opens both kinds on thread tid on every CPU, into the CPUs' rings.
 * 0; 1 when the thread is gone; -1 with err. */
int faults_open_thread(faults *f, int tid, int launch, prof_error *err)
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
int faults_open_all_threads(faults *f, prof_error *err)
{
	for (int round = 0; round < 100; round++) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task", f->pid);
		DIR *d = opendir(path);
		if (!d) {
			prof_errorf(err, PROC_NONE_FMT, f->pid);
			return -1;
		}
		int fresh = 0;
		struct dirent *de;
		while ((de = readdir(d))) {
			int tid = proc_pid_arg(de->d_name);
			if (tid < 0 || u64map_get(&f->tids, (uint64_t)tid) != U64MAP_NONE)
				continue;
			int rc = faults_open_thread(f, tid, 0, err);
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

int faults_enable_all(faults *f, prof_error *err)
{
	for (size_t i = 0; i < f->nfds; i++)
		if (ioctl(f->fds[i], PERF_EVENT_IOC_ENABLE, 0)) {
			prof_errorf(err, "pid %d: enabling its events: %s", f->pid, strerror(errno));
			return -1;
		}
	return 0;
}
