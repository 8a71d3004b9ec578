/* faults_heavy.c - a page-fault-heavy program for test/bench/faults.sh:
 * touches N MiB (default 512) of fresh anonymous pages, one write per
 * 4 KiB page, from a call chain 12 frames deep, so each fault has a real
 * stack to unwind; then prints "done". */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static volatile char sink;

__attribute__((noinline)) static void fill(char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	sink = p[0];
}

__attribute__((noinline)) static void deep(int d, char *p, size_t n)
{
	if (d == 0)
		fill(p, n);
	else
		deep(d - 1, p, n);
	sink++;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 512;
	char *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	deep(10, p, mib << 20);
	puts("done");
	return 0;
}
