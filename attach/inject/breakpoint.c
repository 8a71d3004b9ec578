/* breakpoint.c - the execution breakpoints that run a busy thread out of
 * the allocator (safepoint.c), and the guarantee that none outlives the
 * stop.  A breakpoint is DR0 in the thread's own debug registers; a hit is
 * a SIGTRAP (si_code TRAP_HWBKPT) queued on that thread, delivered before
 * it runs another instruction.  But a thread interrupted (PTRACE_INTERRUPT)
 * just as it hits the breakpoint reports the interrupt's stop first and
 * keeps the trap queued; let go like that, it dies of the trap.  So a
 * thread that was armed is, before it is let go or made to call (and
 * whatever it did meanwhile): disarmed, with DR7 read back as 0, and
 * resumed into its own signal delivery, where it stops on each queued trap
 * of ours before running any code of its own, until none is queued; the
 * traps are dropped.  A thread created meanwhile is not traced until
 * seized; cloned by an armed thread, it inherits no breakpoint (the kernel
 * clears them) but the DR7 value, cleared too.  x86_64 only. */
#if defined(__x86_64__)
#include "attach/inject/inject_int.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#define DR(n) ((void *)offsetof(struct user, u_debugreg[n]))
#define DRAIN_STOPS 64   /* stops a drain may take (each one dequeues something) */

/* Sets DR0 = at, enabled in DR7 (local, execute, 1 byte). */
void inj_bp_arm(session *s, size_t i, uint64_t at)
{
	pid_t t = s->tids[i];
	s->clear[i] |= TOUCHED;   /* even a failed write leaves the queue to check */
	if (!ptrace(PTRACE_POKEUSER, t, DR(0), (void *)at) && !ptrace(PTRACE_POKEUSER, t, DR(7), (void *)1L))
		s->clear[i] |= ARMED;
}

/* A thread just seized whose DR7 is not 0 (one cloned by an armed thread
 * inherits the value, though not the breakpoint): cleared before it goes. */
void inj_bp_seized(session *s, size_t k)
{
	errno = 0;
	long dr7 = ptrace(PTRACE_PEEKUSER, s->tids[k], DR(7), NULL);
	if (dr7 || errno)
		s->clear[k] |= TOUCHED;
}

/* DR7, DR0 and DR6 zero, DR7 read back: 0, or -1 (errno set). */
static int bp_clear(pid_t t)
{
	if (ptrace(PTRACE_POKEUSER, t, DR(7), (void *)0L) || ptrace(PTRACE_POKEUSER, t, DR(0), (void *)0L) ||
	    ptrace(PTRACE_POKEUSER, t, DR(6), (void *)0L))
		return -1;
	errno = 0;
	long dr7 = ptrace(PTRACE_PEEKUSER, t, DR(7), NULL);
	if (errno)
		return -1;
	if (dr7) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* Disarms a stopped thread; the queue is left for inj_bp_quiet. */
void inj_bp_disarm(session *s, size_t i)
{
	if (!(s->clear[i] & ARMED))
		return;
	pid_t t = s->tids[i] < 0 ? -s->tids[i] : s->tids[i];
	if (!bp_clear(t))
		s->clear[i] &= (uint8_t)~ARMED;
}

/* The traps of ours queued on the stopped thread t (its own queue, not the
 * process's), or -1 (errno set) when it cannot be read. */
static int traps_queued(pid_t t)
{
	siginfo_t q[32];
	struct __ptrace_peeksiginfo_args a = { 0, 0, 32 };
	int n = 0;
	for (;;) {
		long got = ptrace(PTRACE_PEEKSIGINFO, t, &a, q);
		if (got < 0)
			return -1;
		for (long k = 0; k < got; k++)
			n += q[k].si_signo == SIGTRAP && q[k].si_code == TRAP_HWBKPT;
		if (got < 32)
			return n;
		a.off += 32;
	}
}

/* 1 when t, in a SIGTRAP signal-delivery-stop, stopped on a breakpoint
 * hit (ours: nothing else sets the thread's debug registers). */
int inj_bp_hit(pid_t t)
{
	siginfo_t si;
	return !ptrace(PTRACE_GETSIGINFO, t, NULL, &si) && si.si_signo == SIGTRAP && si.si_code == TRAP_HWBKPT;
}

/* Waits for t's next stop: 0 stopped (*sig: the signal of a
 * signal-delivery-stop that is not a trap of ours, else 0), 1 gone. */
static int next_stop(pid_t t, int *sig)
{
	*sig = 0;
	for (;;) {
		int st;
		pid_t r = waitpid(t, &st, __WALL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || WIFEXITED(st) || WIFSIGNALED(st))
			return 1;
		if (!WIFSTOPPED(st))
			continue;
		if ((st >> 16) == 0 && !(WSTOPSIG(st) == SIGTRAP && inj_bp_hit(t)))
			*sig = WSTOPSIG(st);
		return 0;
	}
}

/* Leaves the stopped thread i with no breakpoint and no trap of ours
 * queued; a signal of the program's met on the way is kept for it
 * (s->sigs).  0 done, 1 the thread is gone, -1 it could not be done. */
int inj_bp_quiet(session *s, size_t i)
{
	if (!(s->clear[i] & TOUCHED))
		return 0;
	pid_t t = s->tids[i] < 0 ? -s->tids[i] : s->tids[i];
	if (bp_clear(t))
		return errno == ESRCH ? 1 : -1;   /* ESRCH: a stopped thread that is gone */
	s->clear[i] &= (uint8_t)~ARMED;
	int pass = s->sigs[i];
	for (int n = 0; n < DRAIN_STOPS; n++) {
		int q = traps_queued(t);
		if (q < 0)
			return errno == ESRCH ? 1 : -1;
		if (!q) {
			s->sigs[i] = pass;
			s->clear[i] &= (uint8_t)~TOUCHED;
			return 0;
		}
		/* The kernel hands queued signals out, the trap first (a
		 * synchronous one), before the thread returns to its code. */
		s->sigs[i] = 0;
		if (ptrace(PTRACE_CONT, t, NULL, (void *)(long)pass) || next_stop(t, &pass))
			return 1;
	}
	s->sigs[i] = pass;
	return -1;
}

#endif
