/* record_hook.c - MPROF_RECORD=DIR inside the hook: a thread of its own
 * drains the ring into files (record.c), each poll's events pushed to the
 * file as whole zstd blocks (record_file.c). Its allocations pass through
 * unrecorded (hook_quiet); it blocks every signal. Stopped at exit, where
 * the exiting thread drains what is left. The files rotate at
 * MPROF_RECORD_SIZE bytes, MPROF_RECORD_FILES kept. */
#include "attach/hook/hook.h"
#include "attach/shared/record.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static rec_writer W;
static pthread_t writer;
static int rec_pid;           /* the process that started it (not a forked child) */
static int stop_req, stopped;

static void nap(long ns)
{
	struct timespec ts = { 0, ns };
	nanosleep(&ts, NULL);
}

static void *writer_main(void *arg)
{
	(void)arg;
	hook_quiet();
	while (!__atomic_load_n(&stop_req, __ATOMIC_ACQUIRE)) {
		/* Threads gone quiet: their last events, taken from any stage begun
		 * before this clock tick, so that with this poll's push they are in
		 * the file within a poll and a tick (what a SIGKILL can take:
		 * record_file.c); and what is still staged, so frees held for their
		 * allocation go out as soon as none can come. */
		W.stage_low = ring_sweep(W.hw, NULL, RECW_SWEEP_NS);
		long n = recw_poll(&W);
		if (n < 0) {
			char msg[320];
			int k = snprintf(msg, sizeof(msg), "mprof: recording stopped: %s\n", W.err);
			if (k > 0 && write(2, msg, (size_t)k < sizeof(msg) ? (size_t)k : sizeof(msg) - 1) < 0)
				break;
			break;
		}
		/* Keep up when the ring fills; otherwise poll every RECW_POLL_NS. */
		uint64_t backlog = recw_backlog(&W);
		if (backlog < W.hc.ring_cap / 8)
			nap(RECW_POLL_NS);
		else if (!n)   /* reserved but not written yet */
			nap(50000);
	}
	__atomic_store_n(&stopped, 1, __ATOMIC_RELEASE);
	return NULL;
}

int record_start(seg_header *h, const char *dir)
{
	hook_populate(seg_region(h, SEG_R_RING), h->size[SEG_R_RING]);   /* else the producers fault on each page in their first lap */
	if (!zstd_loaded()) {   /* recordings are zstd streams; no other form is read */
		hook_say("not recording: libzstd.so.1 cannot be loaded (MPROF_RECORD=", dir, ")");
		return -1;
	}
	if (recw_open(&W, h, h, h, dir, 0, 0, 0, hook_settings_warn)) {
		char msg[320];
		int k = snprintf(msg, sizeof(msg), "mprof: not recording: %s\n", W.err);
		if (k > 0 && write(2, msg, (size_t)k < sizeof(msg) ? (size_t)k : sizeof(msg) - 1) < 0)
			return -1;
		return -1;
	}
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&writer, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		recw_close(&W);
		return -1;
	}
	pthread_detach(writer);
	rec_pid = (int)getpid();
	return 0;
}

void record_stop(void)
{
	if (!rec_pid || rec_pid != (int)getpid())
		return;
	rec_pid = 0;
	__atomic_store_n(&stop_req, 1, __ATOMIC_RELEASE);
	/* The writer finishes its poll; if it cannot (exit raced with it
	 * badly), leave the file as it is rather than write beside it. */
	for (int i = 0; i < 2000 && !__atomic_load_n(&stopped, __ATOMIC_ACQUIRE); i++)
		nap(1000000);
	if (__atomic_load_n(&stopped, __ATOMIC_ACQUIRE))
		recw_close(&W);
	else
		__atomic_store_n(&W.hw->rec_beat_ns, 0, __ATOMIC_RELAXED);
}
