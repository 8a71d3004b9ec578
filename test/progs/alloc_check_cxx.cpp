// alloc_check_cxx.cpp - the C++ side of alloc_check.c: a target that proves
// the profiler never corrupts the program it watches, through operator new
// and delete (test/integration/real_allocators.sh).  Every block it
// allocates is filled with a pattern derived from its address and size (a
// vector's or string's elements from a seed taken at its creation); the
// pattern is checked right before the block is deleted or the container
// grows or shrinks, after every reallocation of a container (the old
// elements must have survived the move) and, at the end, in every block
// still held.  Aligned new must return aligned blocks.  Any mismatch prints
// "alloc_check_cxx: CORRUPT ..." on stderr and exits with 3.
//
// Paths: operator new / delete (sized, built with -fsized-deallocation),
// new[] / delete[], nothrow new, aligned new / delete and new[] / delete[]
// (a struct with alignas(64): std::align_val_t(64)), ::operator new(n) with
// ::operator delete(p, n), std::vector<uint64_t> and std::string growth and
// shrink_to_fit.
//
// argv: MODE [SECONDS [STOPFILE]]  (SECONDS: 10 when left out)
//   exact  a fixed set of allocations (all freed again, in exact_churn) and
//          the leaks below, then exit; SECONDS is ignored.
//   run    3 threads churn (churn_step: a ring of 256 live items each,
//          replaced in random order, and a slow ring of 64 replaced one per
//          128 steps, so blocks live across an injection and a detach); one
//          thread leaks a 1000 B object every 10 ms in leak_fn (catching up
//          after a late wake-up: 100,000 B/s, at most 8192); until SECONDS
//          have passed or STOPFILE exists.
// stdout: the pid first (flushed), "alloc_check_cxx: ok" last; exit status 0.
// Out of memory: exit status 1; bad arguments: 2.
//
// exact mode's leaks, in use at exit (everything else is freed); the leaf
// is operator new, so count the caller's cum (mangled names):
//   leak_new          _Z8leak_newv           8 x new Obj40 (40 B)            320 B, 8 objects
//   leak_new_array    _Z14leak_new_arrayv    4 x new unsigned char[100]      400 B, 4 objects
//   leak_new_nothrow  _Z16leak_new_nothrowv  6 x new (std::nothrow) Obj24    144 B, 6 objects
//   leak_new_aligned  _Z16leak_new_alignedv  3 x new Al64 (192 B, alignas(64))
//                                            + 1 x new Al64[2] (384 B)       960 B, 4 objects
//   all four                                                                1824 B, 22 objects
// run mode: leak_fn is _Z7leak_fnv, churn_step is _Z10churn_stepP6Worker.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "alloc_pattern.h"

#define NOINLINE __attribute__((noinline))

// ---- the pattern -------------------------------------------------------------

static uint64_t seed_of(const void *p, size_t n)
{
	return pattern_seed((uintptr_t)p, n);
}

[[noreturn]] static void fail(const char *what, const void *p, size_t n, const char *detail)
{
	std::fflush(stdout);
	std::fprintf(stderr, "alloc_check_cxx: CORRUPT %s: block %p of %zu bytes: %s\n", what, p, n, detail);
	_exit(3);
}

[[noreturn]] static void oom(size_t n)
{
	std::fflush(stdout);
	std::fprintf(stderr, "alloc_check_cxx: out of memory allocating %zu bytes\n", n);
	_exit(1);
}

// Keeps the compiler from eliding a new/delete pair.
static inline void escape(const void *p)
{
	asm volatile("" : : "r"(p) : "memory");
}

static void fill(void *v, size_t n)
{
	unsigned char *p = static_cast<unsigned char *>(v);
	pattern_fill(p, n, seed_of(p, n));
	escape(p);
}

static void check(const void *v, size_t n, const char *what)
{
	const unsigned char *p = static_cast<const unsigned char *>(v);
	uint64_t seed = seed_of(p, n);
	for (size_t j = 0; j * 8 < n; j++) {
		uint64_t w = pattern_word(seed, j);
		size_t k = n - j * 8 < 8 ? n - j * 8 : 8;
		if (!std::memcmp(p + j * 8, &w, k))
			continue;
		for (size_t b = 0; b < k; b++) {
			unsigned char want = reinterpret_cast<const unsigned char *>(&w)[b];
			if (p[j * 8 + b] != want) {
				char d[128];
				std::snprintf(d, sizeof(d), "byte %zu is 0x%02x, want 0x%02x", j * 8 + b, p[j * 8 + b], want);
				fail(what, p, n, d);
			}
		}
	}
}

static void check_new(const void *p, size_t n, size_t align, const char *what)
{
	if (!p)
		oom(n);
	if (align && (uintptr_t)p % align) {
		char d[64];
		std::snprintf(d, sizeof(d), "not aligned to %zu", align);
		fail(what, p, n, d);
	}
}

struct Obj40 {
	unsigned char b[40];
};
struct Obj24 {
	unsigned char b[24];
};
struct alignas(64) Al64 {
	unsigned char b[192];
};
struct Leak {
	unsigned char b[1000];
};
static_assert(sizeof(Obj40) == 40 && sizeof(Obj24) == 24 && sizeof(Al64) == 192 && alignof(Al64) == 64,
	      "the documented sizes");

// ---- containers: element i holds pattern_mix(seed + i) -------------------------------

static uint64_t elem(uint64_t seed, size_t i)
{
	return pattern_mix(seed + i);
}

static void check_vector(const std::vector<uint64_t> &v, uint64_t seed, const char *what)
{
	for (size_t i = 0; i < v.size(); i++)
		if (v[i] != elem(seed, i)) {
			char d[128];
			std::snprintf(d, sizeof(d), "element %zu of %zu is %#llx, want %#llx", i, v.size(),
				      (unsigned long long)v[i], (unsigned long long)elem(seed, i));
			fail(what, v.data(), v.size() * 8, d);
		}
}

// Grows v to len elements (push_back), checking every element whenever
// the buffer moves.
static void grow_vector(std::vector<uint64_t> &v, uint64_t seed, size_t len)
{
	while (v.size() < len) {
		const uint64_t *before = v.data();
		v.push_back(elem(seed, v.size()));
		if (v.data() != before)
			check_vector(v, seed, "vector growth lost elements");
	}
}

static char str_char(uint64_t seed, size_t i)
{
	return (char)('!' + elem(seed, i) % 90);
}

static void check_string(const std::string &s, uint64_t seed, const char *what)
{
	for (size_t i = 0; i < s.size(); i++)
		if (s[i] != str_char(seed, i)) {
			char d[128];
			std::snprintf(d, sizeof(d), "char %zu of %zu is 0x%02x, want 0x%02x", i, s.size(),
				      (unsigned char)s[i], (unsigned char)str_char(seed, i));
			fail(what, s.data(), s.size(), d);
		}
}

// Grows s to len chars, by appends of 1..32 chars.
static void grow_string(std::string &s, uint64_t seed, size_t len)
{
	while (s.size() < len) {
		const char *before = s.data();
		size_t k = 1 + elem(seed ^ 0x77, s.size()) % 32;
		for (size_t i = 0; i < k && s.size() < len; i++)
			s += str_char(seed, s.size());
		if (s.data() != before)
			check_string(s, seed, "string growth lost chars");
	}
}

// ---- items: one live allocation of some kind ---------------------------------------

enum Kind { K_ARRAY, K_RAW, K_OBJ, K_ALIGNED, K_ALIGNED_ARRAY, K_NOTHROW, K_VECTOR, K_STRING, K_COUNT };

struct Item {
	int kind;
	void *p;        // the block, or the container
	size_t n;       // bytes; elements for K_ALIGNED_ARRAY; length for containers
	uint64_t seed;  // containers' element pattern
};

struct Rng {
	uint64_t s;
	uint64_t next()
	{
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		return s;
	}
	size_t size()
	{
		uint64_t r = next();
		if (r % 512 == 0)
			return 131072 + (size_t)(r >> 20) % 200000;
		if (r % 16 == 0)
			return 1 + (size_t)(r >> 20) % 65536;
		return 1 + (size_t)(r >> 20) % 2048;
	}
};

static void item_new(Rng &r, Item &it, int kind)
{
	it.kind = kind;
	size_t n = r.size();
	switch (it.kind) {
	case K_ARRAY: {
		unsigned char *a = new unsigned char[n];
		check_new(a, n, 0, "new[]");
		it.p = a;
		break;
	}
	case K_RAW:
		it.p = ::operator new(n);
		check_new(it.p, n, 0, "operator new");
		break;
	case K_OBJ:
		n = sizeof(Obj40);
		it.p = new Obj40;
		check_new(it.p, n, 0, "new");
		break;
	case K_ALIGNED:
		n = sizeof(Al64);
		it.p = new Al64;
		check_new(it.p, n, 64, "aligned new");
		break;
	case K_ALIGNED_ARRAY:
		n = 1 + n % 24;
		it.p = new Al64[n];
		check_new(it.p, n * sizeof(Al64), 64, "aligned new[]");
		it.n = n;
		fill(it.p, n * sizeof(Al64));
		return;
	case K_NOTHROW: {
		unsigned char *a = new (std::nothrow) unsigned char[n];
		check_new(a, n, 0, "nothrow new[]");
		it.p = a;
		break;
	}
	case K_VECTOR: {
		auto *v = new std::vector<uint64_t>;
		it.p = v;
		it.seed = seed_of(v, n);
		it.n = n % 4096;
		grow_vector(*v, it.seed, it.n);
		return;
	}
	default: {
		auto *s = new std::string;
		it.p = s;
		it.seed = seed_of(s, n);
		it.n = n % 8192;
		grow_string(*s, it.seed, it.n);
		return;
	}
	}
	it.n = n;
	fill(it.p, n);
}

static void item_free(Item &it, const char *what)
{
	switch (it.kind) {
	case K_ARRAY:
		check(it.p, it.n, what);
		delete[] static_cast<unsigned char *>(it.p);
		break;
	case K_RAW:
		check(it.p, it.n, what);
		::operator delete(it.p, it.n);
		break;
	case K_OBJ:
		check(it.p, it.n, what);
		delete static_cast<Obj40 *>(it.p);   // sized: operator delete(void *, size_t)
		break;
	case K_ALIGNED:
		check(it.p, it.n, what);
		delete static_cast<Al64 *>(it.p);    // sized, aligned
		break;
	case K_ALIGNED_ARRAY:
		check(it.p, it.n * sizeof(Al64), what);
		delete[] static_cast<Al64 *>(it.p);  // aligned
		break;
	case K_NOTHROW:
		check(it.p, it.n, what);
		delete[] static_cast<unsigned char *>(it.p);
		break;
	case K_VECTOR: {
		auto *v = static_cast<std::vector<uint64_t> *>(it.p);
		check_vector(*v, it.seed, what);
		delete v;
		break;
	}
	default: {
		auto *s = static_cast<std::string *>(it.p);
		check_string(*s, it.seed, what);
		delete s;
		break;
	}
	}
	it.p = nullptr;
}

// A container grows further, or shrinks and gives memory back.
static void item_resize(Rng &r, Item &it)
{
	size_t m = r.next() % 2 ? it.n + r.size() % 4096 : it.n / 2;
	if (it.kind == K_VECTOR) {
		auto *v = static_cast<std::vector<uint64_t> *>(it.p);
		check_vector(*v, it.seed, "vector before resizing");
		if (m < it.n) {
			v->resize(m);
			v->shrink_to_fit();
			check_vector(*v, it.seed, "vector shrink_to_fit lost elements");
		} else {
			grow_vector(*v, it.seed, m);
		}
	} else {
		auto *s = static_cast<std::string *>(it.p);
		check_string(*s, it.seed, "string before resizing");
		if (m < it.n) {
			s->resize(m);
			s->shrink_to_fit();
			check_string(*s, it.seed, "string shrink_to_fit lost chars");
		} else {
			grow_string(*s, it.seed, m);
		}
	}
	it.n = m;
}

static void item_step(Rng &r, Item &it)
{
	if (it.p && (it.kind == K_VECTOR || it.kind == K_STRING) && r.next() % 3 == 0) {
		item_resize(r, it);
		return;
	}
	if (it.p)
		item_free(it, "delete");
	item_new(r, it, (int)(r.next() % K_COUNT));
}

// ---- exact mode --------------------------------------------------------------------

struct Held {
	const void *p;
	size_t n;
};
static Held kept[64];
static int nkept;

static void keep(const void *p, size_t n)
{
	kept[nkept].p = p;
	kept[nkept].n = n;
	nkept++;
}

NOINLINE void leak_new()
{
	for (int i = 0; i < 8; i++) {
		Obj40 *o = new Obj40;
		fill(o, sizeof(*o));
		keep(o, sizeof(*o));
	}
}

NOINLINE void leak_new_array()
{
	for (int i = 0; i < 4; i++) {
		unsigned char *a = new unsigned char[100];
		fill(a, 100);
		keep(a, 100);
	}
}

NOINLINE void leak_new_nothrow()
{
	for (int i = 0; i < 6; i++) {
		Obj24 *o = new (std::nothrow) Obj24;
		check_new(o, sizeof(*o), 0, "nothrow new");
		fill(o, sizeof(*o));
		keep(o, sizeof(*o));
	}
}

NOINLINE void leak_new_aligned()
{
	for (int i = 0; i < 3; i++) {
		Al64 *a = new Al64;
		check_new(a, sizeof(*a), 64, "aligned new");
		fill(a, sizeof(*a));
		keep(a, sizeof(*a));
	}
	Al64 *arr = new Al64[2];
	check_new(arr, 2 * sizeof(Al64), 64, "aligned new[]");
	fill(arr, 2 * sizeof(Al64));
	keep(arr, 2 * sizeof(Al64));
}

// Every kind, a few hundred items live at a time, all freed again.
NOINLINE void exact_churn()
{
	static Item items[320];
	Rng r{ 0x9e3779b97f4a7c15ULL };
	for (int i = 0; i < 320; i++)
		item_new(r, items[i], i % K_COUNT);   // every kind, 40 of each
	for (int i = 0; i < 320; i++)
		if (items[i].kind == K_VECTOR || items[i].kind == K_STRING)
			item_resize(r, items[i]);
	for (int i = 0; i < 320; i++)
		item_free(items[(i * 7) % 320], "delete");   // 7 and 320 are coprime
	// Containers of containers.
	std::vector<std::string> vs;
	for (int i = 0; i < 300; i++)
		vs.push_back(std::string(20 + i % 50, (char)('a' + i % 26)));
	for (int i = 0; i < 300; i++)
		if (vs[i] != std::string(20 + i % 50, (char)('a' + i % 26)))
			fail("vector<string> growth", vs.data(), vs.size(), "a string changed");
}

static int run_exact()
{
	exact_churn();
	leak_new();
	leak_new_array();
	leak_new_nothrow();
	leak_new_aligned();
	exact_churn();
	size_t bytes = 0;
	for (int i = 0; i < nkept; i++) {
		check(kept[i].p, kept[i].n, "held at exit");
		bytes += kept[i].n;
	}
	std::printf("alloc_check_cxx: exact: %zu bytes in %d objects held by 4 leak functions\n", bytes, nkept);
	return 0;
}

// ---- run mode ------------------------------------------------------------------------

#define RING 256
#define SLOW 64
#define LEAK_MAX 8192

static std::atomic<bool> stop{ false };
static Leak *leaks[LEAK_MAX];
static long nleaks;

struct Worker {
	Rng r;
	unsigned long ops;
	Item ring[RING];
	Item slow[SLOW];
};

NOINLINE void churn_step(Worker *w)
{
	item_step(w->r, w->ring[w->r.next() % RING]);
	if (++w->ops % 128 == 0)
		item_step(w->r, w->slow[w->r.next() % SLOW]);
}

static void nap_us(long us)
{
	struct timespec ts = { 0, us * 1000 };
	nanosleep(&ts, nullptr);
}

static void churner(Worker *w)
{
	while (!stop.load()) {
		for (int i = 0; i < 64; i++)
			churn_step(w);
		nap_us(200);
	}
	for (auto &it : w->ring)
		if (it.p)
			item_free(it, "delete at the end");
	for (auto &it : w->slow)
		if (it.p)
			item_free(it, "delete at the end");
}

static double now_s()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

NOINLINE void leak_fn()
{
	Leak *l = new Leak;
	fill(l, sizeof(*l));
	leaks[nleaks] = l;
	nleaks++;
}

static void leaker(double t0)
{
	while (!stop.load()) {
		long due = (long)((now_s() - t0) * 100);
		while (nleaks < due && nleaks < LEAK_MAX)
			leak_fn();
		nap_us(2000);
	}
}

static int run_churn(double limit, const char *stop_file)
{
	static Worker w[3];
	double t0 = now_s();
	std::thread lt(leaker, t0);
	std::thread t[3];
	for (int i = 0; i < 3; i++) {
		w[i].r.s = 0x2545f4914f6cdd1dULL * (uint64_t)(i + 1);
		t[i] = std::thread(churner, &w[i]);
	}
	while (now_s() - t0 < limit && !(stop_file && access(stop_file, F_OK) == 0))
		nap_us(5000);
	stop.store(true);
	lt.join();
	unsigned long ops = 0;
	for (int i = 0; i < 3; i++) {
		t[i].join();
		ops += w[i].ops;
	}
	for (long i = 0; i < nleaks; i++)
		check(leaks[i], sizeof(Leak), "leaked object at exit");
	std::printf("alloc_check_cxx: run: %lu churn steps, %ld objects of %zu B leaked\n", ops, nleaks,
		    sizeof(Leak));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (std::strcmp(argv[1], "exact") && std::strcmp(argv[1], "run"))) {
		std::fprintf(stderr, "usage: alloc_check_cxx exact | run [SECONDS [STOPFILE]]\n");
		return 2;
	}
	std::printf("%d\n", (int)getpid());
	std::fflush(stdout);
	int rc = !std::strcmp(argv[1], "exact") ? run_exact()
						 : run_churn(argc > 2 ? std::atof(argv[2]) : 10, argc > 3 ? argv[3] : nullptr);
	if (rc)
		return rc;
	std::printf("alloc_check_cxx: ok\n");
	return 0;
}
