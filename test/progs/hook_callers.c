/* hook_callers.c - one allocation site reached through the same frames
 * from two different outer callers, interleaved, at the same stack depth:
 * the hook's stack cache must tell them apart.  via_a leaks 3000 x 16 B,
 * via_b 2000 x 24 B; exit status 0. */
#include <stdlib.h>

static void *volatile keep;

__attribute__((noinline)) static void *alloc_one(size_t n)
{
	void *p = malloc(n);
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) static void mid(size_t n)
{
	keep = alloc_one(n);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void via_a(void)
{
	mid(16);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void via_b(void)
{
	mid(24);
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	for (int r = 0; r < 1000; r++) {
		via_a();
		via_b();
		via_a();
		via_b();
		via_a();
	}
	return 0;
}
