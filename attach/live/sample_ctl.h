/* sample_ctl.h - the sampling rate of a running process: mprof-tui
 * --sample-rate=RATE PID asks its hook, through the segment's seg_sample,
 * to sample at another rate, to record every allocation, or none. */
#ifndef MPROF_SAMPLE_CTL_H
#define MPROF_SAMPLE_CTL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "attach/shared/segment.h"

/* "524288", "512K", "1M", "1G" (bytes, powers of 1024), "0" or "all" (every
 * allocation), "off" (none): the rate in *rate (SEG_SAMPLE_OFF for off);
 * 0, or -1 when it is none of these or above SEG_SAMPLE_MAX. */
int sample_ctl_parse(const char *s, uint64_t *rate);
/* What a segment's rate means, for screens and reports: "every
 * allocation", "1 sample per 512 KiB", "sampling off (...)". */
void sample_ctl_text(const seg_header *h, char *buf, size_t len);
/* The --sample-rate option: sends the request, waits for the hook to take
 * it (a few seconds at most; an idle process takes it at its next
 * allocation), says the outcome on out (errors on err); returns the exit
 * status (0, 1 refused, 2 bad input or no such hooked process). */
int sample_ctl_request(const char *rate_arg, const char *pid_arg, FILE *out, FILE *err);

#endif
