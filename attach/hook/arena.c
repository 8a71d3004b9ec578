/* arena.c - the bootstrap arena: allocations made before the next
 * allocator is known (dlsym allocates while it resolves the hook's own
 * entry points).  Never freed; free and realloc recognise its blocks. */
#include "attach/hook/hook.h"

#include <string.h>

char hook_arena[HOOK_ARENA_SIZE] __attribute__((aligned(64)));
static size_t arena_used;

/* Each block is preceded by its size (for realloc and malloc_usable_size). */
void *hook_arena_alloc(size_t n, size_t align)
{
	if (align < 16)
		align = 16;
	for (;;) {
		size_t old = __atomic_load_n(&arena_used, __ATOMIC_RELAXED);
		size_t start = (old + 16 + align - 1) & ~(align - 1);
		if (start + n > sizeof(hook_arena) || start + n < start)
			return NULL;
		if (__atomic_compare_exchange_n(&arena_used, &old, start + n, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			memcpy(hook_arena + start - sizeof(size_t), &n, sizeof(size_t));
			return hook_arena + start;
		}
	}
}

size_t hook_arena_size(const void *p)
{
	size_t n;
	memcpy(&n, (const char *)p - sizeof(size_t), sizeof(n));
	return n;
}
