/* sym_app.c - a test program that profiles its own allocations the way
 * skynet-mprof does: glibc backtrace() on every allocation, buckets keyed
 * by (stack, size), and a v1 .pro written at the end with
 * backtrace_symbols() names cut at 80 bytes. Static functions,
 * always_inline helpers (nested), a C++ template and method, and a
 * dlopen'd library give the symbol resolver real return addresses.
 * Lines the tests look for carry a "L:tag" comment.
 * usage: sym_app OUT.pro LIB.so */
#include <dlfcn.h>
#include <execinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXD 32
#define NBUCKET 256

typedef struct bucket {
	void *pc[MAXD];
	int depth;
	size_t size;
	uint32_t objs;
} bucket;

static bucket buckets[NBUCKET];
static int nbuckets;
void *volatile keep[1024];
static int nkeep;

/* Records one allocation of n bytes under the caller's stack. Frame 0
 * (inside rec_alloc) is dropped, as skynet-mprof drops its own. */
__attribute__((noinline)) void *rec_alloc(size_t n)
{
	void *pc[MAXD + 1];
	int d = backtrace(pc, MAXD + 1) - 1;
	bucket *b = NULL;
	for (int i = 0; i < nbuckets && !b; i++)
		if (buckets[i].depth == d && buckets[i].size == n &&
		    !memcmp(buckets[i].pc, pc + 1, (size_t)d * sizeof(void *)))
			b = &buckets[i];
	if (!b) {
		b = &buckets[nbuckets++];
		b->depth = d;
		b->size = n;
		memcpy(b->pc, pc + 1, (size_t)d * sizeof(void *));
	}
	b->objs++;
	void *p = malloc(n);
	keep[nkeep++ & 1023] = p;
	return p;
}

static inline __attribute__((always_inline)) void *new_node(size_t n)
{
	void *p = rec_alloc(n); /* L:new_node */
	keep[0] = p;
	return p;
}

static inline __attribute__((always_inline)) void *grow_buf(size_t n)
{
	void *p = rec_alloc(n); /* L:grow_buf */
	keep[1] = p;
	return p;
}

static inline __attribute__((always_inline)) void *append(size_t n)
{
	void *p = grow_buf(n); /* L:append */
	keep[2] = p;
	return p;
}

static __attribute__((noinline)) void make_nodes(int n)
{
	for (int i = 0; i < n; i++)
		new_node(48); /* L:make_nodes */
	keep[3] = 0;
}

static __attribute__((noinline)) void fill_table(void)
{
	append(100); /* L:fill_a */
	append(100); /* L:fill_b */
	append(100); /* L:fill_c */
	keep[4] = 0;
}

static __attribute__((noinline)) void plain_alloc(void)
{
	keep[5] = rec_alloc(32); /* L:plain */
	keep[6] = 0;
}

void cxx_work(void);

static void put32(FILE *f, uint32_t v)
{
	unsigned char b[4] = { v >> 24, v >> 16, v >> 8, v };
	fwrite(b, 1, 4, f);
}

static void put64(FILE *f, uint64_t v)
{
	put32(f, (uint32_t)(v >> 32));
	put32(f, (uint32_t)v);
}

/* The v1 file: u32 body_len, u32 nfuncs, {u8 len, name, u64 id}, then
 * {alloc_objs, alloc_bytes, free_objs, free_bytes, depth, pcs}. */
static int write_v1(const char *path)
{
	static void *uniq[NBUCKET * MAXD];
	int nu = 0;
	for (int i = 0; i < nbuckets; i++)
		for (int j = 0; j < buckets[i].depth; j++) {
			int k = 0;
			while (k < nu && uniq[k] != buckets[i].pc[j])
				k++;
			if (k == nu)
				uniq[nu++] = buckets[i].pc[j];
		}
	char **names = backtrace_symbols(uniq, nu);
	FILE *f = fopen(path, "wb");
	if (!f || !names)
		return -1;
	put32(f, 0);
	put32(f, (uint32_t)nu);
	for (int k = 0; k < nu; k++) {
		size_t l = strlen(names[k]);
		if (l > 80)
			l = 80;
		fputc((int)l, f);
		fwrite(names[k], 1, l, f);
		put64(f, (uint64_t)(uintptr_t)uniq[k]);
	}
	for (int i = 0; i < nbuckets; i++) {
		bucket *b = &buckets[i];
		put32(f, b->objs);
		put32(f, (uint32_t)(b->objs * b->size));
		put32(f, 0);
		put32(f, 0);
		put32(f, (uint32_t)b->depth);
		for (int j = 0; j < b->depth; j++)
			put64(f, (uint64_t)(uintptr_t)b->pc[j]);
	}
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	put32(f, (uint32_t)(len - 4));
	free(names);
	return fclose(f);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: sym_app OUT.pro LIB.so\n");
		return 2;
	}
	void *h = dlopen(argv[2], RTLD_NOW);
	void *(*lib_work)(void *(*)(size_t)) = h ? (void *(*)(void *(*)(size_t)))dlsym(h, "lib_work") : NULL;
	if (!lib_work) {
		fprintf(stderr, "sym_app: %s\n", dlerror());
		return 1;
	}
	make_nodes(5);
	fill_table();
	plain_alloc();
	cxx_work();
	keep[7] = lib_work(rec_alloc);
	if (write_v1(argv[1])) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
