/* procfs.c - reading another process's state from /proc. */
#include "attach/proc/procfs.h"
#include "attach/proc/maps.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *proc_stat_fields(int pid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return NULL;
	size_t n = fread(buf, 1, len - 1, fp);
	fclose(fp);
	buf[n] = 0;
	/* The command may hold ')' and spaces: the last ')' ends it. */
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p + 2 : NULL;
}

int proc_gone(int pid)
{
	char buf[1024];
	const char *s = proc_stat_fields(pid, buf, sizeof(buf));
	return !s || *s == 'Z' || *s == 'X';
}

int proc_gone_within(int pid, int ms)
{
	for (int waited = 0; !proc_gone(pid); waited += 5) {
		if (waited >= ms)
			return 0;
		struct timespec ts = { 0, 5000000 };
		nanosleep(&ts, NULL);
	}
	return 1;
}

int64_t proc_start_ns(int pid)
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

int proc_runs_since(int pid, int64_t start_ns)
{
	if (pid <= 0 || proc_gone(pid))
		return 0;
	int64_t ps = proc_start_ns(pid);
	return ps < 0 || ps <= start_ns + 1000000000LL;   /* btime is whole seconds */
}

int proc_is_hook_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	return (slash && !strncmp(slash + 1, "libmprof", 8)) || !strncmp(path, "/memfd:libmprof", 15);
}

int proc_has_hook(int pid)
{
	proc_maps r;
	proc_map m;
	if (proc_maps_open(&r, pid))
		return -1;
	int has = 0;
	while (!has && proc_maps_next(&r, &m))
		has = proc_is_hook_path(m.path);
	proc_maps_close(&r);
	return has;
}

void file_first_line(const char *path, char *buf, size_t len)
{
	buf[0] = 0;
	FILE *fp = fopen(path, "re");
	if (!fp)
		return;
	if (fgets(buf, (int)len, fp))
		buf[strcspn(buf, "\n")] = 0;
	fclose(fp);
}

int proc_status_read(int pid, proc_status *st)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	st->uid[0] = st->uid[1] = st->uid[2] = st->uid[3] = -1;
	st->tracer = 0;
	st->nspid = -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Uid:", 4)) {
			sscanf(line + 4, "%ld %ld %ld %ld", &st->uid[0], &st->uid[1], &st->uid[2], &st->uid[3]);
		} else if (!strncmp(line, "TracerPid:", 10)) {
			st->tracer = strtol(line + 10, NULL, 10);
		} else if (!strncmp(line, "NSpid:", 6)) {
			char *e, *s = line + 6;
			for (long v; (v = strtol(s, &e, 10)), e != s; s = e)
				st->nspid = v;   /* the last: the innermost namespace's */
		}
	}
	fclose(f);
	return 0;
}

int proc_other_ns(int pid, const char *ns)
{
	char mine[64], theirs[64];
	struct stat a, b;
	snprintf(mine, sizeof(mine), "/proc/self/ns/%s", ns);
	snprintf(theirs, sizeof(theirs), "/proc/%d/ns/%s", pid, ns);
	return !stat(mine, &a) && !stat(theirs, &b) && (a.st_ino != b.st_ino || a.st_dev != b.st_dev);
}

void proc_comm(int pid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	file_first_line(path, buf, len);
}

int proc_pid_arg(const char *s)
{
	char *end;
	errno = 0;
	long pid = strtol(s, &end, 10);
	return errno || end == s || *end || pid <= 0 || pid > INT32_MAX ? -1 : (int)pid;
}
