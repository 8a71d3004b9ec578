/* snapshot.c - a live process's current state, from its segment, to a file. */
#include "attach/live/snapshot.h"
#include "attach/proc/procfs.h"
#include "attach/live/sample_ctl.h"
#include "attach/live/segment_read.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>

int snapshot_write(int pid, const char *path, prof_error *err)
{
	seg_map m;
	if (seg_open(&m, pid, err))
		return -1;
	prof *p = seg_to_prof(m.h, m.len, m.name, err);
	char smp[200];
	sample_ctl_text(m.h, smp, sizeof(smp));
	int sampled = m.h->sample_rate != 0;
	seg_close(&m);
	if (!p)
		return -1;
	/* The file's header keeps the rate (its scale); the user hears it now. */
	if (sampled)
		fprintf(stderr, "mprof-tui: note: process %d records %s: %s holds estimates\n", pid, smp, path);
	int rc = prof_save(p, path, PROF_FMT_NATIVE, err);
	prof_free(p);
	return rc;
}

int snapshot_to_file(const char *pid_arg, const char *out)
{
	long pid = proc_pid_arg(pid_arg);
	if (pid < 0) {
		fprintf(stderr, "mprof-tui: --snapshot takes a process id, not '%s'\n", pid_arg);
		return 2;
	}
	if (!out) {
		fprintf(stderr, "mprof-tui: --snapshot needs -o FILE\n");
		return 2;
	}
	prof_error err;
	struct stat st;
	int existed = !stat(out, &st);
	if (snapshot_write((int)pid, out, &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return 2;
	}
	/* Replacing a file is said, never silent (the TUI's w and e pick free names). */
	if (existed)
		fprintf(stderr, "mprof-tui: note: %s existed and was replaced\n", out);
	/* Written all the same: what a crashed process left is worth reading. */
	if (proc_gone((int)pid) || proc_has_hook((int)pid) == 0)
		fprintf(stderr, "mprof-tui: note: process %ld no longer runs libmprof.so (it exited or ran a new program); %s holds what its hook left\n", pid, out);
	return 0;
}
