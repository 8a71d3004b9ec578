/* launch.c - start a command under the hook; see launch.h. */
#include "attach/live/launch.h"
#include "attach/proc/procfs.h"
#include "attach/shared/progname.h"
#include "attach/shared/segment.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MPROF_PREFIX
#define MPROF_PREFIX "/usr/local"
#endif

static int is_file(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISREG(st.st_mode);
}

int launch_find_lib(char *buf, size_t len, prof_error *err)
{
	if (!buf || !len)   /* also tells the compiler, which otherwise warns under ASan */
		return -1;
	const char *env = getenv("MPROF_LIB");
	if (env && *env) {
		if (!is_file(env)) {
			prof_errorf(err, "MPROF_LIB=%s: no such file", env);
			return -1;
		}
		snprintf(buf, len, "%s", env);
		return 0;
	}
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		char *dir = dirname(exe);
		snprintf(buf, len, "%s/libmprof.so", dir);
		if (is_file(buf))
			return 0;
		snprintf(buf, len, "%s/../lib/libmprof.so", dir);
		if (is_file(buf))
			return 0;
	}
	snprintf(buf, len, "%s/lib/libmprof.so", MPROF_PREFIX);
	if (is_file(buf))
		return 0;
	prof_errorf(err, "libmprof.so not found beside mprof-tui, in ../lib or in %s/lib; set MPROF_LIB", MPROF_PREFIX);
	return -1;
}

/* LD_PRELOAD with lib first (an existing value is kept after it). */
static void set_preload(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	if (!old || !*old) {
		setenv("LD_PRELOAD", lib, 1);
		return;
	}
	size_t n = strlen(lib) + strlen(old) + 2;
	char *v = malloc(n);
	if (!v)
		return;
	snprintf(v, n, "%s:%s", lib, old);
	setenv("LD_PRELOAD", v, 1);
	free(v);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* What the child writes to its output file when its exec fails. */
#define LAUNCH_EXEC_ERR "mprof-tui: cannot run "

int launch_start(char *const argv[], const char *lib, const char *dump, char *out, size_t out_len,
		 int timeout_ms, pid_t *pid, int *early, prof_error *err)
{
	*early = -1;
	const char *tmp = getenv("TMPDIR");
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	char name[64];
	snprintf(name, sizeof(name), "%.40s", base);
	for (char *c = name; *c; c++)
		if (*c == '/' || (unsigned char)*c < 33)
			*c = '_';
	snprintf(out, out_len, "%s/mprof-%s-XXXXXX.out", tmp && *tmp ? tmp : "/tmp", name);
	int fd = mkstemps(out, 4);
	if (fd < 0) {
		prof_errorf(err, "%s: %s", out, strerror(errno));
		return -1;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	fflush(NULL);
	pid_t c = fork();
	if (c < 0) {
		prof_errorf(err, "cannot start %s: %s", argv[0], strerror(errno));
		close(fd);
		return -1;
	}
	if (c == 0) {
		setpgid(0, 0);   /* Ctrl-C in the UI is not meant for it */
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		signal(SIGPIPE, SIG_DFL);
		set_preload(lib);
		if (dump)
			setenv("MPROF_OUT", dump, 1);
		execvp(argv[0], argv);
		dprintf(2, "%s%s: %s\n", LAUNCH_EXEC_ERR, argv[0], strerror(errno));
		_exit(127);
	}
	close(fd);
	setpgid(c, c);
	*pid = c;   /* also when it fails: a short program's dump is named by it */
	char seg[64];
	snprintf(seg, sizeof(seg), SEG_PATH_FMT, (int)c);
	for (int waited = 0;; waited += 10) {
		int st;
		if (waitpid(c, &st, WNOHANG) == c) {
			char line[256];
			file_first_line(out, line, sizeof(line));   /* exec errors land there */
			if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && !strncmp(line, LAUNCH_EXEC_ERR, strlen(LAUNCH_EXEC_ERR))) {
				prof_errorf(err, "%s", line + strlen("mprof-tui: "));   /* the caller says mprof-tui: */
				unlink(out);   /* it held only the exec error, said now */
			} else if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && line[0]) {
				prof_errorf(err, "%s", line);
			} else {
				char said[600];
				*early = st;
				launch_out_settle(out, said, sizeof(said));
				prof_errorf(err, "%s exited (%s %d) before its segment appeared; %s", argv[0],
					    WIFEXITED(st) ? "status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
					    said);
			}
			return -1;
		}
		seg_header sh;   /* the hook sizes the file first and writes the magic last: wait for it */
		if (seg_file_header(seg, &sh))
			break;
		if (waited >= timeout_ms) {
			kill(c, SIGKILL);
			waitpid(c, NULL, 0);
			char said[600];
			launch_out_settle(out, said, sizeof(said));
			prof_errorf(err, "%s: no segment %d ms after starting %s: is %s the hook? (%s)", seg, timeout_ms,
				    argv[0], lib, said);
			return -1;
		}
		sleep_ms(10);
	}
	*pid = c;
	return 0;
}

void launch_dump_name(char *buf, size_t len, const char *dir, const char *prog, const char *pid)
{
	char name[48];
	progname_clean(name, sizeof(name), prog);   /* as the hook names a dump */
	snprintf(buf, len, "%s/mprof.%s.%s.pro", dir, name, pid);
}

void launch_out_settle(const char *out, char *buf, size_t len)
{
	struct stat st;
	if (!stat(out, &st) && st.st_size == 0 && !unlink(out))
		snprintf(buf, len, "it wrote no output");
	else
		snprintf(buf, len, "its output is in %s", out);
}

/* The segment of a reaped child, if it is still there and is that child's. */
static void child_segment_remove(pid_t child)
{
	char path[64];
	snprintf(path, sizeof(path), SEG_PATH_FMT, (int)child);
	seg_header h;
	if (seg_file_header(path, &h) && h.pid == (int64_t)child)
		unlink(path);
}

int launch_reap(pid_t child, int ms, int *status)
{
	for (int waited = 0;; waited += 10) {
		if (waitpid(child, status, WNOHANG) == child)
			return 1;
		if (waited >= ms)
			return 0;
		sleep_ms(10);
	}
}

void launch_stop(pid_t child, int *status)
{
	kill(child, SIGTERM);
	if (launch_reap(child, 1000, status)) {
		child_segment_remove(child);
		return;
	}
	kill(child, SIGKILL);
	waitpid(child, status, 0);
	child_segment_remove(child);
}

/* Its exec error comes back through a pipe closed on exec: "cannot run" is ours to say. */
int launch_run_dump(char *const argv[], const char *lib, const char *dump, int *status, prof_error *err)
{
	int pfd[2];   /* the exec's errno, if it fails; closed on exec */
	if (pipe2(pfd, O_CLOEXEC)) {
		prof_errorf(err, "cannot start %s: %s", argv[0], strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid_t c = fork();
	if (c < 0) {
		prof_errorf(err, "cannot start %s: %s", argv[0], strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (c == 0) {
		close(pfd[0]);
		signal(SIGPIPE, SIG_DFL);
		set_preload(lib);
		setenv("MPROF_OUT", dump, 1);
		execvp(argv[0], argv);
		int e = errno;
		ssize_t w = write(pfd[1], &e, sizeof(e));   /* the parent says it */
		_exit(w < 0 ? 126 : 127);
	}
	close(pfd[1]);
	int e = 0;
	ssize_t r;
	while ((r = read(pfd[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	/* Ctrl-C reaches the child from the terminal: it dumps and dies, we report. */
	void (*old)(int) = signal(SIGINT, SIG_IGN);
	while (waitpid(c, status, 0) < 0 && errno == EINTR)
		;
	signal(SIGINT, old);
	child_segment_remove(c);
	if (r == (ssize_t)sizeof(e)) {
		prof_errorf(err, "cannot run %s: %s", argv[0], strerror(e));
		return -1;
	}
	return 0;
}
