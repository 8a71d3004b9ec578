/* faults_int.h - what the files of attach/faults/ share: the session
 * (struct faults: its events and rings, the queue of records read, the
 * profile and its first-touched pages, the reader thread), the sizes the
 * events are opened with, and the functions one file calls in another.
 * Private to attach/faults/; faults.h is the public header. */
#ifndef MPROF_FAULTS_INT_H
#define MPROF_FAULTS_INT_H

#include "attach/faults/faults.h"
#include "core/prof.h"
#include "core/u64map.h"
#include "symbols/stackunw.h"

#include <asm/perf_regs.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FAULTS_STACK_USER 8192       /* bytes of stack copied per sample, perf's default */
#define FAULTS_MAX_DEPTH 256
/* Ring bytes in all (a burst of faults must fit while the reader is
 * descheduled or the unwinder loads a module: 256 MiB is ~31,000 samples),
 * at most 256 MiB and at least 1 MiB a CPU, halved until the kernel
 * agrees (perf_event_mlock_kb, which root may exceed). */
#define FAULTS_RINGS_TOTAL ((size_t)512 << 20)
#define FAULTS_READER_NICE (-10) /* the reader's priority, where it may raise it */
#define FAULTS_QUEUE_MAX ((size_t)512 << 20)   /* bytes of samples waiting to be unwound */
#define FAULTS_DRAIN_NS 1000000      /* the drainer's nap when the rings are empty */
#define FAULTS_SLOTS 16              /* threads (by tid) whose last stack copy is kept for a repeat */
/* A queued sample whose stack copy is its thread's last one: the record
 * up to its registers, then u64 slot; the copy is not queued again. */
#define FAULTS_REC_REPEAT 0x4d01

/* The last stack copy of the threads whose tid falls in a slot. */
typedef struct fslot {
	int tid;                 /* 0: empty */
	uint32_t len;
	uint8_t *bytes;          /* FAULTS_STACK_USER bytes */
} fslot;

/* The x86-64 user registers the unwinder needs, in perf's numbering. */
#define FAULTS_REGS_MASK                                                                                        \
	((1ULL << PERF_REG_X86_AX) | (1ULL << PERF_REG_X86_BX) | (1ULL << PERF_REG_X86_CX) |                    \
	 (1ULL << PERF_REG_X86_DX) | (1ULL << PERF_REG_X86_SI) | (1ULL << PERF_REG_X86_DI) |                    \
	 (1ULL << PERF_REG_X86_BP) | (1ULL << PERF_REG_X86_SP) | (1ULL << PERF_REG_X86_IP) |                    \
	 (0xffULL << PERF_REG_X86_R8))
#define FAULTS_NREGS 17

typedef struct fring {
	int fd;                  /* the event whose buffer it is; -1: none yet */
	struct perf_event_mmap_page *mp;
	uint8_t *data;
	uint64_t size;           /* data bytes, a power of two */
} fring;

struct faults {
	int pid;
	pid_t child;
	int status;
	int gone;
	int ncpu;
	fring *rings;
	int *fds;
	size_t nfds, fds_cap;
	u64map ids;              /* event id -> kind (0 minor, 1 major) */
	u64map tids;             /* threads opened on */
	int inherit_thread;      /* the kernel keeps children's faults out */
	int exclude_kernel;
	stackunw *unw;
	prof *p;
	unsigned gen;
	u64map stack_of;         /* stack hash (probed) -> sample */
	u64map pages;            /* page -> sample of its latest fault (held: not yet found given back) */
	long page_size;
	uint8_t *q;              /* records copied out of the rings, in order */
	size_t q_cap, q_len;
	size_t q_head;           /* the next record to handle */
	size_t q_meta;           /* records before it had their non-sample part applied */
	uint64_t *tails, *heads; /* each ring's read and write positions, while draining */
	uint8_t *scratch;        /* a record that wraps the ring's end */
	size_t scratch_cap;
	/* The drainer (faults_drain.c): rings -> queue on a thread of its own,
	 * under qlock, which guards the queue, tails, scratch and in_* below. */
	pthread_t drainer;
	pthread_mutex_t qlock;
	int draining;
	volatile int drain_stop;
	int repeat_off;          /* MPROF_FAULTS_REPEATS=0: every stack copy queued */
	fslot in_slot[FAULTS_SLOTS];   /* the drainer's: last copy queued per slot */
	fslot out_slot[FAULTS_SLOTS];  /* the unwinder's: the same, as it reads them */
	uint64_t in_samples, in_others, in_repeats;   /* counted by the drainer */
	uint64_t *last_t;        /* each ring's last sample's time (with tails) */
	uint64_t first_t;        /* the first sample's time */
	uint64_t in_lost_from, in_lost_to;   /* the losses' span, in sample times */
	uint8_t *work;           /* records taken out of the queue to handle */
	size_t work_cap;
	size_t work_len, work_meta;   /* bytes taken, of which the first are mappings and execs */
	uint8_t *whole;          /* a repeat made whole again */
	size_t whole_cap;
	faults_stats st;
	int64_t resident_next_ns;  /* the next pagemap reading (faults_resident_tick) */
	int traced;              /* our child is ptrace-seized, stopped at its exit (faults_launch.c) */
	/* The screens' reader thread (faults_thread_start). */
	pthread_t thread;
	pthread_mutex_t lock;    /* held by the thread around faults_poll */
	int threaded;
	volatile int stop;
};

/* faults.c: a session with its rings unmapped and no events yet. */
faults *faults_new(int pid, prof_error *err);
/* faults_events.c: the events, opened and enabled. */
int faults_paranoid(void);
int faults_open_thread(faults *f, int tid, int launch, prof_error *err);
int faults_open_all_threads(faults *f, prof_error *err);
int faults_enable_all(faults *f, prof_error *err);
/* faults_profile.c: the profile (re)started, a sample counted. */
int faults_prof_start(faults *f);
int faults_on_sample(faults *f, const uint8_t *rec, size_t len);
/* A page held by sample s left it (given back, or faulted again). */
void faults_page_left(faults *f, uint32_t s);
/* faults_resident.c: the pages held read from pagemap, those not present
 * any more given back (0, or -1: unreadable, the last reading stands);
 * the same at most every 100 ms. */
int faults_resident_read(faults *f);
void faults_resident_tick(faults *f);
/* faults_launch.c: our traced child's stops handled (at its exit: every
 * fault read, then the pages it holds); 1 once it has ended. */
int faults_child_wait(faults *f);
/* Kills our child and reaps it (past its exit stop), its status in *status. */
void faults_child_kill(pid_t pid, int *status);
/* faults_ring.c: the drainer started (0, or -1 with errno) and stopped;
 * a record appended to the queue (0; 1: full, it stays in its ring; -1:
 * ENOMEM), the caller holding qlock. */
int faults_drain_start(faults *f);
void faults_drain_stop(faults *f);
int faults_queue_put(faults *f, const uint8_t *rec, size_t len);
/* faults_repeat.c: the slots made and freed; a sample queued (as
 * faults_queue_put), its stack copy once for its repeats; a queued sample
 * made whole again, in queue order (NULL: ENOMEM or slots out of step);
 * where a sample's stack copy is (0, or -1: none). */
int faults_slots_new(faults *f);
void faults_slots_free(faults *f);
int faults_queue_sample(faults *f, const uint8_t *rec, size_t len);
const uint8_t *faults_sample_whole(faults *f, const uint8_t *rec, size_t *len);
int faults_sample_stack(const uint8_t *rec, size_t len, int *tid, size_t *at, size_t *n);
/* faults_thread.c: the calling thread (the reader) ahead of ordinary work. */
void faults_reader_boost(void);
/* faults_maps.c: the mappings, from /proc/PID/maps and the records. */
void faults_maps_scan(faults *f);
void faults_on_meta(faults *f, const uint8_t *rec, size_t len);

#endif
