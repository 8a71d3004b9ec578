/* dumps.c - when the hook writes MPROF_OUT and removes its segment: at
 * exit (the destructor, _exit), on SIGUSR2 (a numbered dump, the program
 * goes on), and on a SIGTERM or SIGINT the program left at its default
 * action (the dump, then death by the same signal: the exit status a
 * parent sees is unchanged).  Allocation-free: most of it runs in signal
 * handlers. */
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
static int forks_dump;    /* MPROF_FORKS=1: forked children dump too */
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
	const char *follow = getenv("MPROF_FOLLOW");
	if (follow && !strcmp(follow, "0"))
		dumpname_unfollow();
}

void dumps_forked(void)
{
	forked_child = 1;
	dump_seq = 0;
}

static void dump_to(seg_header *h, unsigned seq, int try)
{
	char path[4200];
	dumpname_path(path, sizeof(path), out_path, forked_child || descendant, seq);
	modules_scan(h, try);
	int e = dump_write(h, path, out_v1);
	if (e) {
		char why[128];   /* strerrordesc_np: no locale, safe in a handler */
		snprintf(why, sizeof(why), ": %s", strerrordesc_np(e) ? strerrordesc_np(e) : "unknown error");
		hook_say("cannot write ", path, why);
	}
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

/* The last dump and the segment's removal; once (exit, _exit, a signal). */
static void dumps_finish(int in_signal)
{
	seg_header *h = hook_seg;
	if (!h || h->state == SEG_STATE_EXITED)
		return;
	hook_self_enter();
	ring_sweep(h, NULL, 0);   /* threads still alive keep their last events staged: into the ring */
	record_stop();
	if (out_path[0] && (!forked_child || forks_dump))
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
EXPORT void _exit(int status)
{
	dumps_finish(0);
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT void _Exit(int status)
{
	_exit(status);
}

/* ---- SIGTERM and SIGINT at their default action ----------------------- */

/* The program must not see the hook's handler: it asks for the disposition
 * (Python installs its KeyboardInterrupt handler only over SIG_DFL), so the
 * hook's sigaction and signal report SIG_DFL while the hook's handler stands
 * in for it, and a SIG_DFL the program sets puts it back. */
static const int fatal_sigs[] = { SIGTERM, SIGINT };
static int armed[2];
static int fatal_ok;      /* preloaded: the handler cannot outlive the hook */

extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);

static int fatal_index(int sig)
{
	for (int i = 0; i < 2; i++)
		if (fatal_sigs[i] == sig)
			return i;
	return -1;
}

static void on_fatal(int sig);

static int fatal_install(int i)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	int r = __sigaction(fatal_sigs[i], &sa, NULL);
	__atomic_store_n(&armed[i], !r, __ATOMIC_RELEASE);
	return r;
}

/* Dumps, then the default action (SA_RESETHAND put it back) kills the
 * process as it would have without the hook. */
static void on_fatal(int sig)
{
	int e = errno;
	int i = fatal_index(sig);
	if (i >= 0)
		__atomic_store_n(&armed[i], 0, __ATOMIC_RELEASE);
	dumps_finish(1);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	raise(sig);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	errno = e;   /* reached only when the signal is blocked or handled elsewhere */
}

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int i = fatal_ok ? fatal_index(sig) : -1;
	if (i < 0)
		return __sigaction(sig, act, old);
	int was = __atomic_load_n(&armed[i], __ATOMIC_ACQUIRE);
	int r;
	if (act && act->sa_handler == SIG_DFL && !(act->sa_flags & SA_SIGINFO))
		r = __sigaction(sig, NULL, old) || fatal_install(i) ? -1 : 0;
	else {
		r = __sigaction(sig, act, old);
		if (!r && act)
			__atomic_store_n(&armed[i], 0, __ATOMIC_RELEASE);
	}
	if (!r && old && was) {
		memset(old, 0, sizeof(*old));
		old->sa_handler = SIG_DFL;
		sigemptyset(&old->sa_mask);
	}
	return r;
}

/* glibc's signal() reaches the real sigaction directly: BSD semantics here. */
extern sighandler_t bsd_signal(int sig, sighandler_t h);

EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	if (!fatal_ok || fatal_index(sig) < 0)
		return bsd_signal(sig, h);
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);
	return sigaction(sig, &sa, &old) ? SIG_ERR : old.sa_handler;
}

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
	/* Injected, the handler would outlive the hook's detach: preload only. */
	if (late)
		return;
	for (int i = 0; i < 2; i++) {
		struct sigaction old;
		if (!__sigaction(fatal_sigs[i], NULL, &old) && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
			fatal_install(i);
	}
	__atomic_store_n(&fatal_ok, 1, __ATOMIC_RELEASE);
}
