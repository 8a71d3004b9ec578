/* big_blocks.c - blocks of 4 GiB and more (the live table keeps their
 * sizes apart): big_keep leaks 6 GiB + 7 B, big_drop frees 5 GiB + 3 B
 * (bit 30 set in its low 32 bits, which the table's own bits must not take),
 * each in one block (never touched: no memory is used); small_keep leaks
 * 100 B beside them.  Exits 3 when the system refuses such a block. */
#include <stdio.h>
#include <stdlib.h>

static void *volatile keep[2];

__attribute__((noinline)) static void *big_keep(void)
{
	void *p = malloc((6ull << 30) + 7);
	__asm__ volatile("" ::: "memory");   /* not a tail call */
	return p;
}

__attribute__((noinline)) static void *big_drop(void)
{
	void *p = malloc((5ull << 30) + 3);
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) static void *small_keep(void)
{
	void *p = malloc(100);
	__asm__ volatile("" ::: "memory");
	return p;
}

int main(void)
{
	void *d = big_drop();
	keep[0] = big_keep();
	keep[1] = small_keep();
	if (!d || !keep[0]) {
		puts("refused");
		return 3;
	}
	free(d);
	puts("done");
	return 0;
}
