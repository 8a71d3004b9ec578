/* gomem.c - reads the "# runtime.MemStats" trailer that Go's
 * runtime/pprof writes after a debug=1 heap profile, and says what it
 * means: the sampled heap, the heap in use, what the runtime holds from
 * the system and where the difference is (idle, released, stacks, GC). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/bytes.h"
#include "core/gomem.h"
#include "core/prof.h"

static const struct gofield {
	const char *name;
	size_t off;
} gofields[] = {
	{ "Alloc", offsetof(prof_gomem, alloc) },
	{ "TotalAlloc", offsetof(prof_gomem, total_alloc) },
	{ "Sys", offsetof(prof_gomem, sys) },
	{ "HeapAlloc", offsetof(prof_gomem, heap_alloc) },
	{ "HeapSys", offsetof(prof_gomem, heap_sys) },
	{ "HeapIdle", offsetof(prof_gomem, heap_idle) },
	{ "HeapInuse", offsetof(prof_gomem, heap_inuse) },
	{ "HeapReleased", offsetof(prof_gomem, heap_released) },
	{ "HeapObjects", offsetof(prof_gomem, heap_objects) },
	{ "Stack", offsetof(prof_gomem, stack_inuse) },   /* "Stack = inuse / sys" */
	{ "MSpan", offsetof(prof_gomem, mspan_sys) },     /* "MSpan = inuse / sys": sys kept below */
	{ "MCache", offsetof(prof_gomem, mcache_sys) },
	{ "BuckHashSys", offsetof(prof_gomem, buckhash_sys) },
	{ "GCSys", offsetof(prof_gomem, gc_sys) },
	{ "OtherSys", offsetof(prof_gomem, other_sys) },
	{ "NextGC", offsetof(prof_gomem, next_gc) },
	{ "NumGC", offsetof(prof_gomem, num_gc) },
};

/* A decimal at *s (blanks first); 1 and the value, else 0. */
static int dec(const char **s, const char *e, uint64_t *v)
{
	while (*s < e && (**s == ' ' || **s == '\t'))
		(*s)++;
	if (*s >= e || **s < '0' || **s > '9')
		return 0;
	uint64_t x = 0;
	while (*s < e && **s >= '0' && **s <= '9') {
		if (x > (UINT64_MAX - 9) / 10)
			return 0;
		x = x * 10 + (uint64_t)(**s - '0');
		(*s)++;
	}
	*v = x;
	return 1;
}

int gomem_line(prof_gomem *g, const char *s, const char *e)
{
	if (s >= e || *s != '#')
		return 0;
	s++;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	static const char hdr[] = "runtime.MemStats";
	if ((size_t)(e - s) >= sizeof(hdr) - 1 && !memcmp(s, hdr, sizeof(hdr) - 1)) {
		g->in = 1;
		g->have = 1;
		return 1;
	}
	if (!g->in)
		return 0;
	const char *n = s;
	while (s < e && *s != ' ' && *s != '=')
		s++;
	size_t nl = (size_t)(s - n);
	while (s < e && *s == ' ')
		s++;
	if (s >= e || *s != '=')
		return 1;   /* a trailer line mprof does not read (PauseNs = [...] is "= [") */
	s++;
	for (size_t i = 0; i < sizeof(gofields) / sizeof(gofields[0]); i++) {
		if (strlen(gofields[i].name) != nl || memcmp(gofields[i].name, n, nl))
			continue;
		uint64_t v, v2;
		if (!dec(&s, e, &v))
			return 1;
		uint64_t *f = (uint64_t *)((char *)g + gofields[i].off);
		*f = v;
		/* "Stack = 1 / 2": in use, then held from the system. */
		while (s < e && *s == ' ')
			s++;
		if (s < e && *s == '/' && (s++, dec(&s, e, &v2)) && gofields[i].off == offsetof(prof_gomem, stack_inuse))
			g->stack_sys = v2;
		else if (s < e && gofields[i].off == offsetof(prof_gomem, mspan_sys) && dec(&s, e, &v2))
			g->mspan_sys = v2;
		return 1;
	}
	return 1;
}

size_t gomem_title(const prof_gomem *g, char *buf, size_t cap)
{
	if (!g->have || !cap)
		return 0;
	char a[32], h[32], i[32], r[32], st[32], sy[32];
	bytes_fmt(a, sizeof(a), (int64_t)g->heap_alloc);
	bytes_fmt(h, sizeof(h), (int64_t)g->heap_sys);
	bytes_fmt(i, sizeof(i), (int64_t)g->heap_idle);
	bytes_fmt(r, sizeof(r), (int64_t)g->heap_released);
	bytes_fmt(st, sizeof(st), (int64_t)g->stack_sys);
	bytes_fmt(sy, sizeof(sy), (int64_t)g->sys);
	int n = snprintf(buf, cap,
			 "Go: in use %s, heap held %s (idle %s, released %s), stacks %s, Sys %s, GC %" PRIu64 " cycles",
			 a, h, i, r, st, sy, g->num_gc);
	return n < 0 ? 0 : (size_t)n >= cap ? cap - 1 : (size_t)n;
}

/* One "  label  N (X)" line of --info. */
static size_t info_row(char *buf, size_t cap, size_t n, const char *label, uint64_t v)
{
	char b[32];
	bytes_fmt(b, sizeof(b), (int64_t)v);
	if (n >= cap)
		return n;
	int w = snprintf(buf + n, cap - n, "  %-34s %15" PRIu64 "  (%s)\n", label, v, b);
	return w < 0 ? n : n + (size_t)w;
}

size_t gomem_info(const prof_gomem *g, int64_t sampled_inuse, char *buf, size_t cap)
{
	if (!g->have || !cap)
		return 0;
	buf[0] = 0;
	size_t n = (size_t)snprintf(buf, cap, "Go runtime.MemStats (the profile's trailer):\n");
	n = info_row(buf, cap, n, "in use (HeapAlloc)", g->heap_alloc);
	n = info_row(buf, cap, n, "heap held (HeapSys)", g->heap_sys);
	n = info_row(buf, cap, n, "  spans in use (HeapInuse)", g->heap_inuse);
	n = info_row(buf, cap, n, "  idle (HeapIdle)", g->heap_idle);
	n = info_row(buf, cap, n, "  released to the OS (HeapReleased)", g->heap_released);
	n = info_row(buf, cap, n, "stacks in use (Stack)", g->stack_inuse);
	n = info_row(buf, cap, n, "stacks held (Stack sys)", g->stack_sys);
	n = info_row(buf, cap, n, "GC metadata (GCSys)", g->gc_sys);
	n = info_row(buf, cap, n, "held from the system (Sys)", g->sys);
	n = info_row(buf, cap, n, "allocated since start (TotalAlloc)", g->total_alloc);
	n = info_row(buf, cap, n, "next GC at (NextGC)", g->next_gc);
	if (n < cap) {
		int w = snprintf(buf + n, cap - n, "  %-34s %15" PRIu64 "\n", "GC cycles (NumGC)", g->num_gc);
		n = w < 0 ? n : n + (size_t)w;
	}
	/* The seed's reading by eye: sampled heap -> HeapAlloc -> HeapSys -> Sys. */
	char s[32], a[32], sy[32], kept[32], rel[32], other[32], st[32], gc[32];
	uint64_t idle_kept = g->heap_idle > g->heap_released ? g->heap_idle - g->heap_released : 0;
	uint64_t known = g->heap_alloc + idle_kept + g->heap_released + g->stack_sys + g->gc_sys;
	uint64_t rest = g->sys > known ? g->sys - known : 0;
	bytes_fmt(s, sizeof(s), sampled_inuse);
	bytes_fmt(a, sizeof(a), (int64_t)g->heap_alloc);
	bytes_fmt(sy, sizeof(sy), (int64_t)g->sys);
	bytes_fmt(kept, sizeof(kept), (int64_t)idle_kept);
	bytes_fmt(rel, sizeof(rel), (int64_t)g->heap_released);
	bytes_fmt(st, sizeof(st), (int64_t)g->stack_sys);
	bytes_fmt(gc, sizeof(gc), (int64_t)g->gc_sys);
	bytes_fmt(other, sizeof(other), (int64_t)rest);
	if (n < cap) {
		int w = snprintf(buf + n, cap - n,
				 "The gap: the sampled heap is %s (as of the last GC, scaled from samples) and the runtime "
				 "has %s in use now (HeapAlloc); the process holds %s from the system (Sys): %s in use, "
				 "%s idle heap kept, %s heap released to the OS (still counted in Sys, not resident), "
				 "%s stacks, %s GC metadata, %s other.\n",
				 s, a, sy, a, kept, rel, st, gc, other);
		n = w < 0 ? n : n + (size_t)w;
	}
	return n >= cap ? cap - 1 : n;
}

int gomem_report(FILE *out, const prof *p)
{
	if (!p->go.have)
		return 0;
	int64_t inuse = 0;   /* the sampled heap: the profile's in-use bytes */
	for (size_t i = 0; i < p->samples.len; i++)
		inuse += (int64_t)(p->samples.v[i].c.alloc_bytes - p->samples.v[i].c.free_bytes);
	char buf[2048];
	gomem_info(&p->go, inuse, buf, sizeof(buf));
	fputs(buf, out);
	return ferror(out) ? -1 : 0;
}
