/* entry_refuse.c - an allocating function whose prologue cannot be moved:
 * a branch later in it jumps back to its third byte, inside the bytes an
 * entry patch would overwrite.  MPROF_FUNCS=bad_alloc:malloc must be
 * refused with the reason, and the function left as it was.
 *   entry_refuse GO   prints its pid and bad_alloc's first 16 bytes,
 *                     waits for the file GO, makes 5 blocks of 40 bytes
 *                     through bad_alloc (a tail call to malloc), prints
 *                     the 16 bytes again and "done". */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void *bad_alloc(size_t n);
__asm__(".text\n"
	".globl bad_alloc\n"
	".type bad_alloc, @function\n"
	"bad_alloc:\n"
	"	xor %eax, %eax\n"
	"1:	inc %eax\n"
	"	cmp $3, %eax\n"
	"	jne 1b\n"
	"	jmp malloc@PLT\n"
	".size bad_alloc, .-bad_alloc\n");

void *volatile sink;

static void show(void)
{
	const unsigned char *c = (const unsigned char *)(void *)bad_alloc;
	for (int i = 0; i < 16; i++)
		printf("%02x", c[i]);
	printf("\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: entry_refuse GO\n");
		return 2;
	}
	printf("%d\n", (int)getpid());
	show();
	for (int i = 0; i < 60000 && access(argv[1], F_OK); i++)
		usleep(1000);
	for (int i = 0; i < 5; i++)
		sink = bad_alloc(40);
	show();
	printf("done\n");
	return 0;
}
