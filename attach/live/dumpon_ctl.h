/* dumpon_ctl.h - mprof-tui --dump-on SPEC PID: triggered dumps in a running
 * process (attach/shared/dumpon.h's syntax), through the segment's
 * seg_dumpon; the hook is injected first when the process has none. */
#ifndef MPROF_DUMPON_CTL_H
#define MPROF_DUMPON_CTL_H

#include <stddef.h>
#include <stdio.h>

#include "attach/shared/segment.h"

/* Sets SPEC in pid_arg's hook, dumps named after out_arg (NULL: the
 * process's MPROF_OUT, else mprof-PID.pro in the current directory);
 * lib: the hook to inject (NULL: the one beside mprof-tui).  Says where
 * the dumps go on out, errors in one line on err; the exit status (0, 1
 * the hook refused a trigger, 2 bad input or no such process). */
int dumpon_ctl_request(const char *spec, const char *pid_arg, const char *out_arg, FILE *out, FILE *err);

/* The triggers in effect in a mapped segment (len bytes; hc its checked
 * header), "heap:512M, 1 written, next /x/app.trigger-2.pro": 1, or 0
 * when none are set (or the hook predates them). */
int dumpon_ctl_text(const seg_header *h, size_t len, const seg_header *hc, char *buf, size_t cap);

#endif
