/* inject_int.h - what the files of attach/inject/ share: the session and
 * each file's functions.  Calls go one way: inject.c (the session: checks,
 * the remote call, load and detach) -> safepoint.c (stopping every thread
 * at a safe point) -> allocranges.c and breakpoint.c -> coderanges.c and
 * tracee.c, the helpers.  x86_64 only. */
#ifndef MPROF_INJECT_INT_H
#define MPROF_INJECT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <libunwind-ptrace.h>

#include "core/load.h"

#define TRIES 5000          /* check rounds in one stop */
#define STOP_MS 50          /* the longest the program is held still while checking */
#define STOP_MAX_MS 800     /* ... doubling each round a loaded machine needs more */
#define RUN_US 20           /* busy threads run on this long (and up to 10x more) */
#define TRY_MS 10000        /* and the time they may take (MPROF_INJECT_TIMEOUT) */
#define INJ_TIMEOUT_MAX 86400000   /* MPROF_INJECT_TIMEOUT at most a day */
#define CALL_ALONE_MS 2000  /* the call runs with the others stopped this long */
#define CALL_MAX_MS 30000
#define MAX_FRAMES 256
#define INJ_EXIT_MS 200     /* a process whose memory or registers fail may be mid-exit: it has this long to be a zombie */

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

enum { CLEAR = 1, ARMED = 2, TOUCHED = 4 };

typedef struct session {
	int pid;
	pid_t *tids;
	int *sigs;            /* signal to give back when letting the thread go */
	uint8_t *clear;       /* CLEAR: seen outside the allocator and stopped since;
				 ARMED: a debug register is set (breakpoint.c);
				 TOUCHED: armed since its queue was last drained */
	size_t n, cap;
	vmap *maps;
	size_t nmaps;
	range *bad;           /* allocator, loader, wait and libc code (R_*) */
	size_t nbad, badcap;
	unw_addr_space_t as;
	int others_running;   /* the call let the other threads run */
	char alloc[4096];     /* the module providing the program's malloc */
	char libc[512];       /* libc's path, "" if none */
} session;


/* coderanges.c */
/* The load bias of the module at path: address = file address + bias. */
int inj_module_bias(const session *s, const char *path, uint64_t vaddr0, uint64_t *bias);
/* Where the file of a module mapped as path is read from here: the mapped
 * file itself through /proc/PID/map_files (a memfd's too; root), else
 * through /proc/PID/root (a container's own libc, not the host's file at
 * that path), else path.  Returns buf, or path. */
const char *inj_file(const session *s, const char *path, char *buf, size_t cap);
/* Adds a code range of a kind (R_*) to the session's rule; -1 out of memory. */
int inj_range_add(session *s, uint64_t lo, uint64_t hi, int kind);

/* tracee.c */
long inj_now_ms(void);
void inj_sleep_ms(long ms);
/* "process N exited during the injection"; -1. */
int inj_exited(int pid, prof_error *err);
/* Why ptrace was refused (yama, another user); -1. */
int inj_not_permitted(int pid, prof_error *err);
/* Uid and TracerPid from /proc/PID/status; -1 when there is no such process. */
int inj_proc_status(int pid, long *uid, long *tracer);

/* safepoint.c */
/* A module's function symbols (.dynsym and .symtab), sorted, and the
 * difference between its load address and its file addresses' origin.
 * Caller frees *out. */
int inj_elf_syms(const char *path, fsym **out, size_t *nout, uint64_t *vaddr0, int *is_static);
uint64_t inj_sym_addr(const fsym *v, size_t n, const char *name);
/* The code ranges of the safe-point rule, and libc's path (for dlopen). */
int inj_ranges_build(session *s, char *libc, size_t libc_len);
/* allocranges.c: the whole code of each allocator the hook patches at its
 * entry points (and of the functions MPROF_FUNCS names) as R_ALLOC. */
int inj_alloc_ranges(session *s, const char *exe);
/* Waits for thread k's stop: 0 stopped, 1 the thread is gone, -1 the process. */
int inj_wait_stop(session *s, size_t k);
/* breakpoint.c: a breakpoint at `at` for stopped thread i; its removal
 * (the queue left as it is); 1 when stopped thread t took a trap of ours;
 * thread i left with no breakpoint and no trap of ours queued (0, 1 gone,
 * -1 could not). */
void inj_bp_arm(session *s, size_t i, uint64_t at);
/* A thread just seized with a debug control register set: touched. */
void inj_bp_seized(session *s, size_t k);
void inj_bp_disarm(session *s, size_t i);
int inj_bp_hit(pid_t t);
int inj_bp_quiet(session *s, size_t i);
/* Lets every thread go, with their signals and without breakpoints. */
void inj_release(session *s);
/* Stops the process at a moment no thread is busy (see safepoint.c). */
int inj_stop_safe(session *s, prof_error *err);

#endif
