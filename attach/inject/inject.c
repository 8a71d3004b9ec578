/* inject.c - load libmprof.so into a running process; see inject.h.
 * Stop: PTRACE_SEIZE + PTRACE_INTERRUPT on every thread (rescanning
 * /proc/PID/task until no new one shows up).  Check: unwind each thread
 * with libunwind-ptrace; no frame may lie in the allocator (libc's malloc
 * family and the code around it, jemalloc/tcmalloc), the loader or the
 * libc entries that hold the loader's or fork's locks; else let go, wait
 * a few ms, and try again.  Call: on one thread, with its general and
 * extended registers saved, a call frame below the red zone whose return
 * address is 0 (the SIGSEGV at rip 0 says the call returned), and the
 * string argument on that stack.  The other threads stay stopped during
 * the call; if it takes longer than a moment they are let run, so a lock
 * one of them holds cannot block it. */
#include "attach/inject/inject.h"
#include "attach/inject/allocator.h"
#include "attach/live/launch.h"
#include "attach/live/segment_read.h"
#include "attach/proc/procfs.h"
#include "attach/proc/maps.h"
#include "attach/shared/segment.h"
#include "core/path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int inject_seg_flags(int pid)
{
	char path[64];
	seg_path_of(pid, path, sizeof(path));
	int fd = seg_file_open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	seg_header h;
	ssize_t n = pread(fd, &h, sizeof(h), 0);
	close(fd);
	if (n != (ssize_t)sizeof(h) || memcmp(h.magic, SEG_MAGIC, 8))
		return -1;
	if (proc_has_hook(pid) == 0)
		return -1;   /* left by the program before an exec: no hook in it now */
	return (int)(h.flags & 0xffff);
}

int inject_still_records(int pid)
{
	int flags = inject_seg_flags(pid);
	return flags >= 0 && (flags & SEG_FLAG_LATE) && !(flags & SEG_FLAG_DETACHED) && !proc_gone(pid);
}

#if !defined(__x86_64__)

int inject_load(int pid, const char *lib, char *alloc, size_t alloc_cap, prof_error *err)
{
	(void)pid;
	(void)lib;
	(void)alloc;
	(void)alloc_cap;
	prof_errorf(err, "injecting into a running process is implemented for x86_64 only; start the program with LD_PRELOAD=libmprof.so");
	return -1;
}

int inject_detach(int pid, prof_error *err)
{
	(void)pid;
	prof_errorf(err, "detaching from a running process is implemented for x86_64 only");
	return -1;
}

int inject_hook_call(int pid, const char *name, int64_t *ret, prof_error *err)
{
	(void)pid;
	*ret = -1;
	prof_errorf(err, "calling %s in a running process is implemented for x86_64 only", name);
	return -1;
}

#else

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <gelf.h>
#include <libunwind-ptrace.h>
#include <signal.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "attach/inject/inject_int.h"

/* Checks that can be made before touching the process. */
static int precheck(int pid, prof_error *err)
{
	long uid, tracer;
	if (pid <= 0 || inj_proc_status(pid, &uid, &tracer)) {
		prof_errorf(err, PROC_NONE_FMT, pid);
		return -1;
	}
	if (proc_gone(pid))
		return inj_exited(pid, err);
	if (tracer && tracer != getpid()) {
		prof_errorf(err, "process %d is already being traced (by process %ld): detach the debugger or tracer first", pid, tracer);
		return -1;
	}
	if (geteuid() != 0 && uid >= 0 && uid != (long)geteuid()) {
		prof_errorf(err, "not permitted to trace process %d: it belongs to another user (uid %ld); ptrace needs the same user or CAP_SYS_PTRACE", pid, uid);
		return -1;
	}
	return 0;
}

static int maps_read(session *s, prof_error *err)
{
	proc_maps r;
	proc_map pm;
	if (proc_maps_open(&r, s->pid)) {
		if (errno == EACCES || errno == EPERM)
			return inj_not_permitted(s->pid, err);
		return inj_exited(s->pid, err);
	}
	size_t cap = 0;
	while (proc_maps_next(&r, &pm)) {
		if (vec_grow((void **)&s->maps, &cap, s->nmaps + 1, sizeof(*s->maps))) {
			proc_maps_close(&r);
			prof_errorf(err, "out of memory");
			return -1;
		}
		vmap *m = &s->maps[s->nmaps++];
		m->lo = pm.lo;
		m->hi = pm.hi;
		m->off = pm.offset;
		m->exec = pm.perms[2] == 'x';
		snprintf(m->path, sizeof(m->path), "%s", pm.path);
	}
	proc_maps_close(&r);
	return 0;
}

static int poke(pid_t tid, uint64_t addr, const void *src, size_t len)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = 0;
		memcpy(&w, (const char *)src + i, len - i < 8 ? len - i : 8);
		if (ptrace(PTRACE_POKEDATA, tid, (void *)(addr + i), (void *)w))
			return -1;
	}
	return 0;
}

static void peek_str(pid_t tid, uint64_t addr, char *buf, size_t cap)
{
	size_t k = 0;
	while (addr && k + 1 < cap) {
		errno = 0;
		long w = ptrace(PTRACE_PEEKDATA, tid, (void *)(addr + k), NULL);
		if (errno)
			break;
		char c[8];
		memcpy(c, &w, 8);
		size_t i;
		for (i = 0; i < 8 && k + 1 < cap; i++) {
			buf[k++] = c[i];
			if (!c[i])
				return;
		}
	}
	buf[k] = 0;
}

/* Lets the other threads run (a lock one holds may block the call), with
 * the signals they were stopped on. */
static void others_run(session *s, pid_t tid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->tids[i] != tid) {
			ptrace(PTRACE_CONT, s->tids[i], NULL, (void *)(long)s->sigs[i]);
			s->sigs[i] = 0;
		}
	s->others_running = 1;
}

/* Stops them again, so they can be detached with their signals. */
static void others_stop(session *s, pid_t tid)
{
	if (!s->others_running)
		return;
	for (size_t i = 0; i < s->n; i++) {
		if (s->tids[i] == tid)
			continue;
		ptrace(PTRACE_INTERRUPT, s->tids[i], NULL, NULL);
		if (inj_wait_stop(s, i))
			s->sigs[i] = 0;
	}
	s->others_running = 0;
}

/* Calls fn(str or a0, str2 or a1, a2) on the stopped thread tid; *ret
 * gets rax.  Registers (general and extended) are restored after. */
static int remote_call(session *s, pid_t tid, uint64_t fn, const char *str, const char *str2, uint64_t a0,
		       uint64_t a1, uint64_t a2, uint64_t *ret, prof_error *err)
{
	struct user_regs_struct saved, r;
	static unsigned char xs[16384] __attribute__((aligned(64)));
	struct iovec iov = { xs, sizeof(xs) };
	struct user_fpregs_struct fp;
	if (ptrace(PTRACE_GETREGS, tid, NULL, &saved)) {
		int e = errno;
		if (proc_gone_within(s->pid, INJ_EXIT_MS))
			return inj_exited(s->pid, err);
		prof_errorf(err, "ptrace(GETREGS) of thread %d: %s", (int)tid, strerror(e));
		return -1;
	}
	int have_xs = !ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov);
	if (!have_xs && ptrace(PTRACE_GETFPREGS, tid, NULL, &fp)) {
		prof_errorf(err, "ptrace(GETFPREGS) of thread %d: %s", (int)tid, strerror(errno));
		return -1;
	}
	r = saved;
	uint64_t sp = (saved.rsp - 256) & ~(uint64_t)15;   /* below the 128-byte red zone */
	const char *strs[2] = { str, str2 };
	uint64_t *args[2] = { &a0, &a1 };
	for (int i = 0; i < 2; i++) {
		if (!strs[i])
			continue;
		size_t len = strlen(strs[i]) + 1;
		sp -= (len + 15) & ~(size_t)15;
		if (poke(tid, sp, strs[i], len)) {
			prof_errorf(err, "cannot write to the stack of thread %d: %s", (int)tid, strerror(errno));
			return -1;
		}
		*args[i] = sp;
	}
	sp -= 8;   /* at the call's entry, rsp + 8 is 16-byte aligned */
	uint64_t zero = 0;
	if (poke(tid, sp, &zero, 8)) {
		prof_errorf(err, "cannot write to the stack of thread %d: %s", (int)tid, strerror(errno));
		return -1;
	}
	r.rsp = sp;
	r.rip = fn;
	r.rdi = a0;
	r.rsi = a1;
	r.rdx = a2;
	r.rax = 0;
	r.orig_rax = (uint64_t)-1;   /* no syscall restart on resume */
	if (ptrace(PTRACE_SETREGS, tid, NULL, &r) || ptrace(PTRACE_CONT, tid, NULL, NULL)) {
		prof_errorf(err, "ptrace of thread %d: %s", (int)tid, strerror(errno));
		return -1;
	}
	long t0 = inj_now_ms();
	int done = 0;
	while (!done) {
		int st;
		pid_t w = waitpid(tid, &st, __WALL | WNOHANG);
		if (w < 0 && errno != EINTR)
			return inj_exited(s->pid, err);
		if (w <= 0) {
			long el = inj_now_ms() - t0;
			if (el > CALL_ALONE_MS && !s->others_running)
				others_run(s, tid);
			if (el > CALL_MAX_MS) {
				prof_errorf(err, "process %d: the injected call did not return within %d s", s->pid, CALL_MAX_MS / 1000);
				return -1;
			}
			inj_sleep_ms(1);
			continue;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return inj_exited(s->pid, err);
		if (!WIFSTOPPED(st))
			continue;
		int sig = WSTOPSIG(st);
		if ((st >> 16) != 0) {   /* an event or group stop: carry on */
			ptrace(PTRACE_CONT, tid, NULL, NULL);
			continue;
		}
		if (sig == SIGSEGV) {
			struct user_regs_struct q;
			if (!ptrace(PTRACE_GETREGS, tid, NULL, &q) && q.rip == 0) {
				*ret = q.rax;
				done = 1;
				continue;
			}
		}
		ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig);   /* the program's own signal */
	}
	if (ptrace(PTRACE_SETREGS, tid, NULL, &saved) ||
	    (have_xs ? ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &iov)
		     : ptrace(PTRACE_SETFPREGS, tid, NULL, &fp))) {
		prof_errorf(err, "cannot restore the registers of thread %d: %s", (int)tid, strerror(errno));
		return -1;
	}
	return 0;
}

static void session_free(session *s)
{
	inj_release(s);
	if (s->as)
		unw_destroy_addr_space(s->as);
	free(s->tids);
	free(s->sigs);
	free(s->clear);
	free(s->maps);
	free(s->bad);
}

/* Opens the session: checks, maps, forbidden ranges.  libc gets libc's path. */
static int session_open(session *s, int pid, char *libc, size_t libc_len, prof_error *err)
{
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	if (precheck(pid, err) || maps_read(s, err))
		return -1;
	char exe[64];
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	fsym *v;
	size_t n;
	uint64_t vaddr0;
	int is_static = 0;
	if (!inj_elf_syms(exe, &v, &n, &vaddr0, &is_static) && is_static) {
		free(v);
		prof_errorf(err, "process %d is statically linked: a library cannot be loaded into it (build it dynamically, or start it with LD_PRELOAD)", pid);
		return -1;
	}
	free(v);
	if (allocator_identify(pid, s->alloc, sizeof(s->alloc), err))
		return proc_gone_within(pid, INJ_EXIT_MS) ? inj_exited(pid, err) : -1;   /* it exited while being read */
	if (inj_ranges_build(s, libc, libc_len)) {
		prof_errorf(err, "process %d: cannot read the symbols of %s", pid, libc);
		return -1;
	}
	snprintf(s->libc, sizeof(s->libc), "%s", libc);
	s->as = unw_create_addr_space(&_UPT_accessors, 0);
	if (!s->as) {
		prof_errorf(err, "libunwind: cannot create an address space");
		return -1;
	}
	unw_set_caching_policy(s->as, UNW_CACHE_NONE);
	return 0;
}

/* The address of name in the module mapped as path, 0 if none. */
static uint64_t remote_sym(session *s, const char *path, const char *name)
{
	fsym *v;
	size_t n;
	uint64_t vaddr0, bias;
	char file[4200];
	if (inj_elf_syms(inj_file(s, path, file, sizeof(file)), &v, &n, &vaddr0, NULL))
		return 0;
	uint64_t a = inj_sym_addr(v, n, name);
	free(v);
	if (!a || inj_module_bias(s, path, vaddr0, &bias))
		return 0;
	return a + bias;
}

/* The address of name in the process's libmprof.so (by its path, or the
 * memfd an injection into a container loaded it from), 0 if none. */
static uint64_t hook_sym(session *s, const char *name)
{
	uint64_t fn = 0;
	for (size_t i = 0; i < s->nmaps && !fn; i++)
		if (proc_is_hook_path(s->maps[i].path))
			fn = remote_sym(s, s->maps[i].path, name);
	return fn;
}

static int wait_segment(int pid)
{
	for (int i = 0; i < 200; i++) {
		if (inject_seg_flags(pid) >= 0)
			return 0;
		inj_sleep_ms(10);
	}
	return -1;
}

/* Runs fn (in the module at path) with a string or numeric argument. */
/* 1 when fn still lies in the same code mapping as when the session
 * opened: a process that exec'd meanwhile has its libraries elsewhere, and
 * a call at the old address would crash it. */
static int still_mapped(session *s, uint64_t fn)
{
	session now;
	memset(&now, 0, sizeof(now));
	now.pid = s->pid;
	prof_error e;
	int same = 0;
	if (!maps_read(&now, &e))
		for (size_t i = 0; i < s->nmaps && !same; i++) {
			const vmap *a = &s->maps[i];
			if (!a->exec || fn < a->lo || fn >= a->hi)
				continue;
			for (size_t j = 0; j < now.nmaps && !same; j++)
				same = now.maps[j].lo == a->lo && now.maps[j].hi == a->hi && now.maps[j].exec &&
				       !strcmp(now.maps[j].path, a->path);
		}
	free(now.maps);
	return same;
}

/* 1 when the process sees the file at abs as the host does (same file
 * through its root): dlopen can take the path.  A container (another mount
 * namespace, a chroot) usually has no such file. */
static int lib_visible(int pid, const char *abs)
{
	char there[4200];
	struct stat a, b;
	snprintf(there, sizeof(there), "/proc/%d/root%s", pid, abs);
	return !stat(abs, &a) && !stat(there, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Copies the file lib into the process's memfd fd, from the host, through
 * /proc/PID/fd/FD: nothing is written to the process's file system. */
static int memfd_fill(int pid, int fd, const char *lib, prof_error *err)
{
	char dst[64];
	snprintf(dst, sizeof(dst), "/proc/%d/fd/%d", pid, fd);
	int in = open(lib, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		prof_errorf(err, "%s: %s", lib, strerror(errno));
		return -1;
	}
	int out = open(dst, O_WRONLY | O_CLOEXEC);
	if (out < 0) {
		prof_errorf(err, "%s (process %d's memfd): %s", dst, pid, strerror(errno));
		close(in);
		return -1;
	}
	char buf[65536];
	ssize_t n = 0;
	int rc = 0;
	while (!rc && (n = read(in, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < n && !rc;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w <= 0)
				rc = -1;
			else
				off += w;
		}
	if (rc || n < 0)
		prof_errorf(err, "copying %s into %s: %s", lib, dst, strerror(errno));
	close(in);
	close(out);
	return rc || n < 0 ? -1 : 0;
}

/* dlopen of lib (flag a1) on the stopped thread tid, through a memfd the
 * process makes (memfd_create by syscall(2), any glibc), filled from the
 * host, opened as /proc/self/fd/N and closed after. */
static int memfd_dlopen(session *s, pid_t tid, uint64_t dl, const char *lib, uint64_t a1, uint64_t *ret,
			prof_error *err)
{
	uint64_t sys = remote_sym(s, s->libc, "syscall"), clo = remote_sym(s, s->libc, "close"), r = 0;
	if (!sys || !clo) {
		prof_errorf(err, "process %d: no syscall or close in its libc (%s)", s->pid, s->libc);
		return -1;
	}
	if (remote_call(s, tid, sys, NULL, "libmprof.so", SYS_memfd_create, 0, MFD_CLOEXEC, &r, err))
		return -1;
	int fd = (int)r;
	if (fd < 0) {
		prof_errorf(err, "process %d: memfd_create failed in it", s->pid);
		return -1;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int rc = memfd_fill(s->pid, fd, lib, err);
	if (!rc)
		rc = remote_call(s, tid, dl, path, NULL, 0, a1, 0, ret, err);
	remote_call(s, tid, clo, NULL, NULL, (uint64_t)fd, 0, 0, &r, err);   /* the mapping keeps the file */
	return rc;
}

/* env (NAME=VALUE, or NULL): set in the target around the call (setenv
 * before, unsetenv after, in the same stop), so the hook's start reads it.
 * memfd: fn is dlopen and str the library, loaded through memfd_dlopen. */
static int call_in(session *s, uint64_t fn, const char *str, uint64_t a1, const char *env, int memfd,
		   uint64_t *ret, prof_error *err)
{
	if (inj_stop_safe(s, err))
		return -1;
	if (!still_mapped(s, fn)) {
		inj_release(s);
		if (proc_gone(s->pid))
			return inj_exited(s->pid, err);
		prof_errorf(err, "process %d ran a new program (exec) during the injection; nothing was done: try again", s->pid);
		return -1;
	}
	pid_t tid = s->tids[0];
	char name[64] = "";
	uint64_t set = 0, unset = 0, r;
	if (env && s->libc[0] && strchr(env, '=') && (size_t)(strchr(env, '=') - env) < sizeof(name)) {
		snprintf(name, sizeof(name), "%.*s", (int)(strchr(env, '=') - env), env);
		set = remote_sym(s, s->libc, "setenv");
		unset = remote_sym(s, s->libc, "unsetenv");
	}
	int rc = set && unset ? remote_call(s, tid, set, name, strchr(env, '=') + 1, 0, 0, 1, &r, err) : 0;
	if (!rc)
		rc = memfd ? memfd_dlopen(s, tid, fn, str, a1, ret, err)
			   : remote_call(s, tid, fn, str, NULL, 0, a1, 0, ret, err);
	if (set && unset)
		remote_call(s, tid, unset, name, NULL, 0, 0, 0, &r, err);
	others_stop(s, tid);
	return rc;
}

int inject_load(int pid, const char *lib, char *alloc, size_t alloc_cap, prof_error *err)
{
	char abs[4096];
	if (alloc && alloc_cap)
		alloc[0] = 0;
	if (!realpath(lib, abs)) {
		prof_errorf(err, "%s: %s", lib, strerror(errno));
		return -1;
	}
	int flags = inject_seg_flags(pid);
	session s;
	char libc[512];
	if (session_open(&s, pid, libc, sizeof(libc), err)) {
		session_free(&s);
		return -1;
	}
	if (alloc && alloc_cap)
		snprintf(alloc, alloc_cap, "%s", s.alloc);
	int rc = -1;
	uint64_t ret = 0;
	if (flags >= 0) {
		if (!(flags & SEG_FLAG_DETACHED)) {
			session_free(&s);
			return INJECT_PRESENT;
		}
		uint64_t fn = hook_sym(&s, "mprof_attach");
		if (!fn) {
			prof_errorf(err, "process %d: no mprof_attach in its libmprof.so", pid);
		} else if (!call_in(&s, fn, NULL, 0, NULL, 0, &ret, err)) {
			if ((int)ret < 0)
				prof_errorf(err, "process %d: mprof_attach failed", pid);
			else
				rc = INJECT_REATTACHED;
		}
		session_free(&s);
		return rc;
	}
	uint64_t dl = libc[0] ? remote_sym(&s, libc, "dlopen") : 0;
	uint64_t dlerr = libc[0] ? remote_sym(&s, libc, "dlerror") : 0;
	if (!dl) {
		if (libc[0])
			prof_errorf(err, "process %d: no dlopen in its libc (%s): glibc 2.34 or later is needed", pid, libc);
		else
			prof_errorf(err, "process %d: no dlopen (no libc mapped): a library cannot be loaded into it", pid);
		session_free(&s);
		return -1;
	}
	char env[4200] = "";
	const char *funcs = getenv("MPROF_FUNCS");
	if (funcs && *funcs)   /* the functions the hook is to patch, from our environment */
		snprintf(env, sizeof(env), "MPROF_FUNCS=%s", funcs);
	int memfd = !lib_visible(pid, abs);
	if (!call_in(&s, dl, abs, RTLD_NOW, env[0] ? env : NULL, memfd, &ret, err)) {
		if (ret) {
			rc = INJECT_LOADED;
		} else {
			char msg[300] = "";
			uint64_t m = 0;
			pid_t tid = s.n ? s.tids[0] : 0;
			if (dlerr && tid && !remote_call(&s, tid, dlerr, NULL, NULL, 0, 0, 0, &m, err))
				peek_str(tid, m, msg, sizeof(msg));
			prof_errorf(err, "process %d: dlopen(%s%s) failed in it: %s", pid, abs, memfd ? ", from a memfd" : "",
				    msg[0] ? msg : "no reason given");
		}
	}
	session_free(&s);
	if (rc == INJECT_LOADED && wait_segment(pid)) {
		if (proc_gone(pid))
			return inj_exited(pid, err);
		prof_errorf(err, "process %d: libmprof.so is loaded but made no segment (see the process's stderr)", pid);
		return -1;
	}
	return rc;
}

int inject_detach(int pid, prof_error *err)
{
	int flags = inject_seg_flags(pid);
	if (flags < 0) {
		long uid, tracer;
		if (inj_proc_status(pid, &uid, &tracer))
			prof_errorf(err, PROC_NONE_FMT, pid);
		else
			prof_errorf(err, "process %d has no mprof segment: nothing to detach", pid);
		return -1;
	}
	if (!(flags & SEG_FLAG_LATE)) {
		prof_errorf(err, "process %d was started with the hook preloaded: there is nothing to detach", pid);
		return -1;
	}
	if (flags & SEG_FLAG_DETACHED) {
		prof_errorf(err, "process %d is already detached (mprof-tui --inject %d records again)", pid, pid);
		return -1;
	}
	int64_t ret;
	if (inject_hook_call(pid, "mprof_detach", &ret, err))
		return -1;
	if ((int)ret < 0) {
		prof_errorf(err, "process %d: mprof_detach failed (the hook was not loaded late)", pid);
		return -1;
	}
	return (int)ret;
}

int inject_hook_call(int pid, const char *name, int64_t *ret, prof_error *err)
{
	session s;
	char libc[512];
	if (session_open(&s, pid, libc, sizeof(libc), err)) {
		session_free(&s);
		return -1;
	}
	uint64_t fn = hook_sym(&s, name), r = 0;
	int rc = -1;
	if (!fn)
		prof_errorf(err, "process %d: no %s in its libmprof.so", pid, name);
	else if (!call_in(&s, fn, NULL, 0, NULL, 0, &r, err))
		rc = 0;
	*ret = (int64_t)(int32_t)r;   /* the functions called return int */
	session_free(&s);
	return rc;
}

#endif
