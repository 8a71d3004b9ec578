/* segment_create.c - the hook's shared-memory segment (attach/shared/segment.h),
 * made at start and again in a forked child. */
#include "attach/hook/hook.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

static uint64_t align64(uint64_t n)
{
	return (n + 63) & ~(uint64_t)63;
}

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void read_cmdline(char *dst, size_t cap)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, dst, cap - 1);
	close(fd);
	if (n <= 0)
		return;
	while (n > 0 && !dst[n - 1])
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (!dst[i])
			dst[i] = ' ';
	dst[n] = 0;
}

seg_header *hook_seg_create(uint64_t stacks, uint64_t frames, uint64_t ring, uint64_t mods, uint64_t lanes,
			    uint64_t lcap, uint32_t max_depth, size_t page_size, uint64_t *seg_size)
{
	char path[64];
	int pid = (int)getpid();
	snprintf(path, sizeof(path), SEG_PATH_FMT, pid);
	uint64_t hash = 1;
	while (hash < stacks * 2)
		hash *= 2;
	uint64_t size[SEG_R_COUNT] = {
		[SEG_R_STACKS] = stacks * sizeof(seg_stack),
		[SEG_R_COUNTERS] = (stacks + (lanes - 1) * lcap) * sizeof(mp_counts),
		[SEG_R_FRAMES] = frames * sizeof(uint64_t),
		[SEG_R_HASH] = hash * sizeof(uint32_t),
		[SEG_R_RING] = ring * sizeof(seg_slot),
		[SEG_R_MODULES] = mods * sizeof(seg_module),
	};
	uint64_t off[SEG_R_COUNT], total = align64(sizeof(seg_header));
	for (int r = 0; r < SEG_R_COUNT; r++) {
		off[r] = total;
		total = align64(total + size[r]);
	}
	uint64_t alloc_off = total;   /* the allocator table, after the regions */
	total = align64(total + sizeof(seg_allocs) + SEG_ALLOC_CAP * sizeof(seg_alloc));
	uint64_t win_off = total;     /* then the heap window's counters */
	total = align64(total + stacks * sizeof(mp_counts));
	uint64_t peak_off = total;    /* then the copy at the peak */
	total = align64(total + stacks * sizeof(seg_peak_stack));
	uint64_t dumpon_off = total;  /* then the triggered dumps' requests */
	total = align64(total + sizeof(seg_dumpon));
	total = (total + page_size - 1) & ~(uint64_t)(page_size - 1);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 && errno == EEXIST) {   /* left by a dead process with our pid */
		unlink(path);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	}
	if (fd < 0) {
		hook_say("cannot create ", path, ": not recording");
		return NULL;
	}
	procfns_seg_made(fd);
	struct statvfs vfs;
	if (fchmod(fd, 0600) || ftruncate(fd, (off_t)total) ||
	    (!fstatvfs(fd, &vfs) && (uint64_t)vfs.f_bavail * vfs.f_frsize < total)) {
		hook_say("no room for ", path, ": not recording");
		close(fd);
		unlink(path);
		return NULL;
	}
	seg_header *h = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (h == MAP_FAILED) {
		hook_say("cannot map ", path, ": not recording");
		unlink(path);
		return NULL;
	}
	*seg_size = total;
	h->version = SEG_VERSION;
	h->header_size = sizeof(seg_header);
	h->file_size = total;
	h->pid = pid;
	h->start_time_ns = clock_ns(CLOCK_REALTIME);
	h->start_mono_ns = clock_ns(CLOCK_MONOTONIC);
	h->max_depth = max_depth;
	read_cmdline(h->cmdline, sizeof(h->cmdline));
	memcpy(h->off, off, sizeof(off));
	memcpy(h->size, size, sizeof(size));
	h->stack_cap = stacks;
	h->frame_cap = frames;
	h->hash_cap = hash;
	h->ring_cap = ring;
	h->module_cap = mods;
	h->counter_lanes = lanes;
	h->lane_cap = lcap;
	h->alloc_off = alloc_off;
	h->win_off = win_off;
	h->peak.off = peak_off;
	h->sample.dumpon_off = dumpon_off;
	((seg_allocs *)((char *)h + alloc_off))->cap = SEG_ALLOC_CAP;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(h->magic, SEG_MAGIC, 8);
	return h;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static void seg_populate(seg_header *h, int r, uint64_t len, size_t page_size)
{
	uintptr_t a = (uintptr_t)seg_region(h, r), pg = (uintptr_t)page_size;
	uintptr_t lo = a & ~(pg - 1), hi = (a + len + pg - 1) & ~(pg - 1);
	if (len && hi > lo)
		madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);   /* before Linux 5.14: EINVAL, the faults as before */
}

seg_header *hook_seg_clone(seg_header *old, uint32_t max_depth, size_t page_size, uint64_t *seg_size)
{
	seg_header *h = hook_seg_create(old->stack_cap, old->frame_cap, old->ring_cap, old->module_cap,
					old->counter_lanes, old->lane_cap, max_depth, page_size, seg_size);
	if (!h)
		return NULL;
	uint64_t ns = old->stack_count < old->stack_cap ? old->stack_count : old->stack_cap;
	uint64_t nf = old->frame_used < old->frame_cap ? old->frame_used : old->frame_cap;
	/* The pages about to be written, made in one call each rather than one
	 * fault each (a fork in a shell loop spent most of its time faulting). */
	seg_populate(h, SEG_R_STACKS, ns * sizeof(seg_stack), page_size);
	seg_populate(h, SEG_R_COUNTERS, ns * sizeof(mp_counts), page_size);
	seg_populate(h, SEG_R_FRAMES, nf * sizeof(uint64_t), page_size);
	seg_populate(h, SEG_R_HASH, h->size[SEG_R_HASH], page_size);
	memcpy(seg_region(h, SEG_R_STACKS), seg_region(old, SEG_R_STACKS), ns * sizeof(seg_stack));
	/* The parent's lanes fold into the child's shared lane. */
	mp_counts *dst = seg_region(h, SEG_R_COUNTERS);
	for (uint64_t s = 0; s < ns; s++)
		seg_counter_sum(old, seg_region(old, SEG_R_COUNTERS), s, &dst[s]);
	memcpy(seg_region(h, SEG_R_FRAMES), seg_region(old, SEG_R_FRAMES), nf * sizeof(uint64_t));
	memcpy(seg_region(h, SEG_R_MODULES), seg_region(old, SEG_R_MODULES), old->module_count * sizeof(seg_module));
	h->stack_count = ns;
	h->frame_used = nf;
	h->module_count = old->module_count;
	seg_allocs *at = (seg_allocs *)((char *)h + h->alloc_off);   /* the patches are the child's too */
	memcpy(at + 1, (char *)old + old->alloc_off + sizeof(seg_allocs), SEG_ALLOC_CAP * sizeof(seg_alloc));
	at->count = ((seg_allocs *)((char *)old + old->alloc_off))->count;
	h->unknown_frees = old->unknown_frees;
	h->dropped_stacks = old->dropped_stacks;
	h->dropped_live = old->dropped_live;
	h->truncated_stacks = old->truncated_stacks;
	h->attach_ns = old->attach_ns;   /* the copied counts cover what the parent's did */
	h->attaches = old->attaches;
	h->unwind = old->unwind;
	/* The parent's window is not the child's; its next one gets a new
	 * number, so marks copied with the live table are cleared then. */
	h->win_state = old->win_state & ~SEG_WIN_OPEN;
	h->sample_rate = old->sample_rate;   /* and the requests seen: the child samples on as the parent did */
	uint64_t dumpon_off = h->sample.dumpon_off;   /* the child's own: no trigger runs in it */
	h->sample = old->sample;
	h->sample.dumpon_off = dumpon_off;
	memcpy((char *)h + h->peak.off, (char *)old + old->peak.off, ns * sizeof(seg_peak_stack));
	seg_peak pk = old->peak;   /* the parent's peak is the child's so far */
	pk.off = h->peak.off;
	pk.lock = 0;
	pk.seq &= ~1ull;
	h->peak = pk;
	stacks_rehash(h);
	h->state = SEG_STATE_RUNNING;
	return h;
}
