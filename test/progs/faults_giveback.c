/* faults_giveback.c - pages given back, for --faults' in-use view.
 * churn_dontneed touches 4 x 16 MiB, each chunk given back with
 * madvise(MADV_DONTNEED) right after; churn_unmap touches 8 MiB and unmaps
 * it, and keep_reused maps 8 MiB at the very same address and keeps it;
 * churn_brk grows the break by 8 MiB, touches it and shrinks it back;
 * churn_mremap touches 8 MiB and shrinks it to one page; keep_sixteen
 * touches 16 MiB and keeps it.  Then it prints its RSS growth over that
 * window in KiB ("rss grew N KiB", from /proc/self/statm) and exits.
 * Expected: in use 16 MiB under keep_sixteen, 8 MiB under keep_reused,
 * one page under churn_mremap, nothing under the other churns; allocated
 * 64, 8, 8, 8, 8 and 16 MiB.  With "wait" it prints its pid first, runs
 * when a line comes on stdin, and sleeps a minute after the report. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB (1024 * 1024)

static volatile unsigned sink;

static char *fresh_at(void *at, size_t n)
{
	char *p = mmap(at, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED_NOREPLACE : 0), -1,
		       0);
	if (p == MAP_FAILED || (at && p != at)) {
		perror("mmap");
		exit(1);
	}
	return p;
}

/* One byte per 4 KiB page: every page faults once. */
__attribute__((noinline)) static void touch(char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	sink += (unsigned)p[n - 1];
}

__attribute__((noinline)) void churn_dontneed(void)
{
	char *p = fresh_at(NULL, 16 * MIB);
	for (int i = 0; i < 4; i++) {
		touch(p, 16 * MIB);
		madvise(p, 16 * MIB, MADV_DONTNEED);
	}
	munmap(p, 16 * MIB);
	sink++;
}

__attribute__((noinline)) char *churn_unmap(void)
{
	char *p = fresh_at(NULL, 8 * MIB);
	touch(p, 8 * MIB);
	munmap(p, 8 * MIB);
	sink++;
	return p;
}

__attribute__((noinline)) char *keep_reused(char *at)
{
	char *p = fresh_at(at, 8 * MIB);
	touch(p, 8 * MIB);
	sink++;
	return p;
}

__attribute__((noinline)) void churn_brk(void)
{
	char *p = sbrk(8 * MIB);
	if (p == (void *)-1) {
		perror("sbrk");
		exit(1);
	}
	touch(p, 8 * MIB);
	if (sbrk(-8 * MIB) == (void *)-1)
		perror("sbrk shrink");
	sink++;
}

__attribute__((noinline)) char *churn_mremap(void)
{
	char *p = fresh_at(NULL, 8 * MIB);
	touch(p, 8 * MIB);
	p = mremap(p, 8 * MIB, 4096, 0);
	if (p == MAP_FAILED) {
		perror("mremap");
		exit(1);
	}
	sink++;
	return p;
}

__attribute__((noinline)) char *keep_sixteen(void)
{
	char *p = fresh_at(NULL, 16 * MIB);
	touch(p, 16 * MIB);
	sink++;
	return p;
}

static long rss_kib(void)
{
	long pages = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f && fscanf(f, "%ld %ld", &pages, &res) != 2)
		res = 0;
	if (f)
		fclose(f);
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv)
{
	int wait = argc > 1 && !strcmp(argv[1], "wait");
	char line[64];
	if (wait) {
		printf("%d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	long before = rss_kib();   /* stdio and statm's buffers are made: not in the window */
	before = rss_kib();
	churn_dontneed();
	char *kept = keep_reused(churn_unmap());
	churn_brk();
	char *one = churn_mremap();
	char *sixteen = keep_sixteen();
	long grew = rss_kib() - before;
	printf("rss grew %ld KiB\n", grew);
	fflush(stdout);
	if (wait)
		sleep(60);
	sink += (unsigned)kept[0] + (unsigned)one[0] + (unsigned)sixteen[0];
	return 0;
}
