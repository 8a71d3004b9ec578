/* test_inject_trap.c - a thread let go by the injection (inj_release) must
 * not die of a trap of the safe point's breakpoint that was still queued on
 * it: the state a thread is in when PTRACE_INTERRUPT and its breakpoint hit
 * meet (the interrupt's stop reported, the SIGTRAP with si_code TRAP_HWBKPT
 * queued behind it).  Made here in a real child: it queues such a trap on
 * itself with SIGTRAP blocked, is seized and interrupted, and the tracer
 * unblocks SIGTRAP (PTRACE_SETSIGMASK).  The program's own signals, a
 * SIGTRAP of its own included, reach it as before.  A thread cloned by
 * an armed one, which carries its DR7 value, is let go with DR7 0.
 * x86_64 only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#if defined(__x86_64__)
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach/inject/inject_int.h"

static volatile sig_atomic_t got_usr1, got_trap;

static void on_sig(int sig)
{
	if (sig == SIGUSR1)
		got_usr1 = 1;
	else
		got_trap = 1;
}

/* Queues sig on the calling thread with si_code code (a kernel-made trap's
 * when TRAP_HWBKPT). */
static void queue_self(int sig, int code)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = code;
	syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t)syscall(SYS_gettid), sig, &si);
}

/* The child: what is queued on it (SIGTRAP and SIGUSR1 blocked), then it
 * says so on out and waits for a word on in; exits 7 when the signals it
 * expected came, else 8. */
static void child(int out, int in, int ours, int own_trap, int usr1)
{
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGTRAP);
	sigaddset(&m, SIGUSR1);
	sigprocmask(SIG_BLOCK, &m, NULL);
	signal(SIGUSR1, on_sig);
	if (own_trap)
		signal(SIGTRAP, on_sig);
	if (ours)
		queue_self(SIGTRAP, TRAP_HWBKPT);
	if (own_trap)
		queue_self(SIGTRAP, SI_TKILL);
	if (usr1)
		queue_self(SIGUSR1, SI_TKILL);
	char b;
	if (write(out, "r", 1) != 1 || read(in, &b, 1) != 1)
		_exit(9);
	_exit((!usr1 || got_usr1) && (!own_trap || got_trap) ? 7 : 8);
}

/* Runs a child, seizes and interrupts it, unblocks its signals, and lets
 * it go as the injection does with a thread its breakpoint was armed on;
 * the child's wait status. */
static int release_child(int ours, int own_trap, int usr1)
{
	int p[2], q[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(q), 0);
	pid_t c = fork();
	assert_true(c >= 0);
	if (!c)
		child(p[1], q[0], ours, own_trap, usr1);
	char b;
	assert_int_equal(read(p[0], &b, 1), 1);
	if (ptrace(PTRACE_SEIZE, c, NULL, NULL))
		fail_msg("seize %d: %s", (int)c, strerror(errno));
	assert_int_equal(ptrace(PTRACE_INTERRUPT, c, NULL, NULL), 0);
	int st;
	assert_int_equal(waitpid(c, &st, __WALL), c);
	assert_true(WIFSTOPPED(st) && (st >> 16) == PTRACE_EVENT_STOP);
	uint64_t none = 0;   /* the kernel's signal set */
	assert_int_equal(ptrace(PTRACE_SETSIGMASK, c, (void *)sizeof(none), &none), 0);

	pid_t tid = c;
	int sig = 0;
	uint8_t flags = ARMED | TOUCHED;
	session s;
	memset(&s, 0, sizeof(s));
	s.pid = c;
	s.tids = &tid;
	s.sigs = &sig;
	s.clear = &flags;
	s.n = 1;
	inj_release(&s);
	assert_int_equal(write(q[1], "g", 1), 1);
	assert_int_equal(waitpid(c, &st, 0), c);
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
	return st;
}

static void test_queued_trap_dropped(void **state)
{
	(void)state;
	int st = release_child(1, 0, 0);
	if (WIFSIGNALED(st))
		fail_msg("the child died of signal %d", WTERMSIG(st));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 7);
}

static void test_program_signal_kept(void **state)
{
	(void)state;
	int st = release_child(1, 0, 1);
	if (WIFSIGNALED(st))
		fail_msg("the child died of signal %d", WTERMSIG(st));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 7);   /* its SIGUSR1 came */
}

static void test_program_trap_kept(void **state)
{
	(void)state;
	int st = release_child(0, 1, 0);   /* one SIGTRAP at a time can be queued */
	if (WIFSIGNALED(st))
		fail_msg("the child died of signal %d", WTERMSIG(st));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 7);   /* its own SIGTRAP came */
}

#define DR(n) ((void *)offsetof(struct user, u_debugreg[n]))

static int cfd[2], nfd[2];

static void *clone_idle(void *a)
{
	(void)a;
	pid_t me = (pid_t)syscall(SYS_gettid);
	if (write(nfd[1], &me, sizeof(me)) != sizeof(me))
		_exit(9);
	for (;;)
		pause();
}

/* Says its tid, waits for a word, then creates a thread. */
static void *clone_maker(void *a)
{
	(void)a;
	pid_t me = (pid_t)syscall(SYS_gettid);
	char b;
	if (write(nfd[1], &me, sizeof(me)) != sizeof(me) || read(cfd[0], &b, 1) != 1)
		_exit(9);
	pthread_t t;
	pthread_create(&t, NULL, clone_idle, NULL);
	for (;;)
		pause();
}

/* Seizes and stops thread t into a one-thread session. */
static void seize_one(session *s, pid_t *tid, int *sig, uint8_t *flags, pid_t pid, pid_t t)
{
	assert_int_equal(ptrace(PTRACE_SEIZE, t, NULL, NULL), 0);
	assert_int_equal(ptrace(PTRACE_INTERRUPT, t, NULL, NULL), 0);
	int st;
	assert_int_equal(waitpid(t, &st, __WALL), t);
	memset(s, 0, sizeof(*s));
	*tid = t;
	*sig = 0;
	*flags = 0;
	s->pid = pid;
	s->tids = tid;
	s->sigs = sig;
	s->clear = flags;
	s->n = 1;
}

/* A thread created by an armed thread carries its DR7 value: seized, it is
 * let go with DR7 0. */
static void test_clone_dr7_cleared(void **state)
{
	(void)state;
	assert_int_equal(pipe(cfd), 0);
	assert_int_equal(pipe(nfd), 0);
	pid_t c = fork();
	assert_true(c >= 0);
	if (!c) {
		pthread_t t;
		pthread_create(&t, NULL, clone_maker, NULL);
		for (;;)
			pause();
	}
	pid_t m, n, tid;
	int sig;
	uint8_t flags;
	session s;
	assert_int_equal(read(nfd[0], &m, sizeof(m)), sizeof(m));
	seize_one(&s, &tid, &sig, &flags, c, m);
	inj_bp_arm(&s, 0, (uint64_t)(uintptr_t)test_clone_dr7_cleared);   /* never run there */
	assert_true(flags & ARMED);
	assert_int_equal(ptrace(PTRACE_CONT, m, NULL, NULL), 0);
	assert_int_equal(write(cfd[1], "c", 1), 1);
	assert_int_equal(read(nfd[0], &n, sizeof(n)), sizeof(n));
	assert_int_equal(ptrace(PTRACE_INTERRUPT, m, NULL, NULL), 0);
	assert_int_equal(inj_wait_stop(&s, 0), 0);
	inj_release(&s);

	seize_one(&s, &tid, &sig, &flags, c, n);
	errno = 0;
	long inherited = ptrace(PTRACE_PEEKUSER, n, DR(7), NULL);
	inj_bp_seized(&s, 0);
	inj_release(&s);
	seize_one(&s, &tid, &sig, &flags, c, n);
	long after = ptrace(PTRACE_PEEKUSER, n, DR(7), NULL);
	ptrace(PTRACE_DETACH, n, NULL, NULL);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	assert_int_equal(inherited, 1);   /* what the kernel copies at clone */
	assert_int_equal(after, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queued_trap_dropped),
		cmocka_unit_test(test_program_signal_kept),
		cmocka_unit_test(test_program_trap_kept),
		cmocka_unit_test(test_clone_dr7_cleared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

static void test_skip(void **state)
{
	(void)state;
	skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_skip) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
