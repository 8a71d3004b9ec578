/* rel_lib.c - a library loaded by a relative path (./sub/librel.so, as
 * skynet loads ./luaclib/skynet.so): rel_inner, static (no dynamic symbol:
 * only the file's own symbols name it), leaks 3 x 111 B. */
#include <stdlib.h>

void *volatile rel_keep[3];

__attribute__((noinline)) static void rel_inner(void)
{
	for (int i = 0; i < 3; i++)
		rel_keep[i] = malloc(111);
	rel_keep[0] = rel_keep[0];   /* not a tail call */
}

void lib_alloc(void)
{
	rel_inner();
	rel_keep[1] = rel_keep[1];
}
