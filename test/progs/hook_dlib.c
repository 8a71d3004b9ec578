/* hook_dlib.c - a library hook_dlopen loads, calls and unloads. */
#include <stdlib.h>

void *volatile hook_dlib_keep[5];

__attribute__((noinline)) void lib_alloc(void)   /* 5 x 77 B, never freed */
{
	for (int i = 0; i < 5; i++)
		hook_dlib_keep[i] = malloc(77);
}
