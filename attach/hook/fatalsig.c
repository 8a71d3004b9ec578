/* fatalsig.c - a signal that kills the process at its default action
 * (SIGTERM, SIGINT, SIGHUP, SIGPIPE, ...) still lets the hook write its
 * dump and remove its segment: the hook's handler stands in for the
 * default, then puts the default back and raises the signal again, so the
 * process dies of it with the exit status a parent would have seen.
 * Preloaded or injected alike; signals that report a fault (SIGSEGV,
 * SIGABRT, ...) are left alone: the hook may be what faulted. */
#include "attach/hook/hook.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* The program must not see the hook's handler: it asks for the disposition
 * (Python installs its KeyboardInterrupt handler only over SIG_DFL), so the
 * hook's sigaction and signal report SIG_DFL while the hook's handler stands
 * in for it, and a SIG_DFL the program sets puts it back. */
static const int fatal_sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1,
				  SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF };
#define NFATAL (int)(sizeof(fatal_sigs) / sizeof(fatal_sigs[0]))
static int fatal_ok;      /* armed once: the wrappers below stand in */

static int fatal_index(int sig)
{
	for (int i = 0; i < NFATAL; i++)
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
	return __sigaction(fatal_sigs[i], &sa, NULL);
}

/* Dumps, then the default action kills the process as it would have
 * without the hook.  SIG_DFL is set again here: a handler the program
 * installed through libc itself may have chained to this one. */
static void on_fatal(int sig)
{
	int e = errno;
	dumps_finish(1);
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	__sigaction(sig, &dfl, NULL);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	raise(sig);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	errno = e;   /* reached only when the signal is blocked or handled elsewhere */
}

/* The disposition the program sees: SIG_DFL where the hook's handler is
 * (asked of the kernel, so a handler set by a path the hook does not see,
 * libc's own or a raw system call, is reported as it is). */
static int fatal_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int i = __atomic_load_n(&fatal_ok, __ATOMIC_ACQUIRE) ? fatal_index(sig) : -1;
	if (i < 0)
		return __sigaction(sig, act, old);
	int r;
	if (act && act->sa_handler == SIG_DFL && !(act->sa_flags & SA_SIGINFO))
		r = __sigaction(sig, NULL, old) || fatal_install(i) ? -1 : 0;
	else
		r = __sigaction(sig, act, old);
	if (!r && old && !(old->sa_flags & SA_SIGINFO) && old->sa_handler == on_fatal) {
		memset(old, 0, sizeof(*old));
		old->sa_handler = SIG_DFL;
		sigemptyset(&old->sa_mask);
	}
	return r;
}

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return fatal_sigaction(sig, act, old);
}

/* glibc's signal() reaches the real sigaction directly: BSD semantics here. */
extern sighandler_t bsd_signal(int sig, sighandler_t h);

EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	if (!__atomic_load_n(&fatal_ok, __ATOMIC_ACQUIRE) || fatal_index(sig) < 0)
		return bsd_signal(sig, h);
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);
	return fatal_sigaction(sig, &sa, &old) ? SIG_ERR : old.sa_handler;
}

/* Injected, the program's own calls reach these through its GOT slots. */
HOOK_GOT_ALIAS(sigaction) HOOK_GOT_ALIAS(signal)

void fatalsig_arm(int late)
{
	(void)late;   /* injected too: the library is never unloaded, so the handler cannot outlive it */
	for (int i = 0; i < NFATAL; i++) {
		struct sigaction old;
		if (!__sigaction(fatal_sigs[i], NULL, &old) && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
			fatal_install(i);
	}
	__atomic_store_n(&fatal_ok, 1, __ATOMIC_RELEASE);
}
