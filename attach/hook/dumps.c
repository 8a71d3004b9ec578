/* dumps.c - when the hook writes MPROF_OUT and removes its segment: at
 * exit (the destructor, _exit), on SIGUSR2 (a numbered dump, the program
 * goes on), and on a fatal signal the program left at its default action
 * (fatalsig.c).  Allocation-free: most of it runs in signal handlers. */
#include "attach/hook/hook.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static char out_path[4096];
static int out_v1, forked_child;
static int descendant;    /* exec'd by a hooked process: names its dump */
static int forks_dump;    /* MPROF_FORKS=1: children (forked, or started by one that records) dump too */
static unsigned dump_seq;

void dumps_init(void)
{
	say_init();
	const char *out = getenv("MPROF_OUT");
	if (out && *out && strlen(out) < sizeof(out_path) - 64)
		strcpy(out_path, out);
	const char *fmt = getenv("MPROF_FORMAT");
	out_v1 = fmt && !strcmp(fmt, "skynet");
	if (fmt && *fmt && !out_v1 && strcmp(fmt, "native"))
		hook_say("MPROF_FORMAT: use native or skynet; using native", "", "");
	forks_dump = (int)hook_env_num("MPROF_FORKS", 0, 0, 1);
	descendant = dumpname_init();
	if (!hook_env_num("MPROF_FOLLOW", 1, 0, 1))
		dumpname_unfollow();
}

void dumps_forked(void)
{
	forked_child = 1;
	dump_seq = 0;
}

int dumps_write(seg_header *h, const char *path, int try)
{
	modules_scan(h, try);
	int e = dump_write(h, path, out_v1);
	if (e) {
		char why[128];   /* strerrordesc_np: no locale, safe in a handler */
		snprintf(why, sizeof(why), ": %s", strerrordesc_np(e) ? strerrordesc_np(e) : "unknown error");
		hook_say("cannot write ", path, why);
	}
	return e;
}

static void dump_to(seg_header *h, unsigned seq, int try)
{
	char path[4200];
	dumpname_path(path, sizeof(path), out_path, forked_child || descendant, seq);
	dumps_write(h, path, try);
}

int dumps_trigger_path(char *dst, size_t cap, const char *pattern, unsigned n)
{
	if (!pattern)
		pattern = out_path;
	if (!pattern[0])
		return -1;
	dumpname_trigger(dst, cap, pattern, forked_child || descendant, n);
	return 0;
}

static void on_usr2(int sig)
{
	(void)sig;
	int e = errno;
	hook_self_enter();
	dump_to(hook_seg, __atomic_add_fetch(&dump_seq, 1, __ATOMIC_RELAXED), 1);
	hook_self_leave(0);
	errno = e;
}

void dumps_finish(int in_signal)
{
	seg_header *h = hook_seg;
	/* A vfork child (or a raw clone) shares the parent's segment: not its to end. */
	if (!h || h->state == SEG_STATE_EXITED || h->pid != (int64_t)getpid())
		return;
	hook_self_enter();
	ring_sweep(h, NULL, 0);   /* threads still alive keep their last events staged: into the ring */
	record_stop();
	/* a wrapper's helpers (dirname, readlink) leave no dumps: the user's program is the process started */
	if (out_path[0] && (!(forked_child || descendant) || forks_dump))
		dump_to(h, 0, in_signal);
	__atomic_store_n(&h->state, SEG_STATE_EXITED, __ATOMIC_RELEASE);
	char sp[64];
	snprintf(sp, sizeof(sp), SEG_PATH_FMT, (int)h->pid);
	unlink(sp);
	hook_self_leave(!in_signal);
}

__attribute__((destructor)) static void dumps_at_exit(void)
{
	dumps_finish(0);
}

/* Shells (dash) and forked children leave with _exit: dump and clean up
 * there too, as exit's destructors would. */
static __attribute__((noreturn)) void exit_now(int status)
{
	dumps_finish(0);
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT void _exit(int status)
{
	exit_now(status);
}

EXPORT void _Exit(int status)
{
	exit_now(status);
}

/* Injected, the program's own calls reach these through its GOT slots. */
HOOK_GOT_ALIAS(_exit) HOOK_GOT_ALIAS(_Exit)

void dumps_arm(int late)
{
	if (out_path[0]) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		sa.sa_handler = on_usr2;
		sa.sa_flags = SA_RESTART;
		__sigaction(SIGUSR2, &sa, NULL);
	}
	fatalsig_arm(late);
}
