/* window.c - the heap over a window of a running process (see window.h).
 * The consumer only switches the window (win_state, through a writable
 * mapping of the header page) and reads the window counters before and
 * after; the hook does the exact part, block by block, under the live
 * table's shard locks.  A snapshot diff could not: it does not tell a
 * block from before the window freed in it from one of the window's. */
#include "attach/live/window.h"
#include "attach/live/follow.h"
#include "attach/inject/inject.h"
#include "attach/proc/procfs.h"
#include "core/heap_scale.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define WINDOW_TICK_NS 100000000LL     /* how often the wait looks for an exit or a signal */
#define WINDOW_SETTLE_NS 20000000LL    /* calls in flight at the close land in the counters */
#define WINDOW_MAX_S (7 * 86400.0)

static volatile sig_atomic_t win_signal;

static void on_signal(int sig)
{
	win_signal = sig;
}

double window_seconds_arg(const char *s)
{
	char *end;
	errno = 0;
	double v = s && *s ? strtod(s, &end) : -1;
	if (!s || !*s || errno || *end || !isfinite(v) || v <= 0 || v > WINDOW_MAX_S)
		return -1;
	return v;
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL) };
	while (nanosleep(&ts, &ts) && errno == EINTR && !win_signal)
		;
}

/* The hook in pid, loading it (or switching a detached one on) when the
 * process has none: r->injected says we did.  0, or -1 with err. */
static int window_hook(const window_opts *o, window_result *r, prof_error *err)
{
	char comm[64];
	if (follow_proc_check(o->pid, comm, sizeof(comm), err))
		return -1;
	int flags = inject_seg_flags(o->pid);
	if (flags >= 0 && !(flags & SEG_FLAG_DETACHED))
		return 0;
	if (!o->lib) {
		prof_errorf(err, "process %d (%s) runs without libmprof.so and no libmprof.so was found to load "
			    "(set MPROF_LIB)", o->pid, comm);
		return -1;
	}
	int rc = inject_load(o->pid, o->lib, NULL, 0, err);
	if (rc < 0)
		return -1;
	r->injected = rc != INJECT_PRESENT;
	return 0;
}

/* Whether pid is a running mprof-tui (a window's owner; its pid may have
 * gone to another program since). */
static int owner_alive(int64_t pid)
{
	char path[64], comm[64];
	if (pid <= 0 || pid > INT32_MAX || proc_gone((int)pid))
		return 0;
	snprintf(path, sizeof(path), "/proc/%lld/comm", (long long)pid);
	file_first_line(path, comm, sizeof(comm));
	return !strcmp(comm, "mprof-tui");
}

/* Before the baseline: refuses a window whose mprof-tui runs, closes one
 * whose mprof-tui is gone (what it counts until then must not fall between
 * our baseline and our window).  0, or -1 with err. */
static int window_reclaim(seg_header *hw, int pid, prof_error *err)
{
	uint64_t cur = __atomic_load_n(&hw->win_state, __ATOMIC_ACQUIRE);
	if (!(cur & SEG_WIN_OPEN))
		return 0;
	int64_t owner = __atomic_load_n(&hw->win_owner, __ATOMIC_ACQUIRE);
	if (owner_alive(owner)) {
		prof_errorf(err, "process %d: a window is already open by mprof-tui (pid %lld)", pid, (long long)owner);
		return -1;
	}
	__atomic_compare_exchange_n(&hw->win_state, &cur, cur & ~SEG_WIN_OPEN, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	sleep_ns(WINDOW_SETTLE_NS);
	return 0;
}

/* Opens the window (none is open: window_reclaim ran).  Returns the state
 * written (gen << 1 | open), or 0 with err when another opened one first. */
static uint64_t window_open(seg_header *hw, int pid, prof_error *err)
{
	uint64_t cur = __atomic_load_n(&hw->win_state, __ATOMIC_ACQUIRE) & ~SEG_WIN_OPEN;
	uint64_t next = (((cur >> 1) + 1) << 1) | SEG_WIN_OPEN;
	if (!__atomic_compare_exchange_n(&hw->win_state, &cur, next, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		prof_errorf(err, "process %d: another mprof-tui opened a window at the same moment", pid);
		return 0;
	}
	__atomic_store_n(&hw->win_owner, (int64_t)getpid(), __ATOMIC_RELEASE);
	return next;
}

/* Closes our window st (one another mprof-tui took over is left alone). */
static void window_close(seg_header *hw, uint64_t st)
{
	if (__atomic_compare_exchange_n(&hw->win_state, &st, st & ~SEG_WIN_OPEN, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		__atomic_store_n(&hw->win_owner, 0, __ATOMIC_RELEASE);
}

/* The hook we loaded for the window goes idle again (unless keep): after
 * the window, or when it could not open. */
static void window_detach(const window_opts *o, window_result *r)
{
	if (!r->injected || o->keep || r->exited || proc_gone(o->pid))
		return;
	prof_error derr;
	int n = inject_detach(o->pid, &derr);
	if (n < 0) {
		snprintf(r->note, sizeof(r->note), "%s", derr.msg);
	} else {
		r->detached = 1;
		r->detach_slots = n;
	}
}

/* The window counters of stacks [0, n) (relaxed loads: the hook adds while
 * we read); caller frees. */
static mp_counts *counters_copy(const mp_counts *wc, uint64_t n)
{
	mp_counts *c = calloc(n ? n : 1, sizeof(*c));
	for (uint64_t s = 0; c && s < n; s++) {
		c[s].alloc_objs = __atomic_load_n(&wc[s].alloc_objs, __ATOMIC_RELAXED);
		c[s].alloc_bytes = __atomic_load_n(&wc[s].alloc_bytes, __ATOMIC_RELAXED);
		c[s].free_objs = __atomic_load_n(&wc[s].free_objs, __ATOMIC_RELAXED);
		c[s].free_bytes = __atomic_load_n(&wc[s].free_bytes, __ATOMIC_RELAXED);
	}
	return c;
}

static uint64_t dropped_now(const seg_header *h)
{
	return __atomic_load_n(&h->dropped_stacks, __ATOMIC_RELAXED) + __atomic_load_n(&h->dropped_live, __ATOMIC_RELAXED);
}

/* f's profile turned into the window's: each sample's counters become its
 * stack's window counters less the baseline (n0 stacks), scaled when the
 * hook samples; stacks that allocated nothing in the window go.  Returns
 * the stacks left out because they freed more than they allocated (which
 * the marks make impossible: a hook bug, said, never hidden). */
static size_t window_counts(follow *f, const mp_counts *wc, const mp_counts *base, uint64_t n0)
{
	prof *p = f->p;
	size_t k2 = 0, odd = 0;
	for (size_t k = 0; k < p->samples.len; k++) {
		uint32_t id = f->seg_of[k];
		mp_counts c = { __atomic_load_n(&wc[id].alloc_objs, __ATOMIC_RELAXED),
				__atomic_load_n(&wc[id].alloc_bytes, __ATOMIC_RELAXED),
				__atomic_load_n(&wc[id].free_objs, __ATOMIC_RELAXED),
				__atomic_load_n(&wc[id].free_bytes, __ATOMIC_RELAXED) };
		if (id < n0) {
			c.alloc_objs -= base[id].alloc_objs;
			c.alloc_bytes -= base[id].alloc_bytes;
			c.free_objs -= base[id].free_objs;
			c.free_bytes -= base[id].free_bytes;
		}
		if (c.free_objs > c.alloc_objs || c.free_bytes > c.alloc_bytes) {
			odd++;
			continue;
		}
		if (!c.alloc_objs)
			continue;
		if (f->hc.sample_rate > 1) {
			heap_scale(&c.alloc_objs, &c.alloc_bytes, f->hc.sample_rate);
			heap_scale(&c.free_objs, &c.free_bytes, f->hc.sample_rate);
		}
		prof_sample s = p->samples.v[k];
		s.size = 0;
		s.c = c;
		p->samples.v[k2++] = s;
	}
	p->samples.len = k2;
	p->meta.peak = (prof_peak){ 0 };   /* the process's peak is not the window's */
	return odd;
}

int window_run(const window_opts *o, window_result *r, prof_error *err)
{
	memset(r, 0, sizeof(*r));
	if (window_hook(o, r, err))
		return -1;
	follow f;
	if (follow_open(&f, o->pid, o->lib, err)) {
		window_detach(o, r);
		return -1;
	}
	size_t hl = 0;
	seg_header *hw = seg_map_header_rw(&f.m, &hl, err);
	const mp_counts *wc = seg_window_counters(&f.m, &f.hc);
	if (hw && !wc)
		prof_errorf(err, "%s: offset %zu: window counters out of bounds", f.m.name, offsetof(seg_header, win_off));
	int ok = hw && wc && !window_reclaim(hw, o->pid, err);
	uint64_t n0 = __atomic_load_n(&f.m.h->stack_count, __ATOMIC_ACQUIRE);
	n0 = n0 < f.hc.stack_cap ? n0 : f.hc.stack_cap;
	mp_counts *base = ok ? counters_copy(wc, n0) : NULL;
	if (ok && !base)
		prof_errorf(err, "%s: out of memory", f.m.name);
	uint64_t drop0 = dropped_now(f.m.h);
	uint64_t st = base ? window_open(hw, o->pid, err) : 0;
	if (!st) {
		free(base);
		if (hw)
			munmap(hw, hl);
		follow_close(&f);
		window_detach(o, r);
		return -1;
	}

	if (o->msg) {
		fprintf(o->msg, "mprof-tui: window open on process %d for %g s%s (Ctrl-C closes it early)\n", o->pid,
			o->seconds, r->injected ? ", libmprof.so loaded for it" : "");
		fflush(o->msg);
	}
	struct sigaction sa, old[3];
	const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	win_signal = 0;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	int64_t t0 = mono_ns(), end = t0 + (int64_t)(o->seconds * 1e9);
	for (int64_t now = t0; now < end && !win_signal; now = mono_ns()) {
		sleep_ns(end - now < WINDOW_TICK_NS ? end - now : WINDOW_TICK_NS);
		if (follow_check_exit(&f)) {
			r->exited = 1;
			break;
		}
	}
	window_close(hw, st);
	r->open_s = (double)(mono_ns() - t0) / 1e9;
	r->signal = win_signal;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	sleep_ns(WINDOW_SETTLE_NS);

	int rc = 0;
	if (follow_sync(&f) < 0) {
		prof_errorf(err, "%s: out of memory", f.m.name);
		rc = -1;
	} else {
		r->odd = window_counts(&f, wc, base, n0);
		f.p->meta.dropped = dropped_now(f.m.h) - drop0;
		f.p->meta.unknown_frees = 0;   /* frees of older blocks are not the window's */
		r->p = f.p;
		f.p = NULL;
	}
	free(base);
	munmap(hw, hl);
	follow_close(&f);
	window_detach(o, r);
	return rc;
}
