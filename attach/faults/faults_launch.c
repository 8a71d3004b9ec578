/* faults_launch.c - the launcher: a command forked, held on a pipe until
 * the events are open on it (enabled at its exec), then run; a failed exec
 * reported through a second pipe, and the child killed on any failure. */
#include "attach/faults/faults_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
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
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
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
