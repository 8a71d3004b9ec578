/* hook_dlopen.c - dlopen a library, let it allocate, dlclose it, exit. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	void (*fn)(void) = (void (*)(void))dlsym(h, "lib_alloc");
	fn();
	dlclose(h);
	printf("unloaded\n");
	return 0;
}
