/* tracee.c - what the injection knows of the traced process besides its
 * threads and code: its /proc/PID/status (uid, TracerPid), why ptrace was
 * refused (yama, another user), the error for a process that exited
 * meanwhile, and the millisecond clock and sleep the waits use.  Calls
 * nothing else of attach/inject/: inject.c and safepoint.c both use it. */
#include "attach/inject/inject_int.h"
#include "attach/proc/procfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Uid and TracerPid from /proc/PID/status; -1 when there is no such process. */
int inj_proc_status(int pid, long *uid, long *tracer)
{
	proc_status st;
	if (proc_status_read(pid, &st))
		return -1;
	*uid = st.uid[0];
	*tracer = st.tracer;
	return 0;
}

void inj_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

long inj_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}


int inj_exited(int pid, prof_error *err)
{
	prof_errorf(err, "process %d exited during the injection", pid);
	return -1;
}


int inj_not_permitted(int pid, prof_error *err)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	int scope = 0;
	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
	if (scope > 0 && geteuid() != 0)
		prof_errorf(err, "not permitted to trace process %d: kernel.yama.ptrace_scope is %d (run as root, or set /proc/sys/kernel/yama/ptrace_scope to 0)", pid, scope);
	else
		prof_errorf(err, "not permitted to trace process %d: ptrace needs the same user (and a target that is not setuid) or CAP_SYS_PTRACE", pid);
	return -1;
}
