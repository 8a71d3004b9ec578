/* faults_resident.c - which pages the process still holds: for every page
 * held (faults.pages), /proc/PID/pagemap read in runs of neighbouring
 * pages, and a page not present there (given back with madvise
 * DONTNEED/FREE once reclaimed, unmapped, a shrunk brk, mremap away, or
 * swapped out) leaves the stack that touched it: it is counted as freed
 * there and no longer held.  So in use is what is resident now, allocated
 * every page made.  Read when every fault so far is counted (a drained
 * backlog), at most every 100 ms, and at the end while the process lives. */
#include "attach/faults/faults_int.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PM_PRESENT (1ULL << 63)
#define PM_RUN 4096   /* pagemap entries read at most at once */

static int page_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The pages held, sorted; their count, or -1 (ENOMEM). */
static long held_sorted(const faults *f, uint64_t **out)
{
	size_t n = 0;
	uint64_t *v = malloc((f->pages.used + 1) * sizeof(*v));   /* freed by the caller */
	if (!v)
		return -1;
	uint64_t k;
	uint32_t s;
	for (size_t it = 0; u64map_next(&f->pages, &it, &k, &s);)
		v[n++] = k;
	qsort(v, n, sizeof(*v), page_cmp);
	*out = v;
	return (long)n;
}

int faults_resident_read(faults *f)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/pagemap", f->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;   /* gone, or not ours to read: the last reading stands */
	uint64_t *v = NULL;
	long n = f->pages.vals ? held_sorted(f, &v) : 0;
	uint64_t *run = n > 0 ? malloc(PM_RUN * sizeof(*run)) : NULL;
	uint8_t *gone = n > 0 ? calloc((size_t)n, 1) : NULL;
	int rc = n < 0 || (n > 0 && (!run || !gone)) ? -1 : 0;
	/* Read everything first: a process that ended meanwhile reads short,
	 * and then nothing of this reading is applied. */
	for (long i = 0; !rc && i < n;) {
		long j = i + 1;
		while (j < n && v[j] - v[i] < PM_RUN)
			j++;
		size_t want = (size_t)(v[j - 1] - v[i] + 1);
		ssize_t r = pread(fd, run, want * sizeof(*run), (off_t)(v[i] * sizeof(*run)));
		if (r != (ssize_t)(want * sizeof(*run))) {
			rc = -1;
			break;
		}
		for (long k = i; k < j; k++)
			gone[k] = !(run[v[k] - v[i]] & PM_PRESENT);
		i = j;
	}
	close(fd);
	for (long i = 0; !rc && i < n; i++) {
		if (!gone[i])
			continue;
		size_t at = u64map_slot(&f->pages, v[i]);
		faults_page_left(f, f->pages.vals[at]);
		u64map_del_at(&f->pages, at);
	}
	if (!rc)
		f->st.resident_reads++;
	f->st.held = f->pages.used;
	free(gone);
	free(run);
	free(v);
	return rc;
}

void faults_resident_tick(faults *f)
{
	int64_t now = mono_ns();
	if (now < f->resident_next_ns || !f->p || f->gone)
		return;
	faults_resident_read(f);
	int64_t took = mono_ns() - now;
	/* Every 100 ms, or ten times as long as a reading takes (a huge page set). */
	f->resident_next_ns = mono_ns() + (took * 10 > 100000000LL ? took * 10 : 100000000LL);
}
