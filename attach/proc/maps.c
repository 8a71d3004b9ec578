/* maps.c - /proc/PID/maps for the mprof-tui side (see maps.h): opened by
 * pid, read a line at a time with a line too long for the buffer cut and
 * its rest skipped, each line parsed with sscanf into the fields of a
 * proc_map (lines missing any field up to the inode skipped), for the
 * hook's presence (procfs.c), the modules of a process sampled for page
 * faults (faults_maps.c) and the mappings ptrace injection looks up
 * (inject.c). */
#include "attach/proc/maps.h"

#include <stdlib.h>
#include <string.h>

int proc_maps_open(proc_maps *r, int pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return -1;
	proc_maps_from(r, fp);
	return 0;
}

void proc_maps_from(proc_maps *r, FILE *fp)
{
	r->fp = fp;
	r->line[0] = 0;
}

int proc_maps_parse(char *line, proc_map *m)
{
	unsigned long long lo, hi, off;
	int dev = 0, dev_end = 0, ino = 0, at = 0;
	memset(m, 0, sizeof(*m));
	/* The sscanf the readers it replaced used: the same lines accepted; %n marks dev and inode. */
	int got = sscanf(line, "%llx-%llx %7s %llx %n%*s%n %n%*s %n", &lo, &hi, m->perms, &off, &dev, &dev_end, &ino, &at);
	if (got < 4 || !at)
		return 0;
	line[strcspn(line, "\n")] = 0;
	m->lo = lo;
	m->hi = hi;
	m->offset = off;
	size_t dl = (size_t)(dev_end - dev) < sizeof(m->dev) ? (size_t)(dev_end - dev) : sizeof(m->dev) - 1;
	memcpy(m->dev, line + dev, dl);
	m->inode = strtoull(line + ino, NULL, 10);
	m->path = line + at;
	return 1;
}

int proc_maps_next(proc_maps *r, proc_map *m)
{
	while (fgets(r->line, sizeof(r->line), r->fp)) {
		size_t n = strlen(r->line);
		if (n && r->line[n - 1] != '\n') {   /* cut: its rest is no line of its own */
			int c;
			while ((c = getc(r->fp)) != EOF && c != '\n')
				;
		}
		if (proc_maps_parse(r->line, m))
			return 1;
	}
	return 0;
}

void proc_maps_close(proc_maps *r)
{
	if (r->fp)
		fclose(r->fp);
	r->fp = NULL;
}
