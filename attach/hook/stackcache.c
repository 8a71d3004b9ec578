/* stackcache.c - per-thread cache of whole stacks and their ids, so that a
 * call site allocating again from the same place costs a few loads instead
 * of an unwind and a hash (the idea of bytehound's shadow stack, without
 * patching return addresses).
 *
 * Key: the return address into the caller and the caller's stack pointer at
 * the call (the hooked function's CFA).  An entry also keeps the address of
 * the stack slot each return address was found in; a hit requires every one
 * of those slots to still hold the same return address, so a caller that
 * returned and was called again from elsewhere misses.  Only the thread's
 * own stack is cached (the main stack, or the pthread stack below the
 * thread descriptor), found once per thread in /proc/self/maps with plain
 * syscalls, so every slot read lies in memory that stays mapped while the
 * thread lives.  The cache is mmap'd per thread and unmapped at its exit. */
#include "attach/hook/hook.h"
#include "core/hash.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define SC_ENTRIES 64           /* direct-mapped, a power of two */

extern void *__libc_stack_end;

typedef struct sc_entry {
	uint64_t cfa;           /* key; 0 marks an empty entry */
	uint64_t pc0;           /* key: return address into the caller */
	uint32_t id;            /* stack id in the segment */
	uint32_t depth;         /* frames cached */
	/* uint64_t pc[max], the return addresses, and slot[max], the stack
	 * slots they were found in, follow: a hit reads only its own depth's
	 * lines, and the check's loads stream through two arrays */
} sc_entry;

struct scache {
	uint64_t lo, hi;        /* the thread's own stack; lo == hi: none */
	size_t entry_size;
	uint32_t max;
	uint32_t pad;
	char entries[];
};

static int sc_max_depth;
static uint64_t main_stack_limit;

void scache_init(int max_depth)
{
	sc_max_depth = max_depth;
	struct rlimit rl;
	uint64_t lim = 8u << 20;
	if (!getrlimit(RLIMIT_STACK, &rl) && rl.rlim_cur != RLIM_INFINITY)
		lim = rl.rlim_cur;
	main_stack_limit = lim < (1u << 30) ? lim : (1u << 30);
}

static inline sc_entry *entry_at(struct scache *c, uint64_t key)
{
	return (sc_entry *)(c->entries + ((hash_mix64(key) >> 40) & (SC_ENTRIES - 1)) * c->entry_size);
}

static inline uint64_t *entry_pcs(sc_entry *e)
{
	return (uint64_t *)(e + 1);
}

static inline uint64_t *entry_slots(struct scache *c, sc_entry *e)
{
	return (uint64_t *)(e + 1) + c->max;
}

static uint64_t hexnum(const char **s)
{
	uint64_t v = 0;
	for (;; (*s)++) {
		char ch = **s;
		if (ch >= '0' && ch <= '9')
			v = v * 16 + (uint64_t)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			v = v * 16 + (uint64_t)(ch - 'a' + 10);
		else
			return v;
	}
}

/* The mapping holding addr, from /proc/self/maps (open/read only: safe in
 * a signal handler, no allocation).  0 and fills lo, hi; -1 if not found. */
static int map_of(uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[4096];
	size_t have = 0;
	int rc = -1;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = 0;
		char *line = buf, *nl;
		while ((nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
			const char *s = line;
			uint64_t a = hexnum(&s);
			uint64_t b = *s == '-' ? (s++, hexnum(&s)) : 0;
			if (addr >= a && addr < b) {
				*lo = a;
				*hi = b;
				rc = 0;
				goto out;
			}
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0;   /* an absurd line: drop it */
	}
out:
	close(fd);
	return rc;
}

/* The thread's own stack: [lo, hi) readable for as long as it lives. */
static void find_stack(struct scache *c, uint32_t tid)
{
	uint64_t lo, hi;
	c->lo = c->hi = 0;
	if (tid == (uint32_t)getpid()) {
		uint64_t top = (uint64_t)(uintptr_t)__libc_stack_end;
		if (!map_of(top, &lo, &hi) && hi > main_stack_limit) {
			c->lo = hi - main_stack_limit;
			c->hi = hi;
		}
		return;
	}
	/* glibc keeps the descriptor at the top of the thread's stack mapping. */
	uint64_t self = (uint64_t)(uintptr_t)pthread_self();
	if (!map_of(self, &lo, &hi)) {
		c->lo = lo;
		c->hi = self;
	}
}

struct scache *scache_new(uint32_t tid)
{
	size_t esz = sizeof(sc_entry) + (size_t)sc_max_depth * 2 * sizeof(uint64_t);
	struct scache *c = hook_map(sizeof(struct scache) + SC_ENTRIES * esz);
	if (!c)
		return NULL;
	c->entry_size = esz;
	c->max = (uint32_t)sc_max_depth;
	find_stack(c, tid);
	return c;
}

void scache_free(struct scache *c)
{
	if (c)
		hook_unmap(c, sizeof(struct scache) + SC_ENTRIES * c->entry_size);
}

void scache_clear(struct scache *c)
{
	if (!c)
		return;
	for (int i = 0; i < SC_ENTRIES; i++)
		((sc_entry *)(c->entries + (size_t)i * c->entry_size))->cfa = 0;
}

/* The word in the thread's stack at a; volatile: the program changes it. */
#define SLOT_AT(a) (*(const volatile uint64_t *)(uintptr_t)(a))

uint32_t scache_lookup(struct scache *c, uint64_t fa)
{
	uint64_t cfa = fa + 16;
	if (cfa <= c->lo || cfa >= c->hi)
		return UINT32_MAX;
	uint64_t pc0 = ((const uint64_t *)(uintptr_t)fa)[1];
	sc_entry *e = entry_at(c, cfa ^ pc0);
	if (e->cfa != cfa || e->pc0 != pc0)
		return UINT32_MAX;
	/* Frame 0 is the key; the others four a step: independent loads, one branch. */
	const uint64_t *pc = entry_pcs(e) + 1, *sl = entry_slots(c, e) + 1, *end = sl + e->depth - 1;
	uint64_t diff = 0;
	for (; end - sl >= 4; sl += 4, pc += 4)
		diff |= (SLOT_AT(sl[0]) ^ pc[0]) | (SLOT_AT(sl[1]) ^ pc[1]) | (SLOT_AT(sl[2]) ^ pc[2]) |
			(SLOT_AT(sl[3]) ^ pc[3]);
	for (; sl < end; sl++, pc++)
		diff |= SLOT_AT(sl[0]) ^ pc[0];
	return diff ? UINT32_MAX : e->id;
}

void scache_fill(struct scache *c, uint64_t fa, const uint64_t *pcs, const uint64_t *slots,
		 int depth, uint32_t id)
{
	uint64_t cfa = fa + 16;
	if (cfa <= c->lo || cfa >= c->hi || depth < 1 || (uint32_t)depth > c->max)
		return;
	const uint64_t *ret = (const uint64_t *)(uintptr_t)fa + 1;
	if (*ret != pcs[0])
		return;   /* the hook's entry frame is not the caller's callee */
	sc_entry *e = entry_at(c, cfa ^ pcs[0]);
	e->cfa = 0;
	uint64_t *pc = entry_pcs(e), *sl = entry_slots(c, e);
	pc[0] = pcs[0];
	sl[0] = fa + 8;
	if (slots) {   /* frame-pointer walk: the slots are known */
		for (int i = 1; i < depth; i++) {
			if (slots[i] <= sl[i - 1] || slots[i] + 8 > c->hi)
				return;
			pc[i] = pcs[i];
			sl[i] = slots[i];
		}
	} else {   /* libunwind: each return address is the first match above the last */
		const uint64_t *p = ret + 1, *end = (const uint64_t *)(uintptr_t)c->hi;
		for (int i = 1; i < depth; i++) {
			while (p < end && *p != pcs[i])
				p++;
			if (p >= end)
				return;
			pc[i] = pcs[i];
			sl[i] = (uint64_t)(uintptr_t)p++;
		}
	}
	e->pc0 = pcs[0];
	e->id = id;
	e->depth = (uint32_t)depth;
	e->cfa = cfa;
}
