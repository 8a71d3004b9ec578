/* faults_launch.c - the launcher: a command forked, held on a pipe until
 * the events are open on it (enabled at its exec), then run; a failed exec
 * reported through a second pipe, and the child killed on any failure.
 * The child is ptrace-seized for its exit alone: stopped there, its memory
 * still whole, every fault is read and then which pages it holds
 * (faults_resident.c), and it is let go. */
#include "attach/faults/faults_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int faults_launch(faults **out, char *const argv[], prof_error *err)
{
	int go[2], ex[2];
	*out = NULL;
	if (pipe2(go, O_CLOEXEC))
		goto fail_errno;
	if (pipe2(ex, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		goto fail_errno;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(go[0]), close(go[1]), close(ex[0]), close(ex[1]);
		goto fail_errno;
	}
	if (pid == 0) {   /* runs argv once the parent's events are on it */
		char c;
		close(go[1]);
		close(ex[0]);
		if (read(go[0], &c, 1) == 1) {
			execvp(argv[0], argv);
			int e = errno;
			if (write(ex[1], &e, sizeof(e)) < 0)
				_exit(127);
		}
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	faults *f = faults_new(pid, err);
	int bad = !f || faults_open_thread(f, pid, 1, err) != 0;
	if (!bad && faults_drain_start(f)) {
		prof_errorf(err, "starting the thread that reads the events of %s: %s", argv[0], strerror(errno));
		bad = 1;
	}
	/* Without the exit stop in use is the last reading's (a tracer here:
	 * a debugger's own, or ptrace refused by a policy). */
	if (!bad && ptrace(PTRACE_SEIZE, pid, 0, (void *)(long)PTRACE_O_TRACEEXIT) == 0)
		f->traced = 1;
	if (!bad && write(go[1], "g", 1) != 1) {
		prof_errorf(err, "starting %s: %s", argv[0], strerror(errno));
		bad = 1;
	}
	close(go[1]);
	int e = 0;
	if (!bad && read(ex[0], &e, sizeof(e)) == (ssize_t)sizeof(e)) {
		prof_errorf(err, "cannot run %s: %s", argv[0], strerror(e));
		bad = 1;
	}
	close(ex[0]);
	if (bad) {
		int st;
		faults_child_kill(pid, &st);
		faults_close(f);
		return -1;
	}
	f->child = pid;
	*out = f;
	return 0;
fail_errno:
	prof_errorf(err, "starting %s: %s", argv[0], strerror(errno));
	return -1;
}

/* At our child's exit stop: the rings drained to the last fault, then the
 * pages read while they are all still there. */
static void at_exit_stop(faults *f)
{
	if (f->threaded)
		pthread_mutex_lock(&f->lock);
	if (faults_poll(f, 0) >= 0)
		faults_resident_read(f);
	if (f->threaded)
		pthread_mutex_unlock(&f->lock);
}

int faults_child_wait(faults *f)
{
	int st;
	while (waitpid(f->child, &st, WNOHANG) == f->child) {
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			f->status = st;
			return 1;
		}
		if (!WIFSTOPPED(st) || !f->traced)
			continue;
		int event = st >> 16, sig = WSTOPSIG(st);
		if (event == PTRACE_EVENT_EXIT) {
			at_exit_stop(f);
			ptrace(PTRACE_DETACH, f->child, 0, 0);
			f->traced = 0;
		} else if (event == PTRACE_EVENT_STOP) {   /* a group stop (SIGSTOP, SIGTSTP): stays stopped */
			ptrace(PTRACE_LISTEN, f->child, 0, 0);
		} else {   /* a signal on its way: delivered as it would be */
			ptrace(PTRACE_CONT, f->child, 0, (void *)(long)sig);
		}
	}
	return 0;
}

void faults_child_kill(pid_t pid, int *status)
{
	kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) == pid && WIFSTOPPED(*status))
		ptrace(PTRACE_DETACH, pid, 0, 0);   /* its exit stop: let it end */
}
