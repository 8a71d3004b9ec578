/* faults_run.c - mprof-tui --faults -o FILE: a command run, or a running
 * process followed for a while, with its page faults sampled, then the
 * profile written (native format) and one line of figures. */
#include "attach/faults/faults_int.h"
#include "attach/proc/procfs.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

static volatile sig_atomic_t faults_stop;

static void on_stop(int sig)
{
	(void)sig;
	faults_stop = 1;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int faults_run(const char *pid_arg, char *const argv[], double seconds, const char *out, FILE *msg)
{
	if (!out) {
		fprintf(msg, "mprof-tui: --faults needs -o FILE (or --attach PID for the screens)\n");
		return 2;
	}
	int pid = pid_arg ? proc_pid_arg(pid_arg) : 0;
	if (!argv && pid < 0) {
		fprintf(msg, "mprof-tui: --faults takes a process id or -- COMMAND, not '%s'\n", pid_arg);
		return 2;
	}
	prof_error err;
	faults *f;
	if (argv ? faults_launch(&f, argv, &err) : faults_attach(&f, pid, &err)) {
		fprintf(msg, "mprof-tui: %s\n", err.msg);
		return 2;
	}
	/* A command's Ctrl-C ends the command (its group gets it) and we write
	 * what it did; a process attached to just stops being sampled.  Set
	 * after the start: an ignored signal would be ignored by the command. */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = argv ? SIG_IGN : on_stop;
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	if (!argv) {
		fprintf(msg, "mprof-tui: sampling the page faults of pid %d %s(Ctrl-C stops)\n", pid,
			seconds > 0 ? "for the duration asked " : "until it exits ");
		fflush(msg);
	}
	faults_reader_boost();
	double end = seconds > 0 ? mono_s() + seconds : 0;
	int rc = 0;
	for (;;) {
		int gone = faults_gone(f);   /* before the read: what it did is in the rings by then */
		long n = faults_poll(f, 0);
		if (n < 0) {
			fprintf(msg, "mprof-tui: pid %d: out of memory reading its samples\n", (int)faults_pid(f));
			rc = 1;
			break;
		}
		if (gone || faults_stop || (end > 0 && mono_s() >= end)) {
			if (faults_stop && argv)
				kill(faults_pid(f), SIGTERM);
			if (!gone && argv)
				continue;   /* our command: until it has ended (read at its exit stop) */
			if (faults_poll(f, 0) < 0)
				rc = 1;
			else if (!gone)
				faults_resident_read(f);   /* the end of --duration: what it holds now */
			break;
		}
		if (n == 0) {
			struct timespec ts = { 0, 2000000 };
			nanosleep(&ts, NULL);
		}
	}
	char sum[1000];
	faults_summary(f, faults_get_stats(f), sum, sizeof(sum));
	if (!rc && prof_save(faults_prof(f), out, PROF_FMT_NATIVE, &err)) {
		fprintf(msg, "mprof-tui: %s\n", err.msg);
		rc = 1;
	}
	int st = faults_status(f);
	char how[64] = "";
	if (argv && st >= 0 && WIFEXITED(st))
		snprintf(how, sizeof(how), "%.30s exited with status %d; ", argv[0], WEXITSTATUS(st));
	else if (argv && st >= 0 && WIFSIGNALED(st))
		snprintf(how, sizeof(how), "%.30s ended by signal %d; ", argv[0], WTERMSIG(st));
	if (!rc)
		fprintf(msg, "mprof-tui: %spid %d: %s; written to %s\n", how, (int)faults_pid(f), sum, out);
	faults_close(f);
	return rc;
}
