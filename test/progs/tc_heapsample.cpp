// tc_heapsample.cpp - writes tcmalloc's own legacy heap profiles of known
// allocations, for test/integration/legacy_heap.sh to read beside
// google-pprof and go tool pprof: MallocExtension::GetHeapSample() (a
// "heap_v2/PERIOD" sample of live objects; run with TCMALLOC_SAMPLE_PARAMETER
// set, or it is empty) and GetHeapGrowthStacks() ("growth": the stacks that
// grew the heap, never sampled).  Link with -ltcmalloc.
//
// argv: SAMPLE_FILE GROWTH_FILE
// Live at the dump (each from its own function, never a tail call):
//   leak_big     4 x 1 MiB       sampled with probability 1 - exp(-2^20/PERIOD):
//                                at PERIOD 65536 all 4 (odds of a miss 5e-7),
//                                un-sampled to exactly 4 x 1048576 B
//   leak_mid     300 x 4000 B    sampled in part (about 18), un-sampled by pprof's
//                                formula
//   leak_small   20000 x 40 B    the same (about 12; none at odds of e^-12)
//   grow_heap    24 x 3 MiB      new spans: most of the growth stacks
// churn allocates 20000 x 256 B and frees them all again: never in use;
// warm_up does the same with 32 x 1 MiB first (see there).
// The functions are extern "C": google-pprof, go tool pprof and mprof then
// print the same names.
// Exit status 0, 1 when a file cannot be written, 2 on bad arguments.
#include <gperftools/malloc_extension.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define NOINLINE __attribute__((noinline))

static void *kept[32768];   // every block kept, never freed
static size_t nkept;

// Keeps the compiler from eliding an allocation.
static inline void escape(const void *p)
{
	asm volatile("" : : "r"(p) : "memory");
}

static void keep(void *p)
{
	if (!p) {
		std::fprintf(stderr, "tc_heapsample: out of memory\n");
		std::exit(1);
	}
	std::memset(p, 0x5a, 16);
	kept[nkept++] = p;
}

// tcmalloc samples nothing of the first megabytes a thread allocates: go
// past them before the allocations that count.
extern "C" NOINLINE void warm_up()
{
	for (int i = 0; i < 32; i++) {
		void *p = std::malloc(1 << 20);
		escape(p);
		std::free(p);
	}
}

extern "C" NOINLINE void leak_big()
{
	for (int i = 0; i < 4; i++)
		keep(std::malloc(1 << 20));
	escape(kept);
}

extern "C" NOINLINE void leak_mid()
{
	for (int i = 0; i < 300; i++)
		keep(new char[4000]);
	escape(kept);
}

extern "C" NOINLINE void leak_small()
{
	for (int i = 0; i < 20000; i++)
		keep(std::malloc(40));
	escape(kept);
}

extern "C" NOINLINE void grow_heap()
{
	for (int i = 0; i < 24; i++)
		keep(std::malloc(3 << 20));
	escape(kept);
}

extern "C" NOINLINE void churn()
{
	static void *tmp[20000];
	for (int i = 0; i < 20000; i++) {
		tmp[i] = std::malloc(256);
		escape(tmp[i]);
	}
	for (int i = 0; i < 20000; i++)
		std::free(tmp[i]);
	escape(tmp);
}

static int write_file(const char *path, const std::string &s)
{
	FILE *f = std::fopen(path, "w");
	if (!f || std::fwrite(s.data(), 1, s.size(), f) != s.size() || std::fclose(f)) {
		std::fprintf(stderr, "tc_heapsample: %s: cannot write\n", path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		std::fprintf(stderr, "usage: tc_heapsample SAMPLE_FILE GROWTH_FILE\n");
		return 2;
	}
	warm_up();
	churn();
	leak_big();
	leak_mid();
	leak_small();
	grow_heap();
	std::string sample, growth;
	MallocExtension::instance()->GetHeapSample(&sample);
	MallocExtension::instance()->GetHeapGrowthStacks(&growth);
	int rc = write_file(argv[1], sample) | write_file(argv[2], growth);
	escape(kept);
	return rc;
}
