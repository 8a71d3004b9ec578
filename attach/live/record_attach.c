/* record_attach.c - the consumer-side recorder (see record_attach.h). The
 * segment is checked and mapped read-only by follow.c; only its header
 * page is mapped writable, for ring_read and the recorder's heartbeat. */
#include "attach/live/record_attach.h"
#include "attach/live/follow.h"
#include "attach/shared/record.h"
#include "attach/proc/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

/* 1 once the hook was detached (or detached and injected again since the
 * recording began): it saw no call meanwhile, so its counts start afresh
 * after an injection and the recording cannot go on from its own. */
static int record_detached(const seg_header *h, uint64_t attaches)
{
	return (__atomic_load_n(&h->flags, __ATOMIC_ACQUIRE) & SEG_FLAG_DETACHED) ||
	       __atomic_load_n(&h->attaches, __ATOMIC_ACQUIRE) != attaches;
}

int record_attach(int pid, const char *dir, const char *lib, FILE *msg)
{
	follow f;
	prof_error err;
	if (follow_open(&f, pid, lib, &err)) {
		fprintf(msg, "mprof-tui: %s\n", err.msg);
		return 2;
	}
	if (__atomic_load_n(&f.m.h->flags, __ATOMIC_ACQUIRE) & SEG_FLAG_DETACHED) {
		fprintf(msg, "mprof-tui: process %d: its hook is detached and sees no call (mprof-tui --inject %d records again)\n",
			pid, pid);
		follow_close(&f);
		return 2;
	}
	size_t hl;
	seg_header *hw = seg_map_header_rw(&f.m, &hl, &err);
	if (!hw) {
		fprintf(msg, "mprof-tui: %s\n", err.msg);
		follow_close(&f);
		return 2;
	}
	rec_writer *w = calloc(1, sizeof(*w));
	if (!w || recw_open(w, f.m.h, &f.hc, hw, dir, 0, 0, 1, settings_warn_stderr)) {
		fprintf(msg, "mprof-tui: %s\n", w ? w->err : "out of memory");
		free(w);
		munmap(hw, hl);
		follow_close(&f);
		return 2;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fprintf(msg, "mprof-tui: recording pid %d into %s (Ctrl-C stops)\n", pid, w->dir);
	fflush(msg);
	int rc = 0, checks = 0;
	while (!stop_sig) {
		long n = recw_poll(w);
		if (n < 0) {
			fprintf(msg, "mprof-tui: recording stopped: %s\n", w->err);
			rc = 1;
			break;
		}
		if (n == 0 && ++checks % 16 == 0 && follow_check_exit(&f))
			break;
		if (n == 0 && record_detached(hw, f.hc.attaches)) {
			while ((n = recw_poll(w)) > 0)
				;   /* what the detach published last */
			if (n < 0) {
				fprintf(msg, "mprof-tui: recording stopped: %s\n", w->err);
				rc = 1;
			} else {
				fprintf(msg, "mprof-tui: the hook in process %d was detached: the recording ends there\n", pid);
			}
			break;
		}
		if (recw_backlog(w) < f.hc.ring_cap / 8) {
			struct timespec ts = { 0, RECW_POLL_NS };
			nanosleep(&ts, NULL);
		}
	}
	uint64_t waits = hw->rec_waits, wait_ns = hw->rec_wait_ns;
	/* The recording says why it ends: stopped here, or the process gone
	 * without its hook's exit marking the segment (killed: SIGKILL, the OOM
	 * killer; what its threads still held is lost with it). */
	if (stop_sig)
		w->end_how = REC_HOW_STOPPED;
	else if (!rc && __atomic_load_n(&f.m.h->state, __ATOMIC_ACQUIRE) != SEG_STATE_EXITED && proc_gone(pid))
		w->end_how = REC_HOW_KILLED;
	recw_close(w);
	fprintf(msg, "mprof-tui: recorded %llu events of pid %d in %u file(s) in %s; producer waited %llu times "
		"(%.3f s); %llu events lost\n", (unsigned long long)w->events, pid, w->seq, w->dir,
		(unsigned long long)waits, (double)wait_ns / 1e9, (unsigned long long)w->lost);
	free(w);
	munmap(hw, hl);
	follow_close(&f);
	return rc;
}
