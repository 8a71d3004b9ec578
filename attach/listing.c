/* listing.c - attachable processes, from the segments in /dev/shm. */
#include "attach/listing.h"
#include "attach/follow.h"
#include "attach/procfs.h"
#include "attach/segment_read.h"
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

/* When the process started (unix ns), from /proc: btime + starttime; -1. */
static int64_t proc_start_ns(int pid)
{
	char buf[1024];
	const char *p = proc_stat_fields(pid, buf, sizeof(buf));
	if (!p)
		return -1;
	/* Field 3 is the state, where p starts; starttime is field 22. */
	unsigned long long start = 0;
	for (int field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || sscanf(p, "%llu", &start) != 1)
		return -1;
	FILE *fp = fopen("/proc/stat", "re");
	if (!fp)
		return -1;
	long long btime = -1;
	char line[256];
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "btime %lld", &btime) == 1)
			break;
	fclose(fp);
	long hz = sysconf(_SC_CLK_TCK);
	if (btime < 0 || hz <= 0)
		return -1;
	return btime * 1000000000LL + (int64_t)(start * 1000000000ULL / (unsigned long long)hz);
}

/* In use bytes: the sum of every stack's counters. h: the checked copy of
 * the header seg_open_path made (bounds come from it, not the live one). */
static int64_t seg_inuse(const seg_map *m, const seg_header *h)
{
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

static int pid_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int listing_run(FILE *out, FILE *note, const char *dir, const char *lib)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(note, "mprof-tui: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	int *pids = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		if (strncmp(e->d_name, "mprof-", 6))
			continue;
		long pid = strtol(e->d_name + 6, &end, 10);
		if (*end || pid <= 0 || pid > INT32_MAX || end == e->d_name + 6)
			continue;
		if (vec_grow((void **)&pids, &cap, n + 1, sizeof(*pids)))
			break;
		pids[n++] = (int)pid;
	}
	closedir(d);
	if (n)
		qsort(pids, n, sizeof(*pids), pid_cmp);
	int shown = 0;
	for (size_t i = 0; i < n; i++) {
		int pid = pids[i];
		char path[512];
		snprintf(path, sizeof(path), "%s/mprof-%d", dir, pid);
		struct stat st;
		if (lstat(path, &st))
			continue;
		int alive = !(kill(pid, 0) && errno == ESRCH);
		const char *why = "is gone";
		seg_map m;
		seg_header hc;
		prof_error err;
		int ok = st.st_uid == geteuid() && seg_open_path(&m, path, &hc, &err) == 0;
		/* A reused pid: the segment is older than the process. */
		if (alive && ok) {
			int64_t ps = proc_start_ns(pid);
			if (ps > 0 && hc.start_time_ns + 1000000000LL < ps)
				alive = 0;
			/* It ran a new program since: the hook is gone from it. */
			if (alive && proc_has_hook(pid) == 0) {
				alive = 0;
				why = "ran a new program without the hook";
			}
		}
		if (!alive) {
			if (ok)
				seg_close(&m);
			if (st.st_uid == geteuid() && !unlink(path))
				fprintf(note, "mprof-tui: removed %s: process %d %s\n", path, pid, why);
			else
				fprintf(note, "mprof-tui: %s: process %d %s (not removed: %s)\n", path, pid, why,
					st.st_uid == geteuid() ? strerror(errno) : "another user's");
			continue;
		}
		if (st.st_uid != geteuid()) {
			fprintf(note, "mprof-tui: %s: another user's process, not attachable\n", path);
			continue;
		}
		if (!ok) {
			fprintf(note, "mprof-tui: %s\n", err.msg);
			continue;
		}
		if (!shown)
			fprintf(out, "%7s  %-19s  %10s  %s\n", "PID", "STARTED", "IN USE", "COMMAND");
		char when[32] = "?", used[32];
		time_t t = (time_t)(hc.start_time_ns / 1000000000LL);
		struct tm tm;
		if (localtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		char cmd[sizeof(hc.cmdline)];
		snprintf(cmd, sizeof(cmd), "%.*s", (int)strnlen(hc.cmdline, sizeof(cmd) - 1), hc.cmdline);
		for (char *c = cmd; *c; c++)
			if ((unsigned char)*c < 32)
				*c = ' ';
		fprintf(out, "%7d  %-19s  %10s  %s\n", pid, when, view_fmt_value(used, sizeof(used), seg_inuse(&m, &hc), 0),
			cmd);
		seg_close(&m);
		shown++;
	}
	free(pids);
	if (!shown)
		fprintf(note, "mprof-tui: no process runs under the hook (no %s/mprof-PID); start one with "
			"LD_PRELOAD=%s PROGRAM, or mprof-tui -- PROGRAM\n", dir, lib ? lib : "/path/to/libmprof.so");
	else
		fprintf(note, "mprof-tui: attach with mprof-tui --attach PID\n");
	return shown;
}
