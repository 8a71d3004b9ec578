/* graph_app.c - known numbers for the call graph (test/integration/
 * callgraph.sh). In use, as run with no argument:
 *   main -> builder -> inl_fill (always inlined) -> leaf_alloc  3 x 400 B
 *           builder -> leaf_alloc                                   200 B
 *           builder -> recurse(0) -> leaf_alloc                      20 B
 *   main -> recurse(3) -> recurse -> recurse -> recurse -> leaf_alloc 1000 B
 *   main -> big -> leaf_alloc  2 x 32 KiB, the second freed
 *   main -> rare -> leaf_alloc 150 B; main -> tiny -> leaf_alloc 1 B
 * With "new": inl_fill makes 5 blocks, big frees nothing, rare is not called.
 * Every call is out of tail position so each caller stays on the stack. */
#include <stdlib.h>
#include <string.h>

void *volatile keep[64];
static int nk;

__attribute__((noipa)) void *leaf_alloc(size_t n)
{
	void *p = malloc(n);
	memset(p, 1, n);
	keep[nk++ & 63] = p;
	return p;
}

static inline __attribute__((always_inline)) void inl_fill(int k)
{
	for (int i = 0; i < k; i++)
		leaf_alloc(400);
	keep[60] = 0;
}

__attribute__((noipa)) int recurse(int d, size_t n)
{
	int r = d ? recurse(d - 1, n) : (leaf_alloc(n) != NULL);
	keep[61] = 0;
	return r + 1;
}

__attribute__((noipa)) void builder(int k)
{
	inl_fill(k);
	leaf_alloc(200);
	recurse(0, 20);
	keep[62] = 0;
}

__attribute__((noipa)) void big(int keep_both)
{
	leaf_alloc(32768);
	void *b = leaf_alloc(32768);
	if (!keep_both) {
		keep[(nk - 1) & 63] = 0;
		free(b);
	}
	keep[63] = 0;
}

__attribute__((noipa)) void rare(void)
{
	leaf_alloc(150);
	keep[59] = 0;
}

__attribute__((noipa)) void tiny(void)
{
	leaf_alloc(1);
	keep[58] = 0;
}

int main(int argc, char **argv)
{
	int grown = argc > 1 && !strcmp(argv[1], "new");
	builder(grown ? 5 : 3);
	recurse(3, 1000);
	big(grown);
	if (!grown)
		rare();
	tiny();
	return 0;
}
