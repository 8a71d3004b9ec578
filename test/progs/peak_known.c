/* peak_known.c - a heap with a known peak: f_hold allocates 3 MiB, g_hold
 * 5 MiB (the peak: 8 MiB, f 3 + g 5), g's blocks are freed, h_hold
 * allocates 1 MiB; then it prints "ready", waits until the file argv[1]
 * exists (no argument, or "-": no wait) and exits with f's and h's blocks
 * held.  Blocks of 1 MiB (argv[2]: of that many bytes instead, for a peak
 * below the hook's old 64 KiB margin), no stdio before the end: nothing
 * else of size allocates. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1024 * 1024)

static void *f_blocks[3], *g_blocks[5], *h_blocks[1];
static size_t unit = MIB;

__attribute__((noinline)) static void hold(void **v, int n)
{
	for (int i = 0; i < n; i++) {
		v[i] = malloc(unit);
		memset(v[i], 1, 64);
	}
	__asm__ volatile("" ::: "memory");   /* no tail call: the caller stays on the stack */
}

__attribute__((noinline)) static void f_hold(void) { hold(f_blocks, 3); __asm__ volatile(""); }
__attribute__((noinline)) static void g_hold(void) { hold(g_blocks, 5); __asm__ volatile(""); }
__attribute__((noinline)) static void h_hold(void) { hold(h_blocks, 1); __asm__ volatile(""); }

int main(int argc, char **argv)
{
	if (argc > 2)
		unit = (size_t)atol(argv[2]);
	f_hold();
	g_hold();
	for (int i = 0; i < 5; i++)
		free(g_blocks[i]);
	h_hold();
	if (write(1, "ready\n", 6) != 6)
		return 1;
	while (argc > 1 && strcmp(argv[1], "-") && access(argv[1], F_OK))
		usleep(20000);
	return 0;
}
