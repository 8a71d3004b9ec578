// sym_cxx.cpp - C++ frames for the symbol tests: a function template and
// a method in a namespace (demangled names, with parameters).
#include <cstddef>

extern "C" void *rec_alloc(size_t n);
extern "C" void *volatile keep[1024];

namespace store {

template <typename T> __attribute__((noinline)) T *make_array(size_t n)
{
	T *p = static_cast<T *>(rec_alloc(n * sizeof(T))); // L:make_array
	keep[10] = p;
	return p;
}

class Pool {
public:
	__attribute__((noinline)) void *grab(size_t n);
	int used = 0;
};

void *Pool::grab(size_t n)
{
	void *p = rec_alloc(n); // L:grab
	keep[11] = p;
	used++;
	return p;
}

} // namespace store

extern "C" void cxx_work(void)
{
	store::make_array<int>(10);
	store::make_array<double>(7);
	store::Pool pool;
	pool.grab(100);
	keep[12] = 0;
}
