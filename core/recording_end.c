/* recording_end.c - where and why a recording ends, from its last file:
 * closed in order (an END chunk: the process exited, or the recorder was
 * stopped), given up by its writer (the reason it noted in the file's
 * header: a write failed, the disk was full), or neither: the process
 * ended without closing it (SIGKILL, the OOM killer), or is still running
 * and the file is still being written; a recorder outside the process
 * (--record --attach) closes it and says whether the process was killed. */
#include "core/recording_int.h"

#include <stdio.h>

int rec_end_how(const recording *r)
{
	const rec_file *f = &r->f[r->nf - 1];
	if (f->fh.stopped[0])
		return REC_END_STOPPED;
	if (f->closed && f->end_how == REC_HOW_KILLED)
		return REC_END_KILLED;
	return f->closed ? REC_END_CLOSED : REC_END_OPEN;
}

const char *rec_end_reason(const recording *r)
{
	return r->f[r->nf - 1].fh.stopped;
}

void rec_end_text(const recording *r, int running, char *buf, size_t len)
{
	double t = (double)r->end_time / 1e9;
	switch (rec_end_how(r)) {
	case REC_END_CLOSED:
		snprintf(buf, len, "ends at %.3f s: closed in order (the process exited, or the recorder %s)", t,
			 r->f[r->nf - 1].end_how == REC_HOW_STOPPED ? "was stopped" : "stopped");
		break;
	case REC_END_KILLED:
		snprintf(buf, len,
			 "ends at %.3f s, cut short: the process ended without exiting (killed: SIGKILL, the OOM "
			 "killer); the recorder outside it closed the recording, without what its threads still held", t);
		break;
	case REC_END_STOPPED:
		snprintf(buf, len, "ends at %.3f s, cut short: the recorder could not go on: %s", t, rec_end_reason(r));
		break;
	default:
		if (running)
			snprintf(buf, len, "ends at %.3f s for now: still being written (pid %d runs)", t, r->pid);
		else
			snprintf(buf, len,
				 "ends at %.3f s, cut short: the process ended without closing it (killed: SIGKILL, the "
				 "OOM killer); its last milliseconds are missing", t);
		break;
	}
}
