/* sample_ctl.c - mprof-tui --sample-rate=RATE PID: a request in the
 * segment's seg_sample (want, then seq + 1), which the hook takes within the
 * next 64 KiB any of its threads allocates (attach/hook/sample.c). */
#include "attach/live/sample_ctl.h"
#include "attach/proc/procfs.h"
#include "attach/live/segment_read.h"
#include "core/bytes.h"
#include "core/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define CTL_WAIT_MS 1000   /* an idle process takes the request later: not waited for */

int sample_ctl_parse(const char *s, uint64_t *rate)
{
	if (!strcasecmp(s, "off")) {
		*rate = SEG_SAMPLE_OFF;
		return 0;
	}
	if (!strcasecmp(s, "all")) {
		*rate = 0;
		return 0;
	}
	return bytes_parse(s, SEG_SAMPLE_MAX, rate);
}

static void rate_words(uint64_t rate, uint64_t last, char *buf, size_t len)
{
	char r[32];
	if (!rate) {
		snprintf(buf, len, "every allocation");
	} else if (rate == SEG_SAMPLE_OFF) {
		report_rate(r, sizeof(r), last);
		snprintf(buf, len, "sampling off (new allocations not recorded%s%s)", last > 1 ? "; earlier ones at 1 per " : "",
			 last > 1 ? r : "");
	} else {
		report_rate(r, sizeof(r), rate);
		snprintf(buf, len, "1 sample per %s", r);
	}
}

void sample_ctl_text(const seg_header *h, char *buf, size_t len)
{
	rate_words(__atomic_load_n(&h->sample_rate, __ATOMIC_RELAXED),
		   __atomic_load_n(&h->sample.last, __ATOMIC_RELAXED), buf, len);
	size_t n = strlen(buf);
	uint64_t ch = __atomic_load_n(&h->sample.changes, __ATOMIC_RELAXED);
	if (ch && n < len)
		snprintf(buf + n, len - n, ", rate changed %llu time%s", (unsigned long long)ch, ch > 1 ? "s" : "");
}

static void refused_recording(FILE *err, int pid, const char *was)
{
	fprintf(err, "mprof-tui: process %d: refused while a recording runs (it weighs events with the rate it began with); still %s\n",
		pid, was);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int sample_ctl_request(const char *rate_arg, const char *pid_arg, FILE *out, FILE *err)
{
	uint64_t rate;
	if (sample_ctl_parse(rate_arg, &rate)) {
		fprintf(err, "mprof-tui: --sample-rate takes bytes (524288, 512K, 1M; at most 1T), all or off, not '%s'\n",
			rate_arg);
		return 2;
	}
	seg_map m;
	seg_header hc;
	int pid = seg_open_arg(&m, "--sample-rate", pid_arg, &hc, 1, err);
	if (pid < 0)
		return 2;
	seg_header *h = (seg_header *)m.h;   /* mapped writable */
	int rc = 1;
	char was[160], now[160];
	sample_ctl_text(h, was, sizeof(was));
	if (proc_gone(pid) || __atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == SEG_STATE_EXITED) {
		fprintf(err, "mprof-tui: %s: process %d has exited: its rate cannot change\n", m.name, pid);
		goto out;
	}
	if (__atomic_load_n(&h->flags, __ATOMIC_RELAXED) & SEG_FLAG_DETACHED) {
		fprintf(err, "mprof-tui: %s: the hook of process %d is detached: nothing is recorded\n", m.name, pid);
		goto out;
	}
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (rate != __atomic_load_n(&h->sample_rate, __ATOMIC_RELAXED) &&
	    seg_recorder_alive(h, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec)) {   /* the hook would refuse it */
		refused_recording(err, pid, was);
		goto out;
	}
	__atomic_store_n(&h->sample.want, rate, __ATOMIC_RELAXED);
	uint64_t seq = __atomic_add_fetch(&h->sample.seq, 1, __ATOMIC_RELEASE);
	long waited = 0;
	while (__atomic_load_n(&h->sample.done, __ATOMIC_ACQUIRE) < seq && waited < CTL_WAIT_MS &&
	       !proc_gone(pid)) {
		sleep_ms(10);
		waited += 10;
	}
	rate_words(rate, hc.sample.last, now, sizeof(now));
	if (__atomic_load_n(&h->sample.done, __ATOMIC_ACQUIRE) < seq) {
		/* Idle: nothing allocated meanwhile, so nothing differs until it does. */
		fprintf(out, "process %d: %s from its next 64 KiB of allocations (not taken in %d s; was %s)\n", pid, now,
			CTL_WAIT_MS / 1000, was);
		rc = 0;
		goto out;
	}
	switch (__atomic_load_n(&h->sample.result, __ATOMIC_RELAXED)) {
	case SEG_SAMPLE_DONE:
		sample_ctl_text(h, now, sizeof(now));
		fprintf(out, "process %d: %s (was %s)\n", pid, now, was);
		rc = 0;
		break;
	case SEG_SAMPLE_RECORDING:
		refused_recording(err, pid, was);
		break;
	case SEG_SAMPLE_TOO_MANY:
		fprintf(err, "mprof-tui: process %d: refused: it used %d different rates already (pick one of them); still %s\n",
			pid, SEG_SAMPLE_RATES, was);
		break;
	default:
		fprintf(err, "mprof-tui: process %d: its hook refused the rate; still %s\n", pid, was);
		break;
	}
out:
	seg_close(&m);
	return rc;
}
