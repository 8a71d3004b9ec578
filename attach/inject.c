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
#include "attach/inject.h"
#include "attach/allocator.h"
#include "attach/launch.h"
#include "attach/procfs.h"
#include "attach/segment.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

/* Uid and TracerPid from /proc/PID/status; -1 when there is no such process. */
static int proc_status(int pid, long *uid, long *tracer)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	*uid = -1;
	*tracer = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Uid:", 4))
			*uid = strtol(line + 4, NULL, 10);
		else if (!strncmp(line, "TracerPid:", 10))
			*tracer = strtol(line + 10, NULL, 10);
	}
	fclose(f);
	return 0;
}

int inject_seg_flags(int pid)
{
	char path[64];
	snprintf(path, sizeof(path), SEG_PATH_FMT, pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
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
#include <sys/wait.h>
#include <time.h>

#define TRIES 5000          /* check rounds in one stop */
#define STOP_MS 50          /* the longest the program is held still while checking */
#define STOP_MAX_MS 800     /* ... doubling each round a loaded machine needs more */
#define RUN_US 20           /* busy threads run on this long (and up to 10x more) */
#define TRY_MS 10000        /* and the time they may take (MPROF_INJECT_TIMEOUT) */
#define CALL_ALONE_MS 2000  /* the call runs with the others stopped this long */
#define CALL_MAX_MS 30000
#define MAX_FRAMES 256

typedef struct vmap {
	uint64_t lo, hi, off;
	int exec;
	char path[512];
} vmap;

/* What code a range holds, for the safe-point rule (see stop_safe). */
enum { R_ALLOC = 1, R_LOCK = 2, R_WAIT = 4, R_LIBC = 8 };

typedef struct range {
	uint64_t lo, hi;
	int kind;
} range;

/* A function symbol of a module, file addresses. */
typedef struct fsym {
	uint64_t lo, hi;
	char name[40];
	int alloc;
} fsym;

enum { CLEAR = 1, ARMED = 2 };

typedef struct session {
	int pid;
	pid_t *tids;
	int *sigs;            /* signal to give back when letting the thread go */
	uint8_t *clear;       /* CLEAR: seen outside the allocator and stopped since;
				 ARMED: a debug register is set (see arm) */
	size_t n, cap;
	vmap *maps;
	size_t nmaps;
	range *bad;           /* allocator, loader, wait and libc code (R_*) */
	size_t nbad, badcap;
	unw_addr_space_t as;
	int others_running;   /* the call let the other threads run */
	char alloc[4096];     /* the module providing the program's malloc */
} session;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}


static int exited(int pid, prof_error *err)
{
	prof_errorf(err, "process %d exited during the injection", pid);
	return -1;
}


static int not_permitted(int pid, prof_error *err)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	int scope = 0;
	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
	if (scope > 0 && geteuid() != 0)
		prof_errorf(err, "not permitted to trace process %d: kernel.yama.ptrace_scope is %d (run as root, or set /proc/sys/kernel/yama/ptrace_scope to 0)", pid, scope);
	else
		prof_errorf(err, "not permitted to trace process %d: ptrace needs the same user (and a target that is not setuid) or CAP_SYS_PTRACE", pid);
	return -1;
}

/* Checks that can be made before touching the process. */
static int precheck(int pid, prof_error *err)
{
	long uid, tracer;
	if (pid <= 0 || proc_status(pid, &uid, &tracer)) {
		prof_errorf(err, "no such process: %d", pid);
		return -1;
	}
	if (proc_gone(pid))
		return exited(pid, err);
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
	char path[64], line[1024];
	snprintf(path, sizeof(path), "/proc/%d/maps", s->pid);
	FILE *f = fopen(path, "re");
	if (!f) {
		if (errno == EACCES || errno == EPERM)
			return not_permitted(s->pid, err);
		return exited(s->pid, err);
	}
	size_t cap = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &lo, &hi, perms, &off, &pos) < 4)
			continue;
		const char *p = line + pos;
		while (*p == ' ')
			p++;
		if (vec_grow((void **)&s->maps, &cap, s->nmaps + 1, sizeof(*s->maps))) {
			fclose(f);
			prof_errorf(err, "out of memory");
			return -1;
		}
		vmap *m = &s->maps[s->nmaps++];
		m->lo = lo;
		m->hi = hi;
		m->off = off;
		m->exec = perms[2] == 'x';
		snprintf(m->path, sizeof(m->path), "%s", p);
		m->path[strcspn(m->path, "\n")] = 0;
	}
	fclose(f);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int is_libc(const char *path)
{
	const char *b = base_name(path);
	return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5) || !strncmp(b, "libc.musl", 9);
}

static int is_loader(const char *path)
{
	const char *b = base_name(path);
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

/* A module's function symbols (.dynsym and .symtab), sorted, and the
 * difference between its load address and its file addresses' origin
 * (the first PT_LOAD's vaddr - offset).  Caller frees *out. */
static int elf_syms(const char *path, fsym **out, size_t *nout, uint64_t *vaddr0, int *is_static)
{
	*out = NULL;
	*nout = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) {
		close(fd);
		return -1;
	}
	size_t nph = 0;
	int interp = 0, dynamic = 0, have0 = 0;
	*vaddr0 = 0;
	if (!elf_getphdrnum(e, &nph)) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph))
				continue;
			interp |= ph.p_type == PT_INTERP;
			dynamic |= ph.p_type == PT_DYNAMIC;
			if (ph.p_type == PT_LOAD && !have0) {
				have0 = 1;
				*vaddr0 = ph.p_vaddr - ph.p_offset;
			}
		}
	}
	if (is_static)
		*is_static = !interp && !dynamic;
	size_t cap = 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			int t = GELF_ST_TYPE(sym.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			const char *name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name)
				continue;
			if (vec_grow((void **)out, &cap, *nout + 1, sizeof(**out)))
				goto done;
			fsym *f = &(*out)[(*nout)++];
			f->lo = sym.st_value;
			f->hi = sym.st_value + (sym.st_size ? sym.st_size : 1);
			snprintf(f->name, sizeof(f->name), "%s", name);
			f->alloc = is_alloc_name(f->name);
		}
	}
done:
	elf_end(e);
	close(fd);
	if (*nout)
		qsort(*out, *nout, sizeof(fsym), fsym_cmp);
	return 0;
}

/* The load bias of the module at path: address = file address + bias. */
static int module_bias(const session *s, const char *path, uint64_t vaddr0, uint64_t *bias)
{
	for (size_t i = 0; i < s->nmaps; i++)
		if (!strcmp(s->maps[i].path, path)) {
			*bias = s->maps[i].lo - s->maps[i].off - vaddr0;
			return 0;
		}
	return -1;
}

static uint64_t sym_addr(const fsym *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return v[i].lo;
	return 0;
}

static int bad_add(session *s, uint64_t lo, uint64_t hi, int kind)
{
	if (vec_grow((void **)&s->bad, &s->badcap, s->nbad + 1, sizeof(*s->bad)))
		return -1;
	s->bad[s->nbad++] = (range){ lo, hi, kind };
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
			bad_add(s, lo + bias, hi + bias, v[i].alloc == 1 ? R_LOCK : R_WAIT);
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
		bad_add(s, lo + bias, hi + bias, R_ALLOC);
	}
}

/* An allocator's ranges from its malloc family's symbols (libc, or an
 * executable that defines malloc itself); -1 if they cannot be read. */
static int bad_syms(session *s, const char *path)
{
	fsym *v;
	size_t n;
	uint64_t vaddr0, bias;
	if (elf_syms(path, &v, &n, &vaddr0, NULL) || module_bias(s, path, vaddr0, &bias)) {
		free(v);
		return -1;
	}
	bad_from_syms(s, v, n, bias);
	free(v);
	return 0;
}

/* The forbidden ranges, and libc's path (for dlopen). */
static int bad_build(session *s, char *libc, size_t libc_len)
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
		const char *b = base_name(m->path);
		if (is_loader(m->path))
			bad_add(s, m->lo, m->hi, R_LOCK);
		else if (!strncmp(b, "libjemalloc", 11) || !strncmp(b, "libtcmalloc", 11) ||
			 !strncmp(b, "libmimalloc", 11) || !strncmp(b, "libmprof", 8))
			bad_add(s, m->lo, m->hi, R_ALLOC);
		else if (s->alloc[0] && !strcmp(m->path, s->alloc) && !is_libc(m->path)) {
			/* another allocator library: all of it; the executable: its malloc family */
			if (strcmp(m->path, exe))
				bad_add(s, m->lo, m->hi, R_ALLOC);
			else if (!provider_done && bad_syms(s, m->path))
				return -1;
			provider_done = 1;
		} else if (is_libc(m->path)) {
			bad_add(s, m->lo, m->hi, R_LIBC);
			if (!libc[0])
				snprintf(libc, libc_len, "%s", m->path);
		}
	}
	return libc[0] ? bad_syms(s, libc) : 0;
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
 * to receive.  0 stopped, 1 the thread is gone, -1 the process is gone. */
static int wait_stop(session *s, size_t k)
{
	for (;;) {
		int st;
		pid_t r = waitpid(s->tids[k], &st, __WALL);
		if (r < 0)
			return errno == EINTR ? 0 : 1;
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return s->tids[k] == s->pid ? -1 : 1;
		if (WIFSTOPPED(st)) {
			int sig = WSTOPSIG(st);
			if ((st >> 16) == 0 && sig != SIGTRAP && sig != SIGSTOP)
				s->sigs[k] = sig;   /* signal-delivery-stop: give it back later */
			return 0;
		}
	}
}

/* A busy thread is let run to the address where it leaves the allocator
 * (the return address of its outermost allocator frame): an execution
 * breakpoint in the thread's own debug registers (DR0, enabled in DR7), so
 * no other thread and no code is touched.  Its SIGTRAP stops it for us and
 * is never delivered (wait_stop drops it). */
static void arm(session *s, size_t i, uint64_t at)
{
	pid_t t = s->tids[i];
	if (!ptrace(PTRACE_POKEUSER, t, (void *)offsetof(struct user, u_debugreg[0]), (void *)at) &&
	    !ptrace(PTRACE_POKEUSER, t, (void *)offsetof(struct user, u_debugreg[7]), (void *)1L))
		s->clear[i] |= ARMED;
}

/* Clears the breakpoint (the thread is stopped); never left set on a thread
 * let go, where its trap would kill the process. */
static void disarm(session *s, size_t i)
{
	if (!(s->clear[i] & ARMED))
		return;
	pid_t t = s->tids[i] < 0 ? -s->tids[i] : s->tids[i];
	ptrace(PTRACE_POKEUSER, t, (void *)offsetof(struct user, u_debugreg[7]), (void *)0L);
	ptrace(PTRACE_POKEUSER, t, (void *)offsetof(struct user, u_debugreg[6]), (void *)0L);
	s->clear[i] &= (uint8_t)~ARMED;
}

/* Lets every thread go, with the signals they were stopped on. */
static void release_all(session *s)
{
	for (size_t i = 0; i < s->n; i++) {
		disarm(s, i);
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
			release_all(s);
			return exited(s->pid, err);
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
				release_all(s);
				if (proc_gone(s->pid))
					return exited(s->pid, err);
				long uid, tracer = 0;
				if (!proc_status(s->pid, &uid, &tracer) && tracer && tracer != getpid()) {
					prof_errorf(err, "process %d is already being traced (by process %ld): detach the debugger or tracer first", s->pid, tracer);
					return -1;
				}
				if (e == EPERM)
					return not_permitted(s->pid, err);
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
					release_all(s);
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
			int w = wait_stop(s, k);
			if (w < 0) {
				closedir(d);
				release_all(s);
				return exited(s->pid, err);
			}
			if (w > 0)
				s->tids[k] = -t;   /* gone: kept so it is not seized again */
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
		release_all(s);
		return exited(s->pid, err);
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
static int stop_safe(session *s, prof_error *err)
{
	long t0 = now_ms(), limit = TRY_MS, hold = STOP_MS;
	const char *env = getenv("MPROF_INJECT_TIMEOUT");
	if (env && atol(env) > 0)
		limit = atol(env);
	unsigned seed = (unsigned)getpid();
	while (now_ms() - t0 <= limit) {
		if (stop_all(s, err))
			return -1;
		for (size_t i = 0; i < s->n; i++)
			s->clear[i] = 0;
		long t1 = now_ms();
		for (int t = 0; t < TRIES && now_ms() - t1 < hold; t++) {
			/* The busy ones run on together, then stop again. */
			int busy = 0;
			for (size_t i = 0; i < s->n; i++) {
				if ((s->clear[i] & CLEAR) || s->tids[i] <= 0)
					continue;
				uint64_t leave;
				if (!thread_busy(s, s->tids[i], &leave)) {
					disarm(s, i);
					s->clear[i] = CLEAR;
					continue;
				}
				busy = 1;
				if (leave)
					arm(s, i, leave);
				else
					disarm(s, i);
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
				int w = wait_stop(s, i);
				if (w < 0) {
					s->n = 0;
					return exited(s->pid, err);
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
		release_all(s);
		if (hold < STOP_MAX_MS)
			hold *= 2;
		sleep_ms(10);
	}
	if (proc_gone(s->pid))
		return exited(s->pid, err);
	prof_errorf(err, "process %d: gave up after %.1f s: some thread was always inside the allocator or the dynamic loader (MPROF_INJECT_TIMEOUT=MS waits longer)", s->pid, (double)limit / 1000);
	return -1;
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

/* Lets the other threads run (a lock one holds may block the call). */
static void others_run(session *s, pid_t tid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->tids[i] != tid)
			ptrace(PTRACE_CONT, s->tids[i], NULL, NULL);
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
		if (wait_stop(s, i))
			s->sigs[i] = 0;
	}
	s->others_running = 0;
}

/* Calls fn(str or a0, a1) on the stopped thread tid; *ret gets rax.
 * Registers (general and extended) are restored after. */
static int remote_call(session *s, pid_t tid, uint64_t fn, const char *str, uint64_t a0, uint64_t a1,
		       uint64_t *ret, prof_error *err)
{
	struct user_regs_struct saved, r;
	static unsigned char xs[16384] __attribute__((aligned(64)));
	struct iovec iov = { xs, sizeof(xs) };
	struct user_fpregs_struct fp;
	if (ptrace(PTRACE_GETREGS, tid, NULL, &saved)) {
		if (proc_gone(s->pid))
			return exited(s->pid, err);
		prof_errorf(err, "ptrace(GETREGS) of thread %d: %s", (int)tid, strerror(errno));
		return -1;
	}
	int have_xs = !ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov);
	if (!have_xs && ptrace(PTRACE_GETFPREGS, tid, NULL, &fp)) {
		prof_errorf(err, "ptrace(GETFPREGS) of thread %d: %s", (int)tid, strerror(errno));
		return -1;
	}
	r = saved;
	uint64_t sp = (saved.rsp - 256) & ~(uint64_t)15;   /* below the 128-byte red zone */
	if (str) {
		size_t len = strlen(str) + 1;
		sp -= (len + 15) & ~(size_t)15;
		if (poke(tid, sp, str, len)) {
			prof_errorf(err, "cannot write to the stack of thread %d: %s", (int)tid, strerror(errno));
			return -1;
		}
		a0 = sp;
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
	r.rax = 0;
	r.orig_rax = (uint64_t)-1;   /* no syscall restart on resume */
	if (ptrace(PTRACE_SETREGS, tid, NULL, &r) || ptrace(PTRACE_CONT, tid, NULL, NULL)) {
		prof_errorf(err, "ptrace of thread %d: %s", (int)tid, strerror(errno));
		return -1;
	}
	long t0 = now_ms();
	int done = 0;
	while (!done) {
		int st;
		pid_t w = waitpid(tid, &st, __WALL | WNOHANG);
		if (w < 0 && errno != EINTR)
			return exited(s->pid, err);
		if (w <= 0) {
			long el = now_ms() - t0;
			if (el > CALL_ALONE_MS && !s->others_running)
				others_run(s, tid);
			if (el > CALL_MAX_MS) {
				prof_errorf(err, "process %d: the injected call did not return within %d s", s->pid, CALL_MAX_MS / 1000);
				return -1;
			}
			sleep_ms(1);
			continue;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return exited(s->pid, err);
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
	release_all(s);
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
	if (!elf_syms(exe, &v, &n, &vaddr0, &is_static) && is_static) {
		free(v);
		prof_errorf(err, "process %d is statically linked: a library cannot be loaded into it (build it dynamically, or start it with LD_PRELOAD)", pid);
		return -1;
	}
	free(v);
	if (allocator_identify(pid, s->alloc, sizeof(s->alloc), err))
		return -1;
	if (bad_build(s, libc, libc_len)) {
		prof_errorf(err, "process %d: cannot read the symbols of %s", pid, libc);
		return -1;
	}
	s->as = unw_create_addr_space(&_UPT_accessors, 0);
	if (!s->as) {
		prof_errorf(err, "libunwind: cannot create an address space");
		return -1;
	}
	unw_set_caching_policy(s->as, UNW_CACHE_NONE);
	return 0;
}

/* The address of name in the module whose path matches (a path, or a base
 * name part with match_base), 0 if none; *path_out gets the module's path. */
static uint64_t remote_sym(session *s, const char *path, const char *name)
{
	fsym *v;
	size_t n;
	uint64_t vaddr0, bias;
	if (elf_syms(path, &v, &n, &vaddr0, NULL))
		return 0;
	uint64_t a = sym_addr(v, n, name);
	free(v);
	if (!a || module_bias(s, path, vaddr0, &bias))
		return 0;
	return a + bias;
}

static int wait_segment(int pid)
{
	for (int i = 0; i < 200; i++) {
		if (inject_seg_flags(pid) >= 0)
			return 0;
		sleep_ms(10);
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

static int call_in(session *s, uint64_t fn, const char *str, uint64_t a1, uint64_t *ret, prof_error *err)
{
	if (stop_safe(s, err))
		return -1;
	if (!still_mapped(s, fn)) {
		release_all(s);
		if (proc_gone(s->pid))
			return exited(s->pid, err);
		prof_errorf(err, "process %d ran a new program (exec) during the injection; nothing was done: try again", s->pid);
		return -1;
	}
	pid_t tid = s->tids[0];
	int rc = remote_call(s, tid, fn, str, 0, a1, ret, err);
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
		uint64_t fn = 0;
		for (size_t i = 0; i < s.nmaps && !fn; i++)
			if (strstr(base_name(s.maps[i].path), "libmprof"))
				fn = remote_sym(&s, s.maps[i].path, "mprof_attach");
		if (!fn) {
			prof_errorf(err, "process %d: no mprof_attach in its libmprof.so", pid);
		} else if (!call_in(&s, fn, NULL, 0, &ret, err)) {
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
	if (!call_in(&s, dl, abs, RTLD_NOW, &ret, err)) {
		if (ret) {
			rc = INJECT_LOADED;
		} else {
			char msg[300] = "";
			uint64_t m = 0;
			pid_t tid = s.n ? s.tids[0] : 0;
			if (dlerr && tid && !remote_call(&s, tid, dlerr, NULL, 0, 0, &m, err))
				peek_str(tid, m, msg, sizeof(msg));
			prof_errorf(err, "process %d: dlopen(%s) failed in it: %s", pid, abs, msg[0] ? msg : "no reason given");
		}
	}
	session_free(&s);
	if (rc == INJECT_LOADED && wait_segment(pid)) {
		if (proc_gone(pid))
			return exited(pid, err);
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
		if (proc_status(pid, &uid, &tracer))
			prof_errorf(err, "no such process: %d", pid);
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
	session s;
	char libc[512];
	if (session_open(&s, pid, libc, sizeof(libc), err)) {
		session_free(&s);
		return -1;
	}
	uint64_t fn = 0;
	for (size_t i = 0; i < s.nmaps && !fn; i++)
		if (strstr(base_name(s.maps[i].path), "libmprof"))
			fn = remote_sym(&s, s.maps[i].path, "mprof_detach");
	int rc = -1;
	uint64_t ret = 0;
	if (!fn)
		prof_errorf(err, "process %d: no mprof_detach in its libmprof.so", pid);
	else if (!call_in(&s, fn, NULL, 0, &ret, err)) {
		if ((int)ret < 0)
			prof_errorf(err, "process %d: mprof_detach failed (the hook was not loaded late)", pid);
		else
			rc = (int)ret;
	}
	session_free(&s);
	return rc;
}

#endif

/* ---- the command line and the terminal's one-key questions ---------------- */

/* One key from the terminal, without waiting for Enter; 0 if none. */
static int tty_key(void)
{
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	struct termios old, raw;
	int c = 0;
	if (!tcgetattr(fd, &old)) {
		raw = old;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tcsetattr(fd, TCSANOW, &raw);
		unsigned char ch;
		if (read(fd, &ch, 1) == 1)
			c = ch;
		tcsetattr(fd, TCSANOW, &old);
	}
	close(fd);
	return c;
}

int inject_offer(int pid, const char *lib, prof_error *err)
{
	long uid, tracer;
	if (proc_status(pid, &uid, &tracer))
		return 0;   /* the attach reports the missing process */
	fprintf(stderr, "mprof-tui: process %d was started without libmprof.so. Load it now with ptrace "
			"(history before this moment stays unknown)? [y/n] ", pid);
	fflush(stderr);
	int c = tty_key();
	fprintf(stderr, "%c\n", c >= ' ' && c < 127 ? c : ' ');
	if (c != 'y' && c != 'Y')
		return 0;
	int r = inject_load(pid, lib, NULL, 0, err);
	return r < 0 ? -1 : 1;
}

int inject_quit_offer(int pid)
{
	int flags = inject_seg_flags(pid);
	if (flags < 0 || !(flags & SEG_FLAG_LATE) || (flags & SEG_FLAG_DETACHED) || proc_gone(pid))
		return 0;
	fprintf(stderr, "mprof-tui: libmprof.so is still recording in process %d: d detach (the program's calls "
			"go to libc again), k keep recording? [d/k] ", pid);
	fflush(stderr);
	int c = tty_key();
	fprintf(stderr, "%c\n", c >= ' ' && c < 127 ? c : ' ');
	if (c != 'd' && c != 'D') {
		fprintf(stderr, "mprof-tui: still recording; mprof-tui --detach %d stops it\n", pid);
		return 0;
	}
	prof_error err;
	int n = inject_detach(pid, &err);
	if (n < 0) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return -1;
	}
	fprintf(stderr, "mprof-tui: detached from process %d (%d call slots restored)\n", pid, n);
	return 1;
}

int inject_main(const char *pid_arg, int detach)
{
	char *end;
	errno = 0;
	long pid = strtol(pid_arg, &end, 10);
	if (errno || *end || pid <= 0 || pid > INT32_MAX) {
		fprintf(stderr, "mprof-tui: --%s takes a process id, not '%s'\n", detach ? "detach" : "inject", pid_arg);
		return 2;
	}
	prof_error err;
	if (detach) {
		int n = inject_detach((int)pid, &err);
		if (n < 0) {
			fprintf(stderr, "mprof-tui: %s\n", err.msg);
			return 2;
		}
		printf("detached from process %ld (%d call slots restored); its segment stays readable\n", pid, n);
		return 0;
	}
	char lib[4096];
	if (launch_find_lib(lib, sizeof(lib), &err)) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return 2;
	}
	char alloc[4096];
	int r = inject_load((int)pid, lib, alloc, sizeof(alloc), &err);
	if (r < 0) {
		fprintf(stderr, "mprof-tui: %s\n", err.msg);
		return 2;
	}
	printf(r == INJECT_PRESENT ? "process %ld already has a segment: " SEG_PATH_FMT "\n"
	       : r == INJECT_REATTACHED ? "process %ld: recording again into " SEG_PATH_FMT "\n"
					: "loaded libmprof.so into process %ld: " SEG_PATH_FMT "\n",
	       pid, (int)pid);
	if (r != INJECT_PRESENT && alloc[0])
		printf("its allocator: %s\n", alloc);
	return 0;
}
