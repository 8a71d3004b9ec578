/* inject_ui.c - the injection on the terminal: the command-line entry
 * points (--inject PID, --detach PID) and the one-key questions live mode
 * asks (inject into a process started without the hook; detach on quit).
 * attach/inject/inject.c does the work. */
#include "tui/inject_ui.h"
#include "tui/allocs_ui.h"
#include "attach/inject/inject.h"
#include "attach/live/segment_read.h"
#include "attach/live/launch.h"
#include "attach/proc/procfs.h"
#include "attach/shared/segment.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

/* One key from the terminal, without waiting for Enter; 0 if none. */
static int tty_key(void)
{
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	struct termios old, raw;
	int c = 0;
	if (!tcgetattr(fd, &old)) {
		raw = old;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tcsetattr(fd, TCSANOW, &raw);
		unsigned char ch;
		if (read(fd, &ch, 1) == 1)
			c = ch;
		tcsetattr(fd, TCSANOW, &old);
	}
	close(fd);
	return c;
}

int inject_offer(int pid, const char *lib, prof_error *err)
{
	if (proc_gone(pid))
		return 0;   /* the attach reports the missing process */
	fprintf(stderr, "mprof-tui: process %d was started without libmprof.so. Load it now with ptrace "
			"(history before this moment stays unknown)? [y/n] ", pid);
	fflush(stderr);
	int c = tty_key();
	fprintf(stderr, "%c\n", c >= ' ' && c < 127 ? c : ' ');
	if (c != 'y' && c != 'Y')
		return 0;
	int r = inject_load(pid, lib, NULL, 0, err);
	return r < 0 ? -1 : 1;
}

int inject_quit_said(int pid, int detach)
{
	if (!inject_still_records(pid))
		return 0;
	if (!detach) {
		fprintf(stderr, "mprof-tui: libmprof.so still records in process %d; mprof-tui --detach %d stops it\n",
			pid, pid);
		return 0;
	}
	prof_error err;
	int n = inject_detach(pid, &err);
	if (n < 0) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return -1;
	}
	fprintf(stderr, "mprof-tui: detached from process %d (%d call slots restored)\n", pid, n);
	return 1;
}

int inject_ui_run(const char *pid_arg, int detach)
{
	long pid = proc_pid_arg(pid_arg);
	if (pid < 0) {
		fprintf(stderr, "mprof-tui: --%s takes a process id, not '%s'\n", detach ? "detach" : "inject", pid_arg);
		return 2;
	}
	prof_error err;
	if (detach) {
		int n = inject_detach((int)pid, &err);
		if (n < 0) {
			fprintf(stderr, "mprof-tui: %s\n", err.msg);
			return 2;
		}
		printf("detached from process %ld (%d call slots restored); its segment stays readable\n", pid, n);
		return 0;
	}
	char lib[4096];
	if (launch_find_lib(lib, sizeof(lib), &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return 2;
	}
	char alloc[4096];
	int r = inject_load((int)pid, lib, alloc, sizeof(alloc), &err);
	if (r < 0) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return 2;
	}
	char seg[4200];
	seg_path_of((int)pid, seg, sizeof(seg));   /* a container's: under /proc/PID/root, by its pid there */
	printf(r == INJECT_PRESENT ? "process %ld already has a segment: %s\n"
	       : r == INJECT_REATTACHED ? "process %ld: recording again into %s"
					  "; the counts start afresh (blocks seen before the detach are forgotten)\n"
					: "loaded libmprof.so into process %ld: %s\n",
	       pid, seg);
	if (r != INJECT_PRESENT && alloc[0])
		printf("its allocator: %s\n", alloc);
	seg_map m;
	if (r != INJECT_PRESENT && !seg_open(&m, (int)pid, &err)) {   /* what the hook found beyond it */
		allocs_print(stdout, m.h, m.len, "also: ", 1);
		seg_close(&m);
	}
	return 0;
}
