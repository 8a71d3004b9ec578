/* faults.c - page faults by call stack (see faults.h): a session's life,
 * from its making (faults_new) and the attach to a running process (the
 * checks, every thread's events, then the mappings it has) to its close
 * (events, rings, and a launched child never left running), and what it
 * tells: whether the target is gone, its status, the profile and the
 * one-line summary.  The events are in faults_events.c, the rings in
 * faults_ring.c, the mappings in faults_maps.c, the counting in
 * faults_profile.c, the launcher in faults_launch.c and the screens'
 * reader thread in faults_thread.c. */
#include "attach/faults/faults_int.h"
#include "attach/proc/procfs.h"

#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

faults *faults_new(int pid, prof_error *err)
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
	const char *rep = getenv("MPROF_FAULTS_REPEATS");
	f->repeat_off = rep && !strcmp(rep, "0");
	if (pthread_mutex_init(&f->qlock, NULL)) {
		free(f->rings);
		stackunw_free(f->unw);
		free(f);
		prof_errorf(err, "out of memory");
		return NULL;
	}
	if (!f->rings || !f->unw || faults_slots_new(f) || u64map_init(&f->ids, 64) || u64map_init(&f->tids, 64) || faults_prof_start(f)) {
		faults_close(f);
		prof_errorf(err, "out of memory");
		return NULL;
	}
	for (int c = 0; c < f->ncpu; c++)
		f->rings[c].fd = -1;
	return f;
}

int faults_attach(faults **out, int pid, prof_error *err)
{
	char proc[64];
	struct stat st;
	*out = NULL;
	snprintf(proc, sizeof(proc), "/proc/%d", pid);
	if (pid <= 0 || stat(proc, &st) || proc_gone(pid)) {
		prof_errorf(err, PROC_NONE_FMT, pid);
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
	if (faults_open_all_threads(f, err) || faults_enable_all(f, err)) {
		faults_close(f);
		return -1;
	}
	/* After the events: a mapping made meanwhile is in a record or here. */
	faults_maps_scan(f);
	if (faults_drain_start(f)) {
		prof_errorf(err, "pid %d: starting the thread that reads its events: %s", pid, strerror(errno));
		faults_close(f);
		return -1;
	}
	*out = f;
	return 0;
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
	faults_drain_stop(f);   /* before the rings it reads go */
	for (int c = 0; f->rings && c < f->ncpu; c++)
		if (f->rings[c].mp)
			munmap(f->rings[c].mp, f->rings[c].size + (uint64_t)f->page_size);
	for (size_t i = 0; i < f->nfds; i++)
		close(f->fds[i]);
	if (f->child > 0 && f->status < 0)   /* never leave our child running */
		faults_child_kill(f->child, &f->status);
	free(f->fds);
	free(f->rings);
	free(f->scratch);
	free(f->tails);
	free(f->q);
	free(f->work);
	faults_slots_free(f);
	pthread_mutex_destroy(&f->qlock);
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
		f->gone = faults_child_wait(f);
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
	uint64_t kib = (uint64_t)f->page_size / 1024;
	size_t n = (size_t)snprintf(buf, len,
				    "%" PRIu64 " page faults (%" PRIu64 " minor, %" PRIu64 " major): %" PRIu64
				    " KiB allocated, %" PRIu64 " KiB in use (resident at the last of %" PRIu64
				    " readings), %" PRIu64 " faults on pages held already, %" PRIu64 " samples lost",
				    s->minor_pages + s->major_pages, s->minor_pages, s->major_pages,
				    (s->minor_pages + s->major_pages) * kib, s->held * kib, s->resident_reads, s->repeats,
				    s->lost);
	if (s->lost && s->lost_to_ns && n < len)   /* a kernel without sample_id_all: when is not known */
		n += (size_t)snprintf(buf + n, len - n,
				      " (between %.3f and %.3f s after the first fault: a stack that faulted then may lack up to "
				      "%" PRIu64 " pages, allocated and in use)",
				      (double)s->lost_from_ns / 1e9, (double)s->lost_to_ns / 1e9, s->lost);
	if (s->copies_shared && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %" PRIu64 " queued without their stack copy (the thread's last again)",
				      s->copies_shared);
	if (s->pc_only && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %" PRIu64 " stacks not unwound past the pc", s->pc_only);
	if (s->others && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %" PRIu64 " faults of child processes left out", s->others);
	if (s->kernel_excluded && n < len)
		n += (size_t)snprintf(buf + n, len - n, "; faults the kernel takes for it (read(2) into fresh pages) "
				      "are not seen: kernel.perf_event_paranoid is %d", faults_paranoid());
	if (s->execs && n < len)
		snprintf(buf + n, len - n, "; it ran a new program %" PRIu64 " time(s): the profile is of the last",
			 s->execs);
}
