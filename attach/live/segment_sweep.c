/* segment_sweep.c - no segment outlives its process past the next
 * mprof-tui command: a process killed by SIGKILL (or by anything the hook
 * cannot catch) leaves /dev/shm/mprof-PID, and every command but --serve
 * removes, as it exits, the segments whose header says they are the hook's
 * for that pid while no process has that pid.  Root removes any user's;
 * another user can remove only his own (sticky /dev/shm, and another
 * user's segment cannot even be read to be recognised).  A file that is
 * not a segment of its pid (a test's fake, another program's) is left to
 * the listing, which names it.  Run at exit, so --snapshot PID and
 * --attach PID still read what a killed process left. */
#include "attach/live/listing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 1 when path is a regular file holding the hook's header for pid. */
static int is_segment_of(const char *path, long pid)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	seg_header h;
	struct stat st;
	int ok = !fstat(fd, &st) && S_ISREG(st.st_mode) && pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
		 !memcmp(h.magic, SEG_MAGIC, 8) && h.pid == pid;
	close(fd);
	return ok;
}

int listing_sweep(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int removed = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		int pid = listing_seg_pid(de->d_name);
		if (pid < 0)
			continue;
		if (!kill((pid_t)pid, 0) || errno != ESRCH)
			continue;   /* alive (or a zombie not yet reaped), or another user's live process */
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (is_segment_of(path, pid) && !unlink(path))
			removed++;
	}
	closedir(d);
	return removed;
}

void listing_sweep_shm(void)
{
	int e = errno;
	listing_sweep("/dev/shm");
	errno = e;
}
