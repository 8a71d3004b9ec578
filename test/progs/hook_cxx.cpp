// hook_cxx.cpp - C++ allocation paths under the hook: new/delete,
// new[]/delete[], std::vector growth, an exception thrown and caught.
#include <cstdio>
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

int main()
{
	leak_new();
	leak_new_array();
	new_delete();
	grow_vector();
	int c = catch_it();
	std::printf("hook_cxx: %zu ints, caught '%c'\n", vec->size(), c);
	return 0;
}
