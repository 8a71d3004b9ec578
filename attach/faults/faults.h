/* faults.h - physical memory by call stack: a process's page faults
 * sampled with perf_event_open (software events, minor and major apart,
 * every fault, on every thread and on the threads it starts later), each
 * unwound from a copy of its user stack (symbols/stackunw.h), into an
 * ordinary profile: allocated = every page a fault made, at its stack; in
 * use = the pages of the latest fault on each address that are still
 * resident (read from /proc/PID/pagemap); bytes = pages x page size,
 * objects = pages, under a root frame "[minor page faults]" or
 * "[major page faults]". */
#ifndef MPROF_FAULTS_H
#define MPROF_FAULTS_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/load.h"

typedef struct faults faults;

typedef struct faults_stats {
	uint64_t samples;        /* fault samples read */
	uint64_t copies_shared;  /* samples queued without their stack copy: their thread's last one again */
	uint64_t minor_pages;    /* pages made by a minor fault (allocated) */
	uint64_t major_pages;    /* ... by a major fault (read from disk) */
	uint64_t repeats;        /* faults on pages held already: given back and touched again, COW */
	uint64_t held;           /* pages in use: resident at the last reading, or faulted since */
	uint64_t lost;           /* samples the kernel dropped: the ring was full */
	uint64_t lost_from_ns, lost_to_ns;   /* when, in ns after the first sample: the faults between are uncertain */
	uint64_t pc_only;        /* stacks that could not be unwound past the pc */
	uint64_t in_kernel;      /* faults the kernel took on the process's behalf (read(2) into it) */
	uint64_t others;         /* samples of other processes, left out */
	uint64_t execs;          /* new programs run by the target: the profile restarted */
	uint64_t resident_reads; /* pagemap readings of the pages still held (in use = resident) */
	int threads;             /* threads the events were opened on (more are inherited) */
	int kernel_excluded;     /* faults in the kernel are not sampled (perf_event_paranoid) */
} faults_stats;

/* The roots of every stack, and the addresses their frames are given. */
#define FAULTS_MINOR_ADDR 0xfffffffffffff001ULL
#define FAULTS_MAJOR_ADDR 0xfffffffffffff002ULL

/* Runs argv (looked up in PATH, our stdin/stdout/stderr) with its page
 * faults sampled from its first instruction.  0 with *out, or -1 with a
 * one-line err (the child is gone then). */
int faults_launch(faults **out, char *const argv[], prof_error *err);
/* Samples a running process's page faults from now on, on every thread it
 * has and starts.  Refuses another user's process, and says which sysctl
 * (kernel.perf_event_paranoid, with its value) or capability is missing. */
int faults_attach(faults **out, int pid, prof_error *err);
void faults_close(faults *f);

/* Reads what the kernel wrote, unwinding at most max samples (0: all
 * there are).  Returns the samples handled, or -1 when out of memory. */
long faults_poll(faults *f, long max);
/* Bytes the kernel wrote that faults_poll has not read yet. */
uint64_t faults_backlog(faults *f);
/* Whether the target has ended (our child is reaped: faults_status). */
int faults_gone(faults *f);
/* Our child's wait status once reaped, else -1. */
int faults_status(const faults *f);
pid_t faults_pid(const faults *f);

/* The profile so far, owned by f (it only grows, counters in place, until
 * the target runs a new program: then a new one replaces it and the
 * generation changes). */
prof *faults_prof(const faults *f);
unsigned faults_generation(const faults *f);
const faults_stats *faults_get_stats(const faults *f);
long faults_page_size(const faults *f);

/* The screens: faults_poll runs on a thread of its own from here on, and
 * the profile is read only through faults_sync.  0, or -1 (errno). */
int faults_thread_start(faults *f);
/* What faults_sync changed in the mirror. */
enum { FAULTS_SYNC_COUNTS = 1, FAULTS_SYNC_STACKS = 2, FAULTS_SYNC_FRAMES = 4 };
/* Brings mirror, a profile only the caller changes, up to the sampled one:
 * the frames, modules, stacks and samples it lacks appended, every counter
 * copied, and *st the figures of the same moment.  *gen gets the profile's
 * generation: when it is not the one the mirror was made at, the caller
 * starts a new mirror (the target ran a new program).  Returns
 * FAULTS_SYNC_* flags, or -1 when out of memory. */
int faults_sync(faults *f, prof *mirror, faults_stats *st, unsigned *gen);

/* One line about the run (figures st, faults_get_stats or faults_sync's):
 * pages, repeats, lost samples, what was left out; into buf. */
void faults_summary(const faults *f, const faults_stats *st, char *buf, size_t len);

/* mprof-tui --faults: -o out with "-- COMMAND" (argv) or PID for
 * seconds; the summary on msg.  Exit status: 0, 1, or 2 for bad usage or
 * a refusal. */
int faults_run(const char *pid_arg, char *const argv[], double seconds, const char *out, FILE *msg);

#endif
