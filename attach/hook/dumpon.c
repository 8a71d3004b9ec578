/* dumpon.c - triggered dumps: MPROF_DUMP_ON (and mprof-tui --dump-on, a
 * request in the segment's seg_dumpon).  A thread of the hook's own looks
 * every TICK_MS at the heap's running total (peak.c's folded in-use
 * bytes, no work on the allocation path), the resident set
 * (/proc/self/statm) and the cgroup's memory.events, and writes a dump
 * (dumps.c's writer, OUT.trigger-N.pro) when a trigger fires: once per
 * crossing, re-armed when heap or rss falls below 90 % of the level, a
 * growth's window starting afresh, memhigh once the counter stayed still
 * for MEMHIGH_QUIET_MS.  The program's threads are never stopped or
 * signalled; the thread blocks every signal and allocates nothing. */
#include "attach/hook/hook.h"
#include "attach/shared/dumpon.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define TICK_MS 20
#define MEMHIGH_QUIET_MS 1000
#define GROWTH_SLOTS 1024

typedef struct trig_state {
	dumpon_trig t;
	uint64_t level;     /* bytes: size, or pct of memory.max */
	int armed;
	uint64_t high;      /* memhigh: the counter last seen */
	int64_t still_ms;   /* memhigh: when it last rose */
	uint32_t gn, gpos;  /* growth: samples kept, next slot */
	int64_t glast;      /* growth: when the last sample was kept */
} trig_state;

/* Owned by the trigger thread (or hook_init, before it starts). */
static struct {
	int n;
	trig_state s[DUMPON_MAX];
	char pattern[SEG_DUMPON_PATH];   /* "" MPROF_OUT's */
	unsigned count;                  /* triggered dumps named so far */
} cur;
static int64_t g_ms[DUMPON_MAX][GROWTH_SLOTS];
static uint64_t g_val[DUMPON_MAX][GROWTH_SLOTS];
static char cg_dir[512];            /* the process's cgroup v2 directory, "" unknown */
static int thread_on;               /* a trigger thread runs in this process */

static seg_dumpon *block(seg_header *h)
{
	uint64_t off = h ? h->sample.dumpon_off : 0;
	return off ? (seg_dumpon *)((char *)h + off) : NULL;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The first cap - 1 bytes of path, NUL-terminated; -1 when unreadable. */
static int file_read(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static uint64_t rss_bytes(void)
{
	char buf[128];
	if (file_read("/proc/self/statm", buf, sizeof(buf)))
		return 0;
	const char *p = strchr(buf, ' ');
	return p ? strtoull(p + 1, NULL, 10) * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

/* cg_dir: the cgroup2 mount (/proc/self/mountinfo) joined with
 * /proc/self/cgroup's "0::/path"; -1 without cgroup v2. */
static int cgroup_find(void)
{
	static char info[32768];   /* the thread's or hook_init's only: never both at once */
	char cg[1024], mnt[256] = "";
	if (file_read("/proc/self/cgroup", cg, sizeof(cg)) || file_read("/proc/self/mountinfo", info, sizeof(info)))
		return -1;
	char *l = strstr(cg, "0::/");
	if (!l || (l != cg && l[-1] != '\n'))
		return -1;
	l += 3;
	l[strcspn(l, "\n")] = 0;
	/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS... - cgroup2 SOURCE SUPER" */
	for (char *m = info; *m && !mnt[0]; m += strcspn(m, "\n") + (m[strcspn(m, "\n")] != 0)) {
		char *end = m + strcspn(m, "\n"), *dash = strstr(m, " - cgroup2 ");
		if (!dash || dash > end)
			continue;
		char *f = m;
		for (int k = 0; k < 4 && f < end; k++)
			f += strcspn(f, " ") + 1;
		size_t n = strcspn(f, " ");
		if (f < end && n < sizeof(mnt))
			snprintf(mnt, sizeof(mnt), "%.*s", (int)n, f);
	}
	if (!mnt[0])
		return -1;
	snprintf(cg_dir, sizeof(cg_dir), "%s%s", mnt, strcmp(l, "/") ? l : "");
	return 0;
}

/* The value of "name N" in the cgroup's file, or -1. */
static int64_t cgroup_field(const char *file, const char *name)
{
	char path[600], buf[1024];
	snprintf(path, sizeof(path), "%s/%s", cg_dir, file);
	if (!cg_dir[0] || file_read(path, buf, sizeof(buf)))
		return -1;
	size_t nl = strlen(name);
	for (char *l = buf; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
		if (!strncmp(l, name, nl) && l[nl] == ' ')
			return (int64_t)strtoull(l + nl + 1, NULL, 10);
	return -1;
}

/* The trigger's level in bytes, its files found; 0, or -1 with why. */
static int trig_resolve(trig_state *s, char *why, size_t cap)
{
	char d[100];
	dumpon_describe(&s->t, d, sizeof(d));
	s->level = s->t.size;
	s->armed = 1;
	if (!s->t.pct && s->t.kind != DUMPON_MEMHIGH)
		return 0;
	if (!cg_dir[0] && cgroup_find()) {
		snprintf(why, cap, "%s: the process is in no cgroup v2 (/proc/self/cgroup, /proc/self/mountinfo)", d);
		return -1;
	}
	if (s->t.kind == DUMPON_MEMHIGH) {
		int64_t h = cgroup_field("memory.events", "high");
		if (h < 0) {
			snprintf(why, cap, "%s: %.120s has no memory.events (the memory controller is not on in cgroup v2 here)", d, cg_dir);
			return -1;
		}
		s->high = (uint64_t)h;
		return 0;
	}
	char path[600], buf[64];
	snprintf(path, sizeof(path), "%s/memory.max", cg_dir);
	if (file_read(path, buf, sizeof(buf)) || buf[0] < '0' || buf[0] > '9') {
		snprintf(why, cap, "%s: %.120s/memory.max sets no limit", d, cg_dir);
		return -1;
	}
	s->level = strtoull(buf, NULL, 10) / 100 * s->t.pct;
	return 0;
}

/* Puts spec in effect with dumps named after out ("" MPROF_OUT's): an enum seg_dumpon_result. */
static int apply(seg_dumpon *d, const char *spec, const char *out, char *why, size_t cap)
{
	dumpon_spec sp;
	char path[4200];
	if (dumpon_parse(spec, &sp, why, cap))
		return SEG_DUMPON_BAD;
	if (!out[0] && dumps_trigger_path(path, sizeof(path), NULL, 1)) {
		snprintf(why, cap, "the process has no MPROF_OUT and no place for dumps was given");
		return SEG_DUMPON_NO_OUT;
	}
	trig_state st[DUMPON_MAX];
	memset(st, 0, sizeof(st));
	for (int i = 0; i < sp.n; i++) {
		st[i].t = sp.t[i];
		if (trig_resolve(&st[i], why, cap))
			return SEG_DUMPON_REFUSED;
	}
	memcpy(cur.s, st, sizeof(st));
	cur.n = sp.n;
	snprintf(cur.pattern, sizeof(cur.pattern), "%s", out);
	if (d) {
		snprintf(d->active, sizeof(d->active), "%s", spec);
		dumps_trigger_path(d->where, sizeof(d->where), cur.pattern[0] ? cur.pattern : NULL, cur.count + 1);
	}
	return SEG_DUMPON_OK;
}

/* The minimum of the growth samples within the window, the sample v at t kept. */
static uint64_t growth_low(int i, trig_state *s, int64_t t, uint64_t v)
{
	int64_t step = (int64_t)s->t.window_ms / (GROWTH_SLOTS - 1);
	if (!s->gn || t - s->glast >= step) {
		g_ms[i][s->gpos] = t;
		g_val[i][s->gpos] = v;
		s->gpos = (s->gpos + 1) % GROWTH_SLOTS;
		s->gn += s->gn < GROWTH_SLOTS;
		s->glast = t;
	}
	uint64_t low = v;
	for (uint32_t k = 0; k < s->gn; k++)
		if (t - g_ms[i][k] <= (int64_t)s->t.window_ms && g_val[i][k] < low)
			low = g_val[i][k];
	return low;
}

/* 1 when trigger i fires now (heap: the bytes in use). */
static int trig_check(int i, uint64_t heap, int64_t t)
{
	trig_state *s = &cur.s[i];
	uint64_t v;
	switch (s->t.kind) {
	case DUMPON_HEAP:
	case DUMPON_RSS:
		v = s->t.kind == DUMPON_HEAP ? heap : rss_bytes();
		if (!s->armed && v < s->level - s->level / 10)
			s->armed = 1;
		if (!s->armed || v < s->level)
			return 0;
		s->armed = 0;
		return 1;
	case DUMPON_GROWTH:
		if (heap - growth_low(i, s, t, heap) < s->level)   /* low <= heap: it is one of the samples */
			return 0;
		s->gn = s->gpos = 0;   /* the next needs as much growth again */
		growth_low(i, s, t, heap);
		return 1;
	case DUMPON_MEMHIGH: {
		int64_t c = cgroup_field("memory.events", "high");
		if (c < 0 || (uint64_t)c <= s->high) {
			if (!s->armed && t - s->still_ms >= MEMHIGH_QUIET_MS)
				s->armed = 1;
			return 0;
		}
		s->high = (uint64_t)c;
		s->still_ms = t;
		if (!s->armed)
			return 0;
		s->armed = 0;
		return 1;
	}
	}
	return 0;
}

static void tick(seg_header *h, seg_dumpon *d)
{
	int64_t in = __atomic_load_n(&h->peak.inuse, __ATOMIC_RELAXED);
	uint64_t heap = in > 0 ? (uint64_t)in : 0;
	int64_t t = now_ms();
	int fire = 0;
	for (int i = 0; i < cur.n; i++)
		fire |= trig_check(i, heap, t);   /* every one looked at: each keeps its own state */
	if (!fire)
		return;
	char path[4200];
	if (dumps_trigger_path(path, sizeof(path), cur.pattern[0] ? cur.pattern : NULL, ++cur.count))
		return;
	if (dumps_write(h, path, 0)) {
		__atomic_fetch_add(&d->failed, 1, __ATOMIC_RELAXED);
		return;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(d->last, sizeof(d->last), "%.1000s", path);
	dumps_trigger_path(d->where, sizeof(d->where), cur.pattern[0] ? cur.pattern : NULL, cur.count + 1);
	d->last_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	__atomic_fetch_add(&d->fired, 1, __ATOMIC_RELEASE);
}

/* A consumer's request (spec and out in d, then seq): taken here. */
static void take_request(seg_dumpon *d, uint64_t seq)
{
	char spec[sizeof(d->spec)], out[sizeof(d->out)], why[sizeof(d->why)] = "";
	memcpy(spec, d->spec, sizeof(spec));
	memcpy(out, d->out, sizeof(out));
	spec[sizeof(spec) - 1] = out[sizeof(out) - 1] = 0;
	int r = apply(d, spec, out, why, sizeof(why));
	snprintf(d->why, sizeof(d->why), "%s", why);
	d->result = (uint64_t)r;
	__atomic_store_n(&d->done, seq, __ATOMIC_RELEASE);
}

static void *run(void *arg)
{
	seg_header *h = arg;
	seg_dumpon *d = block(h);
	hook_quiet();
	__atomic_store_n(&d->running, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != SEG_STATE_EXITED && hook_seg == h) {
		uint64_t seq = __atomic_load_n(&d->seq, __ATOMIC_ACQUIRE);
		if (seq != __atomic_load_n(&d->done, __ATOMIC_RELAXED))
			take_request(d, seq);
		tick(h, d);
		struct timespec ts = { 0, TICK_MS * 1000000L };
		nanosleep(&ts, NULL);
	}
	__atomic_store_n(&d->running, 0, __ATOMIC_RELEASE);
	return NULL;
}

/* Starts the trigger thread (every signal blocked in it) unless one runs: 0, or -1. */
static int thread_start(seg_header *h)
{
	if (__atomic_exchange_n(&thread_on, 1, __ATOMIC_ACQ_REL))
		return 0;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	int rc = pthread_create(&t, NULL, run, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		__atomic_store_n(&thread_on, 0, __ATOMIC_RELEASE);
		hook_say("cannot start the trigger thread: no triggered dumps", "", "");
		return -1;
	}
	pthread_detach(t);
	return 0;
}

void dumpon_start(seg_header *h)
{
	seg_dumpon *d = block(h);
	char path[4200];
	if (d)
		d->has_out = !dumps_trigger_path(path, sizeof(path), NULL, 1);
	const char *env = getenv("MPROF_DUMP_ON");
	if (!env || !*env || !d)
		return;
	char why[300] = "", line[400];
	int r = apply(d, env, "", why, sizeof(why));
	if (r != SEG_DUMPON_OK) {
		snprintf(line, sizeof(line), "MPROF_DUMP_ON=%.64s: %s; ignored", env, why);
		hook_say(line, "", "");
		return;
	}
	snprintf(d->spec, sizeof(d->spec), "%s", env);
	d->result = SEG_DUMPON_OK;
	thread_start(h);
}

void dumpon_forked(void)
{
	thread_on = 0;   /* the parent's thread is not the child's: none runs here */
	cur.n = 0;
}

/* mprof-tui --dump-on calls this in the target (ptrace, at a safe point)
 * when no trigger thread runs: it starts one, which takes the request
 * waiting in the segment.  0, or -1. */
EXPORT int mprof_dump_on(void)
{
	seg_header *h = hook_seg;
	if (!h || !block(h))
		return -1;
	hook_self_enter();
	int rc = thread_start(h);
	hook_self_leave(1);
	return rc;
}
