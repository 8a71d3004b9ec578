/* listing.c - attachable processes, from the segments in /dev/shm. */
#include "attach/live/listing.h"
#include "attach/live/follow.h"
#include "attach/live/launch.h"
#include "attach/proc/procfs.h"
#include "attach/live/segment_read.h"
#include "core/view.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int64_t listing_inuse(const listing_entry *e)
{
	const seg_map *m = &e->m;
	const seg_header *h = &e->hc;   /* bounds come from the checked copy, not the live header */
	const mp_counts *c = (const mp_counts *)((const char *)m->h + h->off[SEG_R_COUNTERS]);
	uint64_t n = __atomic_load_n(&m->h->stack_count, __ATOMIC_ACQUIRE);
	if (n > h->stack_cap)
		n = h->stack_cap;
	int64_t sum = 0;
	for (uint64_t i = 0; i < n; i++) {
		mp_counts x;
		seg_counter_estimate(h, c, i, &x);
		sum += (int64_t)(x.alloc_bytes - x.free_bytes);
	}
	return sum;
}

void listing_describe(const listing_entry *e, listing_text *t)
{
	snprintf(t->started, sizeof(t->started), "?");
	time_t when = (time_t)(e->hc.start_time_ns / 1000000000LL);
	struct tm tm;
	if (localtime_r(&when, &tm))
		strftime(t->started, sizeof(t->started), "%Y-%m-%d %H:%M:%S", &tm);
	view_fmt_value(t->inuse, sizeof(t->inuse), listing_inuse(e), 0);
	snprintf(t->cmd, sizeof(t->cmd), "%.*s", (int)strnlen(e->hc.cmdline, sizeof(e->hc.cmdline) - 1),
		 e->hc.cmdline);
	for (char *c = t->cmd; *c; c++)
		if ((unsigned char)*c < 32)
			*c = ' ';
}

int listing_entry_open(listing_entry *e, const char *dir, int pid)
{
	memset(e, 0, sizeof(*e));
	e->pid = e->inner = pid;
	if (!strcmp(dir, "/dev/shm"))
		e->inner = seg_path_of(pid, e->path, sizeof(e->path));
	else
		snprintf(e->path, sizeof(e->path), "%s/mprof-%d", dir, pid);
	struct stat st;
	if (lstat(e->path, &st))
		return -1;
	e->mine = seg_owner_ok(e->path, st.st_uid);
	e->alive = !(kill(pid, 0) && errno == ESRCH);
	e->why = "is gone";
	e->ok = e->mine && seg_open_path(&e->m, e->path, &e->hc, &e->err) == 0;
	/* A reused pid: the segment is older than the process. */
	if (e->alive && e->ok) {
		int64_t ps = proc_start_ns(pid);
		if (ps > 0 && e->hc.start_time_ns + 1000000000LL < ps)
			e->alive = 0;
		/* It ran a new program since: the hook is gone from it. */
		if (e->alive && proc_has_hook(pid) == 0) {
			e->alive = 0;
			e->why = "ran a new program without the hook";
		}
	}
	return 0;
}

void listing_entry_close(listing_entry *e)
{
	if (e->ok)
		seg_close(&e->m);
	e->ok = 0;
}

static int pid_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int listing_seg_pid(const char *name)
{
	char *end;
	if (strncmp(name, "mprof-", 6))
		return -1;
	long pid = strtol(name + 6, &end, 10);
	if (*end || end == name + 6 || pid <= 0 || pid > INT32_MAX)
		return -1;
	return (int)pid;
}

/* A segment seen through a process's /proc/PID/root: a container's. */
static int seg_boxed(const char *path)
{
	return !strncmp(path, "/proc/", 6);
}

/* Containers' processes under the hook, by host pid: those in another
 * mount or pid namespace whose segment seg_path_of finds (their own
 * /dev/shm is not ours to list). */
static void scan_containers(int **pids, size_t *n, size_t *cap)
{
	DIR *d = opendir("/proc");
	if (!d)
		return;
	struct dirent *de;
	char path[64];
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid > INT32_MAX)
			continue;
		seg_path_of((int)pid, path, sizeof(path));
		if (!seg_boxed(path))
			continue;   /* ours: /dev/shm's listing has it */
		if (access(path, F_OK) || vec_grow((void **)pids, cap, *n + 1, sizeof(**pids)))
			continue;
		(*pids)[(*n)++] = (int)pid;
	}
	closedir(d);
}

int listing_scan(const char *dir, int (*fn)(listing_entry *e, void *ctx), void *ctx)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int *pids = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		int pid = listing_seg_pid(de->d_name);
		if (pid < 0)
			continue;
		if (vec_grow((void **)&pids, &cap, n + 1, sizeof(*pids)))
			break;
		pids[n++] = pid;
	}
	closedir(d);
	if (!strcmp(dir, "/dev/shm"))
		scan_containers(&pids, &n, &cap);
	if (n)
		qsort(pids, n, sizeof(*pids), pid_cmp);
	size_t u = 0;   /* a process in another mount namespace that shares /dev/shm is found both ways */
	for (size_t i = 0; i < n; i++)
		if (!u || pids[u - 1] != pids[i])
			pids[u++] = pids[i];
	n = u;
	int seen = 0, stop = 0;
	listing_entry *e = malloc(sizeof(*e));   /* a path and a header: too big for a thread's stack frame */
	for (size_t i = 0; e && i < n && !stop; i++) {
		if (listing_entry_open(e, dir, pids[i]))
			continue;
		seen++;
		stop = fn(e, ctx);
		listing_entry_close(e);
	}
	free(e);
	free(pids);
	return seen;
}

/* listing_run's walk: what it printed, where. */
struct run_ctx {
	FILE *out, *note;
	int shown;
};

static int run_one(listing_entry *e, void *ctx)
{
	struct run_ctx *r = ctx;
	if (!e->alive && seg_boxed(e->path))
		return 0;   /* its file: not ours to remove */
	if (!e->alive) {   /* root removes another user's too; others get EPERM (sticky /dev/shm) */
		listing_entry_close(e);
		if (!unlink(e->path))
			fprintf(r->note, "mprof-tui: removed %s: process %d %s\n", e->path, e->pid, e->why);
		else
			fprintf(r->note, "mprof-tui: %s: process %d %s (not removed: %s)\n", e->path, e->pid, e->why,
				e->mine || errno != EPERM ? strerror(errno) : "another user's");
		return 0;
	}
	if (!e->mine) {
		fprintf(r->note, "mprof-tui: %s: another user's process, not attachable\n", e->path);
		return 0;
	}
	if (!e->ok) {
		fprintf(r->note, "mprof-tui: %s\n", e->err.msg);
		return 0;
	}
	if (!r->shown)
		fprintf(r->out, "%7s  %-19s  %10s  %s\n", "PID", "STARTED", "IN USE", "COMMAND");
	listing_text t;
	listing_describe(e, &t);
	char where[48] = "";
	if (e->inner != e->pid)   /* a container's: the pid it has in there */
		snprintf(where, sizeof(where), "[container, pid %d there] ", e->inner);
	fprintf(r->out, "%7d  %-19s  %10s  %s%s\n", e->pid, t.started, t.inuse, where, t.cmd);
	r->shown++;
	return 0;
}

int listing_run(FILE *out, FILE *note, const char *dir, const char *lib)
{
	struct run_ctx r = { out, note, 0 };
	if (listing_scan(dir, run_one, &r) < 0) {
		fprintf(note, "mprof-tui: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (!r.shown)
		fprintf(note, "mprof-tui: no process runs under the hook (no %s/mprof-PID); start one with "
			"LD_PRELOAD=%s PROGRAM, or mprof-tui -- PROGRAM\n", dir, lib ? lib : "/path/to/libmprof.so");
	else
		fprintf(note, "mprof-tui: attach with mprof-tui --attach PID\n");
	return r.shown;
}

int listing_print(void)
{
	char lib[4096];
	prof_error err;
	int have = launch_find_lib(lib, sizeof(lib), &err) == 0;
	return listing_run(stdout, stderr, "/dev/shm", have ? lib : NULL) < 0 ? 2 : 0;
}
