/* rec_text.c - a recording said in one line, for its batch reports
 * (rec_main.c) and its UI (rec_ui.c) alike: where it ends and why, and the
 * moment shown. */
#include <stdio.h>

#include "attach/proc/procfs.h"
#include "core/bytes.h"
#include "tui/rec_text.h"

void rec_end_line(const recording *r, char *buf, size_t len)
{
	rec_end_text(r, rec_end_how(r) == REC_END_OPEN && proc_runs_since(r->pid, r->start_time_ns), buf, len);
}

void rec_moment_text(const recording *r, char *buf, size_t len)
{
	char v[40];
	snprintf(buf, len, "%.3f s, %s in use", (double)r->cur_time / 1e9, bytes_fmt(v, sizeof(v), r->cur_inuse));
}
