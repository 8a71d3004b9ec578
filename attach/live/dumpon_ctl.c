/* dumpon_ctl.c - mprof-tui --dump-on SPEC PID: the request written into
 * the segment's seg_dumpon (spec, the dumps' name pattern, then seq); a
 * hook whose trigger thread does not run yet gets one through its
 * mprof_dump_on() (ptrace, at a safe point, as --detach calls
 * mprof_detach); a process without the hook gets it injected first. */
#include "attach/live/dumpon_ctl.h"
#include "attach/inject/inject.h"
#include "attach/live/launch.h"
#include "attach/live/segment_read.h"
#include "attach/proc/procfs.h"
#include "attach/shared/dumpon.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CTL_WAIT_MS 2000

/* The hook in pid, injected when it has none (or it is detached): 0, or -1 after saying why. */
static int hook_ensure(int pid, int *injected, FILE *err)
{
	int flags = inject_seg_flags(pid);
	*injected = 0;
	if (flags >= 0 && !(flags & SEG_FLAG_DETACHED))
		return 0;
	char lib[4096];
	prof_error e;
	if (launch_find_lib(lib, sizeof(lib), &e) || inject_load(pid, lib, NULL, 0, &e) < 0) {
		fprintf(err, "mprof-tui: %s\n", e.msg);
		return -1;
	}
	*injected = 1;
	return 0;
}

/* out_arg made absolute (the process has its own working directory), or
 * mprof-PID.pro here; -1 after saying why when its directory is missing. */
static int pattern_of(const char *out_arg, int pid, char *pat, size_t cap, FILE *err)
{
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(err, "mprof-tui: --dump-on: the current directory: %s\n", strerror(errno));
		return -1;
	}
	char name[64];
	snprintf(name, sizeof(name), "mprof-%d.pro", pid);
	const char *o = out_arg ? out_arg : name;
	int n = snprintf(pat, cap, "%s%s%s", o[0] == '/' ? "" : cwd, o[0] == '/' ? "" : "/", o);
	if (n < 0 || (size_t)n >= cap) {
		fprintf(err, "mprof-tui: -o %s: longer than %zu bytes\n", o, cap - 1);
		return -1;
	}
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(pat, '/') - pat), pat);
	struct stat st;
	if (dir[0] && (stat(dir, &st) || !S_ISDIR(st.st_mode))) {
		fprintf(err, "mprof-tui: -o %s: no directory %s\n", o, dir);
		return -1;
	}
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* Says what is in effect: each trigger, and where the next dump goes. */
static void say_set(FILE *out, int pid, const dumpon_spec *sp, const seg_dumpon *d, int injected)
{
	if (injected)
		fprintf(out, "loaded libmprof.so into process %d: " SEG_PATH_FMT "\n", pid, pid);
	for (int i = 0; i < sp->n; i++) {
		char w[200];
		dumpon_describe(&sp->t[i], w, sizeof(w));
		fprintf(out, "process %d: a dump when %s\n", pid, w);
	}
	fprintf(out, "process %d: the next triggered dump goes to %.*s (later ones numbered on)\n", pid, SEG_DUMPON_PATH,
		d->where);
}

/* The block at hc's dumpon_off when it lies inside len bytes, else NULL. */
static const seg_dumpon *block_of(const seg_header *h, size_t len, const seg_header *hc)
{
	uint64_t off = hc->sample.dumpon_off;
	if (!off || off % 64 || off > len || len - off < sizeof(seg_dumpon))
		return NULL;
	return (const seg_dumpon *)((const char *)h + off);
}

int dumpon_ctl_text(const seg_header *h, size_t len, const seg_header *hc, char *buf, size_t cap)
{
	const seg_dumpon *d = block_of(h, len, hc);
	if (!d || __atomic_load_n(&d->result, __ATOMIC_ACQUIRE) != SEG_DUMPON_OK || !d->active[0])
		return 0;
	unsigned long long n = __atomic_load_n(&d->fired, __ATOMIC_ACQUIRE);
	snprintf(buf, cap, "%.*s, %llu written, next %.*s", (int)sizeof(d->active), d->active, n,
		 (int)sizeof(d->where), d->where);
	return 1;
}

int dumpon_ctl_request(const char *spec, const char *pid_arg, const char *out_arg, FILE *out, FILE *err)
{
	dumpon_spec sp;
	char why[400];
	if (dumpon_parse(spec, &sp, why, sizeof(why))) {
		fprintf(err, "mprof-tui: --dump-on %s\n", why);
		return 2;
	}
	int pid = proc_pid_arg(pid_arg);
	if (pid < 0) {
		fprintf(err, "mprof-tui: --dump-on takes one process id, not '%s'\n", pid_arg);
		return 2;
	}
	if (proc_gone(pid)) {
		fprintf(err, "mprof-tui: " PROC_NONE_FMT "\n", pid);
		return 2;
	}
	char pat[SEG_DUMPON_PATH] = "";
	if (out_arg && pattern_of(out_arg, pid, pat, sizeof(pat), err))
		return 2;
	int injected;
	if (hook_ensure(pid, &injected, err))
		return 2;
	seg_map m;
	seg_header hc;
	if (seg_open_arg(&m, "--dump-on", pid_arg, &hc, 1, err) < 0)
		return 2;
	int rc = 2;
	seg_dumpon *d = (seg_dumpon *)block_of(m.h, m.len, &hc);   /* mapped writable */
	if (!d) {
		fprintf(err, "mprof-tui: %s: process %d runs an older libmprof.so, without triggered dumps\n", m.name,
			pid);
		goto out;
	}
	if (!pat[0] && !__atomic_load_n(&d->has_out, __ATOMIC_ACQUIRE) && pattern_of(NULL, pid, pat, sizeof(pat), err))
		goto out;
	snprintf(d->spec, sizeof(d->spec), "%s", spec);
	snprintf(d->out, sizeof(d->out), "%s", pat);
	uint64_t seq = __atomic_add_fetch(&d->seq, 1, __ATOMIC_RELEASE);
	if (!__atomic_load_n(&d->running, __ATOMIC_ACQUIRE)) {
		int64_t ret = 0;
		prof_error e;
		if (inject_hook_call(pid, "mprof_dump_on", &ret, &e)) {
			fprintf(err, "mprof-tui: %s\n", e.msg);
			goto out;
		}
		if (ret < 0) {
			fprintf(err, "mprof-tui: process %d: its hook could not start its trigger thread\n", pid);
			goto out;
		}
	}
	for (long w = 0; __atomic_load_n(&d->done, __ATOMIC_ACQUIRE) < seq && w < CTL_WAIT_MS && !proc_gone(pid); w += 10)
		sleep_ms(10);
	if (__atomic_load_n(&d->done, __ATOMIC_ACQUIRE) < seq) {
		fprintf(err, "mprof-tui: process %d: its hook did not take the triggers within %d s\n", pid,
			CTL_WAIT_MS / 1000);
		goto out;
	}
	switch (__atomic_load_n(&d->result, __ATOMIC_RELAXED)) {
	case SEG_DUMPON_OK:
		say_set(out, pid, &sp, d, injected);
		rc = 0;
		break;
	default:
		fprintf(err, "mprof-tui: process %d: %.*s\n", pid, (int)sizeof(d->why), d->why);
		rc = 1;
		break;
	}
out:
	seg_close(&m);
	return rc;
}
