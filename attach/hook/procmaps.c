/* procmaps.c - the process's own mappings (/proc/self/maps) without
 * malloc: read with read(2) a chunk at a time into a buffer on the stack,
 * for the entry patcher (a page's protection, to put it back as it was; a
 * free range near a module for its trampolines) and the frame-pointer walk
 * (its thread's stack mapping). */
#include "attach/hook/hook.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint64_t hex(const char **s)
{
	uint64_t v = 0;
	for (;; (*s)++) {
		char c = **s;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return v;
		v = v * 16 + (uint64_t)d;
	}
}

/* One line: "lo-hi rwxp off dev inode  path"; 0 if it is not one. */
static int parse(const char *l, procmap *m)
{
	m->lo = hex(&l);
	if (*l++ != '-')
		return 0;
	m->hi = hex(&l);
	if (*l++ != ' ' || strlen(l) < 4)
		return 0;
	m->prot = (l[0] == 'r' ? PROT_READ : 0) | (l[1] == 'w' ? PROT_WRITE : 0) | (l[2] == 'x' ? PROT_EXEC : 0);
	const char *p = strchr(l, '/');
	const char *b = strchr(l, '[');
	m->special = 0;
	m->path = p ? p : "";
	if (!p && b)
		m->special = !strncmp(b, "[stack]", 7) ? 2 : !strncmp(b, "[heap]", 6) ? 1 : 3;
	return 1;
}

int procmaps_each(int (*fn)(void *arg, const procmap *m), void *arg)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[1024];   /* on the stack: threads' frame-pointer walks read their stack's mapping at once */
	char line[512];
	size_t ll = 0;
	int r = 0, cut = 0;
	ssize_t n;
	while (!r && (n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n && !r; i++) {
			if (buf[i] != '\n') {
				if (ll < sizeof(line) - 1)
					line[ll++] = buf[i];
				else
					cut = 1;
				continue;
			}
			line[ll] = 0;
			ll = 0;
			procmap m;
			if (parse(line, &m)) {
				if (cut)
					m.path = "";   /* longer than the line: no path rather than a wrong one */
				r = fn(arg, &m);
			}
			cut = 0;
		}
	}
	close(fd);
	return r < 0 ? -1 : 0;
}

typedef struct path_q {
	uint64_t addr;
	char *out;
	size_t len;
	int found;
} path_q;

static int path_one(void *arg, const procmap *m)
{
	path_q *q = arg;
	if (q->addr < m->lo || q->addr >= m->hi)
		return 0;
	size_t n = strlen(m->path);
	if (n && n < q->len) {
		memcpy(q->out, m->path, n + 1);
		q->found = 1;
	}
	return 1;
}

int procmaps_path(uint64_t addr, char *out, size_t len)
{
	path_q q = { addr, out, len, 0 };
	procmaps_each(path_one, &q);
	return q.found ? 0 : -1;
}

/* The main program's file: the mapping at ADDR, not /proc/self/exe, which
 * is ld.so when the program was started as "ld.so ./prog". */
int procmaps_exe_path(uint64_t addr, char *out, size_t len)
{
	if (!procmaps_path(addr, out, len) && out[0] == '/')
		return 0;
	ssize_t n = readlink("/proc/self/exe", out, len - 1);
	out[n > 0 ? n : 0] = 0;
	return n > 0 ? 0 : -1;
}

typedef struct prot_q {
	uint64_t addr;
	int prot;
} prot_q;

static int prot_one(void *arg, const procmap *m)
{
	prot_q *q = arg;
	if (q->addr >= m->lo && q->addr < m->hi) {
		q->prot = m->prot;
		return 1;
	}
	return 0;
}

int procmaps_prot(uint64_t addr)
{
	prot_q q = { addr, -1 };
	procmaps_each(prot_one, &q);
	return q.prot;
}

typedef struct gap_q {
	uint64_t lo, hi;     /* the module's code */
	uint64_t size;       /* wanted */
	uint64_t reach;      /* the farthest a byte of the module may be */
	uint64_t prev_hi;    /* end of the mapping before */
	int prev_special;
	uint64_t best, best_dist;
	uint64_t no_above;   /* nothing above this (the executable: brk grows there) */
} gap_q;

/* The candidate in the free range [a, b), the nearest to the module. */
static void gap_try(gap_q *q, uint64_t a, uint64_t b, int below_stack)
{
	if (b <= a || b - a < q->size || below_stack)
		return;
	uint64_t at, dist;
	if (b <= q->lo) {   /* below the module: as high as it goes */
		at = b - q->size;
		dist = q->hi - at;
	} else if (a >= q->hi) {
		if (q->no_above && a >= q->no_above)
			return;
		at = a;
		dist = at + q->size - q->lo;
	} else {
		return;
	}
	if (dist <= q->reach && dist < q->best_dist) {
		q->best = at;
		q->best_dist = dist;
	}
}

static int gap_one(void *arg, const procmap *m)
{
	gap_q *q = arg;
	gap_try(q, q->prev_hi, m->lo, m->special == 2);
	q->prev_hi = m->hi;
	q->prev_special = m->special;
	return 0;
}

uint64_t procmaps_gap(uint64_t lo, uint64_t hi, uint64_t size, uint64_t reach, uint64_t no_above)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	gap_q q = { lo, hi, size, reach, 0x10000, 0, 0, UINT64_MAX, no_above };
	if (procmaps_each(gap_one, &q))
		return 0;
	return q.best & ~(pg - 1);
}
