/* sym_lib.c - the dlopen'd library of the symbol tests: an exported
 * function (named in backtrace_symbols) and a static one (offset only). */
#include <stddef.h>

typedef void *(*alloc_fn)(size_t);
void *volatile lib_keep[4];

static __attribute__((noinline)) void *lib_inner(alloc_fn a)
{
	void *p = a(64); /* L:lib_inner */
	lib_keep[0] = p;
	return p;
}

__attribute__((noinline)) void *lib_work(alloc_fn a)
{
	void *p = a(24); /* L:lib_work */
	lib_keep[1] = p;
	lib_keep[2] = lib_inner(a);
	return p;
}
