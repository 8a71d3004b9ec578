// hook_cxx.cpp - C++ allocation paths under the hook: new/delete,
// new[]/delete[], std::vector growth, an exception thrown and caught,
// operator new failing with std::bad_alloc (it unwinds through the hook's
// wrapper) and the allocations after it.  With two file arguments (for
// the injection tests) it prints its pid, waits for the first file before
// the work and for the second (at most 30 s) after printing its line.
#include <cstdio>
#include <new>
#include <unistd.h>
#include <stdexcept>
#include <vector>

#define NOINLINE __attribute__((noinline))

struct Obj {
	char pad[40];
};

std::vector<int> *volatile vec;
// volatile: the compiler may drop a new whose result is never read.
Obj *volatile kept[8];
char *volatile kept_arr[4];

NOINLINE void leak_new()            // 8 x 40 B
{
	for (int i = 0; i < 8; i++)
		kept[i] = new Obj();
}

NOINLINE void leak_new_array()      // 4 x 100 B
{
	for (int i = 0; i < 4; i++)
		kept_arr[i] = new char[100];
}

NOINLINE void new_delete()          // all freed
{
	for (int i = 0; i < 10; i++) {
		Obj *o = new Obj();
		delete o;
		int *a = new int[50];
		delete[] a;
	}
}

NOINLINE void grow_vector()         // leaks the vector (24 B) and its final buffer (4096 B)
{
	vec = new std::vector<int>();
	for (int i = 0; i < 1000; i++)
		vec->push_back(i);
}

NOINLINE void throw_it()
{
	throw std::runtime_error("a message long enough to need the heap, surely");
}

NOINLINE int catch_it()             // everything freed again
{
	try {
		throw_it();
	} catch (const std::exception &e) {
		return (int)e.what()[0];
	}
	return 0;
}

Obj *volatile after[3];

NOINLINE int bad_alloc_then_leak()  // the failed new records nothing; then 3 x 40 B
{
	int caught = 0;
	try {
		char *volatile huge = new char[(size_t)1 << 62];
		huge[0] = 1;
	} catch (const std::bad_alloc &) {
		caught = 1;
	}
	for (int i = 0; i < 3; i++)
		after[i] = new Obj();
	return caught;
}

static void wait_for(const char *path)
{
	for (int i = 0; i < 3000 && access(path, F_OK); i++)
		usleep(10000);
}

int main(int argc, char **argv)
{
	if (argc > 2) {
		std::printf("%d\n", (int)getpid());
		std::fflush(stdout);
		wait_for(argv[1]);
	}
	leak_new();
	leak_new_array();
	new_delete();
	grow_vector();
	int c = catch_it();
	int b = bad_alloc_then_leak();
	std::printf("hook_cxx: %zu ints, caught '%c', bad_alloc %d\n", vec->size(), c, b);
	std::fflush(stdout);
	if (argc > 2)
		wait_for(argv[2]);
	return 0;
}
