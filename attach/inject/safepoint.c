/* safepoint.c - stopping a running process at a moment when no thread
 * holds a lock that dlopen or the hook's start needs: every thread seized
 * with ptrace, unwound with libunwind-ptrace and judged by the code ranges
 * it is in (the rule is at thread_busy); a busy thread runs on to the point
 * where it leaves the allocator or the loader.  x86_64 only. */
#if defined(__x86_64__)
#include "attach/inject/inject_int.h"
#include "attach/proc/procfs.h"
#include "attach/shared/settings.h"
#include "core/path.h"
#include "symbols/elffile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int is_libc(const char *path)
{
	const char *b = path_base(path);
	return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5) || !strncmp(b, "libc.musl", 9);
}

static int is_loader(const char *path)
{
	const char *b = path_base(path);
	return !strncmp(b, "ld-linux", 8) || !strncmp(b, "ld-musl", 7) || !strncmp(b, "ld.so", 5) ||
	       !strncmp(b, "ld-2.", 5);
}

/* The malloc family: no thread may be stopped in them, nor in the unnamed
 * code between them and their named neighbours (static helpers such as
 * _int_malloc, unnamed in a stripped libc, sit there). */
static const char *const alloc_names[] = {
	"malloc", "free", "cfree", "calloc", "realloc", "reallocarray", "posix_memalign", "aligned_alloc",
	"memalign", "valloc", "pvalloc", "malloc_trim", "malloc_usable_size", "mallinfo", "mallinfo2",
	"malloc_stats", "mallopt", "malloc_info", "__libc_malloc", "__libc_free", "__libc_calloc",
	"__libc_realloc", "__libc_memalign", "__libc_valloc", "__libc_pvalloc", "__libc_mallinfo",
	"__libc_mallopt", "__libc_reallocarray", "__default_morecore", NULL,
};

/* Entries that hold the loader's or fork's locks or tear the process
 * down: their own range only (their neighbours include start_thread). */
static const char *const lock_names[] = {
	"__libc_freeres", "__libc_thread_freeres", "dl_iterate_phdr", "dlopen", "dlclose", "dlsym", "dlvsym",
	"dladdr", "dladdr1", "dlinfo", "dlmopen", "dlerror", "__libc_dlopen_mode", "__libc_dlsym",
	"__libc_dlclose", "fork", "_Fork", "vfork", "__libc_fork", "pthread_atfork", "__register_atfork",
	"exit", "_exit", "_Exit", "__cxa_finalize", "__call_tls_dtors", NULL,
};

/* The waits an allocator's own threads sleep in (jemalloc's background
 * thread in pthread_cond_timedwait): the lock of a condition is released
 * for the wait, a sleep holds none. */
static const char *const wait_names[] = {
	"pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait", "nanosleep", "__nanosleep",
	"clock_nanosleep", "__clock_nanosleep", "usleep", "sleep", NULL,
};

/* 2 malloc family (widened), 1 a lock holder (exact), 3 a wait (exact), 0 none. */
static int is_alloc_name(const char *n)
{
	for (int i = 0; alloc_names[i]; i++)
		if (!strcmp(alloc_names[i], n))
			return 2;
	for (int i = 0; lock_names[i]; i++)
		if (!strcmp(lock_names[i], n))
			return 1;
	for (int i = 0; wait_names[i]; i++)
		if (!strcmp(wait_names[i], n))
			return 3;
	return 0;
}

static int fsym_cmp(const void *a, const void *b)
{
	const fsym *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

typedef struct fsym_list {
	fsym *v;
	size_t n, cap;
} fsym_list;

static int fsym_add(void *arg, const elf_symbol *s)
{
	fsym_list *l = arg;
	if (vec_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return 1;   /* out of memory: the symbols so far */
	fsym *f = &l->v[l->n++];
	f->lo = s->value;
	f->hi = s->end;
	snprintf(f->name, sizeof(f->name), "%s", s->name);
	f->alloc = is_alloc_name(f->name);
	return 0;
}

/* A module's function symbols (.dynsym and .symtab), sorted, and the
 * difference between its load address and its file addresses' origin
 * (the first PT_LOAD's vaddr - offset).  Caller frees *out. */
int inj_elf_syms(const char *path, fsym **out, size_t *nout, uint64_t *vaddr0, int *is_static)
{
	fsym_list l = { 0 };
	elffile_layout lay;
	if (elffile_syms(path, ELFFILE_DYNSYM | ELFFILE_SYMTAB | ELFFILE_CODE, &lay, fsym_add, &l) < 0) {
		*out = NULL;
		*nout = 0;
		return -1;
	}
	*vaddr0 = lay.vaddr0;
	if (is_static)
		*is_static = lay.is_static;
	if (l.n)
		qsort(l.v, l.n, sizeof(fsym), fsym_cmp);
	*out = l.v;
	*nout = l.n;
	return 0;
}

uint64_t inj_sym_addr(const fsym *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return v[i].lo;
	return 0;
}

/* Forbidden ranges of a symbol-bearing module: each alloc symbol widened
 * to its named neighbours (static helpers such as _int_malloc sit there,
 * unnamed in a stripped libc). */
static void bad_from_syms(session *s, const fsym *v, size_t n, uint64_t bias)
{
	for (size_t i = 0; i < n; i++) {
		if (!v[i].alloc)
			continue;
		uint64_t lo = v[i].lo, hi = v[i].hi;
		if (v[i].alloc != 2) {
			inj_range_add(s, lo + bias, hi + bias, v[i].alloc == 1 ? R_LOCK : R_WAIT);
			continue;
		}
		for (size_t j = i; j-- > 0;)
			if (!v[j].alloc && v[j].lo != v[i].lo) {
				lo = v[j].hi < lo ? v[j].hi : lo;
				break;
			}
		for (size_t j = i + 1; j < n; j++)
			if (!v[j].alloc && v[j].lo >= v[i].hi) {
				hi = v[j].lo;
				break;
			}
		inj_range_add(s, lo + bias, hi + bias, R_ALLOC);
	}
}

/* An allocator's ranges from its malloc family's symbols (libc, or an
 * executable that defines malloc itself); -1 if they cannot be read. */
static int bad_syms(session *s, const char *path)
{
	fsym *v;
	size_t n;
	uint64_t vaddr0, bias;
	char file[4200];
	if (inj_elf_syms(inj_file(s, path, file, sizeof(file)), &v, &n, &vaddr0, NULL) ||
	    inj_module_bias(s, path, vaddr0, &bias)) {
		free(v);
		return -1;
	}
	bad_from_syms(s, v, n, bias);
	free(v);
	return 0;
}

/* The forbidden ranges, and libc's path (for dlopen). */
int inj_ranges_build(session *s, char *libc, size_t libc_len)
{
	libc[0] = 0;
	char exe[4096] = "", link[64];
	snprintf(link, sizeof(link), "/proc/%d/exe", s->pid);
	ssize_t k = readlink(link, exe, sizeof(exe) - 1);
	exe[k > 0 ? (size_t)k : 0] = 0;
	int provider_done = 0;
	for (size_t i = 0; i < s->nmaps; i++) {
		vmap *m = &s->maps[i];
		if (!m->exec || m->path[0] != '/')
			continue;
		const char *b = path_base(m->path);
		if (is_loader(m->path))
			inj_range_add(s, m->lo, m->hi, R_LOCK);
		else if (!strncmp(b, "libjemalloc", 11) || !strncmp(b, "libtcmalloc", 11) ||
			 !strncmp(b, "libmimalloc", 11) || proc_is_hook_path(m->path))
			inj_range_add(s, m->lo, m->hi, R_ALLOC);
		else if (s->alloc[0] && !strcmp(m->path, s->alloc) && !is_libc(m->path)) {
			/* another allocator library: all of it; the executable: its malloc family */
			if (strcmp(m->path, exe))
				inj_range_add(s, m->lo, m->hi, R_ALLOC);
			else if (!provider_done && bad_syms(s, m->path))
				return -1;
			provider_done = 1;
		} else if (is_libc(m->path)) {
			inj_range_add(s, m->lo, m->hi, R_LIBC);
			if (!libc[0])
				snprintf(libc, libc_len, "%s", m->path);
		}
	}
	if (libc[0] && bad_syms(s, libc))
		return -1;
	return inj_alloc_ranges(s, exe);   /* allocators the hook patches at their entries */
}

/* The kinds of code (R_*) pc lies in. */
static int code_kind(const session *s, uint64_t pc)
{
	int k = 0;
	for (size_t i = 0; i < s->nbad; i++)
		if (pc >= s->bad[i].lo && pc < s->bad[i].hi)
			k |= s->bad[i].kind;
	return k;
}

static int has_tid(const session *s, pid_t t)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->tids[i] == t)
			return 1;
	return 0;
}

/* Waits for tid's stop after an interrupt; remembers a signal it was about
 * to receive (a trap of our breakpoint is dropped).  0 stopped, 1 the
 * thread is gone, -1 the process is gone. */
int inj_wait_stop(session *s, size_t k)
{
	for (;;) {
		int st;
		pid_t r = waitpid(s->tids[k], &st, __WALL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return 1;
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return s->tids[k] == s->pid ? -1 : 1;
		if (WIFSTOPPED(st)) {
			int sig = WSTOPSIG(st);
			if ((st >> 16) == 0 && sig != SIGSTOP &&
			    !(sig == SIGTRAP && (s->clear[k] & TOUCHED) && inj_bp_hit(s->tids[k])))
				s->sigs[k] = sig;   /* signal-delivery-stop: give it back later */
			return 0;
		}
	}
}

/* Lets every thread go, with the signals they were stopped on, and with
 * no breakpoint set or trap of ours queued (breakpoint.c). */
void inj_release(session *s)
{
	for (size_t i = 0; i < s->n; i++) {
		inj_bp_quiet(s, i);
		if (s->tids[i] > 0)
			ptrace(PTRACE_DETACH, s->tids[i], NULL, (void *)(long)s->sigs[i]);
	}
	s->n = 0;
}

/* Seizes and stops every thread, rescanning the task list until no new
 * thread appears. */
static int stop_all(session *s, prof_error *err)
{
	for (int round = 0; round < 100; round++) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task", s->pid);
		DIR *d = opendir(path);
		if (!d) {
			inj_release(s);
			return inj_exited(s->pid, err);
		}
		int added = 0;
		struct dirent *de;
		while ((de = readdir(d))) {
			pid_t t = (pid_t)atoi(de->d_name);
			if (t <= 0 || has_tid(s, t))
				continue;
			if (ptrace(PTRACE_SEIZE, t, NULL, NULL)) {
				if (errno == ESRCH)
					continue;   /* a thread that just left */
				int e = errno;
				closedir(d);
				inj_release(s);
				if (proc_gone(s->pid))
					return inj_exited(s->pid, err);
				long uid, tracer = 0;
				if (!inj_proc_status(s->pid, &uid, &tracer) && tracer && tracer != getpid()) {
					prof_errorf(err, "process %d is already being traced (by process %ld): detach the debugger or tracer first", s->pid, tracer);
					return -1;
				}
				if (e == EPERM)
					return inj_not_permitted(s->pid, err);
				prof_errorf(err, "ptrace(SEIZE) of thread %d: %s", (int)t, strerror(e));
				return -1;
			}
			if (s->n == s->cap) {
				size_t cap = s->cap ? s->cap * 2 : 16;
				pid_t *a = realloc(s->tids, cap * sizeof(*a));
				int *b = a ? realloc(s->sigs, cap * sizeof(*b)) : NULL;
				uint8_t *c = b ? realloc(s->clear, cap) : NULL;
				if (a)
					s->tids = a;
				if (b)
					s->sigs = b;
				if (!c) {
					ptrace(PTRACE_DETACH, t, NULL, NULL);
					closedir(d);
					inj_release(s);
					prof_errorf(err, "out of memory");
					return -1;
				}
				s->clear = c;
				s->cap = cap;
			}
			size_t k = s->n++;
			s->tids[k] = t;
			s->sigs[k] = 0;
			s->clear[k] = 0;
			ptrace(PTRACE_INTERRUPT, t, NULL, NULL);
			int w = inj_wait_stop(s, k);
			if (w < 0) {
				closedir(d);
				inj_release(s);
				return inj_exited(s->pid, err);
			}
			if (w > 0)
				s->tids[k] = -t;   /* gone: kept so it is not seized again */
			else
				inj_bp_seized(s, k);
			added = 1;
		}
		closedir(d);
		if (!added)
			break;
	}
	/* Drop the threads that left (and their breakpoints). */
	size_t j = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->tids[i] > 0) {
			s->tids[j] = s->tids[i];
			s->clear[j] = s->clear[i];
			s->sigs[j++] = s->sigs[i];
		}
	s->n = j;
	if (!s->n || proc_gone(s->pid)) {
		inj_release(s);
		return inj_exited(s->pid, err);
	}
	return 0;
}

/* The safe-point rule.  dlopen and the hook's start take the loader's lock
 * and allocate through the program's allocator, so no thread may be stopped
 * where it holds a lock they need:
 *  - in the loader, or in a libc entry that holds the loader's or fork's
 *    locks (dlopen, dl_iterate_phdr, fork, exit ...): busy;
 *  - in the allocator (libc's malloc family, jemalloc, tcmalloc, mimalloc):
 *    busy, unless the allocator's innermost frame called straight into a
 *    wait in libc (pthread_cond_*wait, nanosleep, ...) and the thread is
 *    still inside it: an allocator's own thread asleep there (jemalloc's
 *    background thread) holds no allocator lock: a condition wait releases
 *    its mutex, a sleep holds none, and the thread stays stopped.
 * A busy thread is let run until it leaves (*leave: the return address of
 * its outermost allocator or loader frame; 0 if unknown) or a moment, and
 * looked at again.  1 when the stopped thread is busy. */
static int thread_busy(session *s, pid_t tid, uint64_t *leave)
{
	*leave = 0;
	if (tid <= 0)
		return 0;
	void *ui = _UPT_create(tid);
	if (!ui)
		return 1;
	unw_cursor_t c;
	if (unw_init_remote(&c, s->as, ui) < 0) {
		_UPT_destroy(ui);
		return 1;
	}
	int busy = 0, all_libc = 1, callee = 0, in_alloc = 0;
	for (int d = 0; d < MAX_FRAMES; d++) {
		unw_word_t ip = 0;
		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		/* A return address points after the call: look at the call. */
		int k = code_kind(s, d ? ip - 1 : ip);
		if (busy) {   /* looking for the first frame outside */
			if (!(k & (R_LOCK | R_ALLOC))) {
				*leave = ip;
				break;
			}
		} else if (k & R_LOCK) {
			busy = 1;
		} else if ((k & R_ALLOC) && !in_alloc) {
			in_alloc = 1;
			if (!(d > 0 && all_libc && (callee & R_WAIT)))
				busy = 1;
			/* asleep: the frames outside still count for the loader's locks */
		}
		all_libc &= !!(k & R_LIBC);
		callee = k;
		if (unw_step(&c) <= 0)
			break;
	}
	_UPT_destroy(ui);
	return busy;
}

/* Stops the process at a moment no thread is busy.  Threads found outside
 * stay stopped (they hold none of the allocator's locks) and are not looked
 * at again; only the busy ones run on, a moment at a time, until each is
 * caught outside too.  They run together: on a loaded machine each waits
 * for a CPU, and the time the program is held grows round by round (up to
 * STOP_MAX_MS) rather than give up. */
int inj_stop_safe(session *s, prof_error *err)
{
	long t0 = inj_now_ms(), hold = STOP_MS;
	long limit = (long)settings_num("MPROF_INJECT_TIMEOUT", TRY_MS, 1, INJ_TIMEOUT_MAX, settings_warn_stderr);
	unsigned seed = (unsigned)getpid();
	while (inj_now_ms() - t0 <= limit) {
		if (stop_all(s, err))
			return -1;
		for (size_t i = 0; i < s->n; i++)
			s->clear[i] &= TOUCHED;
		long t1 = inj_now_ms();
		for (int t = 0; t < TRIES && inj_now_ms() - t1 < hold; t++) {
			/* The busy ones run on together, then stop again. */
			int busy = 0;
			for (size_t i = 0; i < s->n; i++) {
				if ((s->clear[i] & CLEAR) || s->tids[i] <= 0)
					continue;
				/* No breakpoint or trap of ours left on it, whatever it does next. */
				int q = inj_bp_quiet(s, i);
				if (q > 0) {
					s->tids[i] = -s->tids[i];
					continue;
				}
				uint64_t leave = 0;
				if (!q && !thread_busy(s, s->tids[i], &leave)) {
					s->clear[i] = CLEAR;
					continue;
				}
				busy = 1;
				if (leave)
					inj_bp_arm(s, i, leave);
				ptrace(PTRACE_CONT, s->tids[i], NULL, (void *)(long)s->sigs[i]);
				s->sigs[i] = 0;
			}
			if (busy) {
				seed = seed * 1103515245 + 12345;
				struct timespec ts = { 0, (RUN_US + (long)(seed >> 8) % (RUN_US * 10)) * 1000 };
				nanosleep(&ts, NULL);
			}
			for (size_t i = 0; busy && i < s->n; i++)
				if (!(s->clear[i] & CLEAR) && s->tids[i] > 0)
					ptrace(PTRACE_INTERRUPT, s->tids[i], NULL, NULL);
			for (size_t i = 0; busy && i < s->n; i++) {
				if ((s->clear[i] & CLEAR) || s->tids[i] <= 0)
					continue;
				int w = inj_wait_stop(s, i);
				if (w < 0) {
					s->n = 0;
					return inj_exited(s->pid, err);
				}
				if (w > 0)
					s->tids[i] = -s->tids[i];
			}
			if (busy)
				continue;
			/* Threads started meanwhile are seized (not clear yet), the gone ones dropped. */
			if (stop_all(s, err))
				return -1;
			size_t k = 0;
			while (k < s->n && (s->clear[k] & CLEAR))
				k++;
			if (k == s->n)
				return 0;
		}
		inj_release(s);
		if (hold < STOP_MAX_MS)
			hold *= 2;
		inj_sleep_ms(10);
	}
	if (proc_gone(s->pid))
		return inj_exited(s->pid, err);
	prof_errorf(err, "process %d: gave up after %.1f s: some thread was always inside the allocator or the dynamic loader (MPROF_INJECT_TIMEOUT=MS waits longer)", s->pid, (double)limit / 1000);
	return -1;
}

#endif
