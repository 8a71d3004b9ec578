/* strix.c - string -> id index over an owner's own strings. */
#include "core/strix.h"

#include <stdlib.h>
#include <string.h>

uint64_t strix_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static int strix_rehash(strix *x, size_t slots)
{
	uint32_t *ns = calloc(slots, sizeof(*ns));
	if (!ns)
		return -1;
	for (size_t i = 0; x->slot && i <= x->mask; i++) {
		if (!x->slot[i])
			continue;
		const char *s = x->name(x->owner, x->slot[i] - 1);
		size_t h = (size_t)strix_hash(s, strlen(s)) & (slots - 1);
		while (ns[h])
			h = (h + 1) & (slots - 1);
		ns[h] = x->slot[i];
	}
	free(x->slot);
	x->slot = ns;
	x->mask = slots - 1;
	return 0;
}

int strix_init(strix *x, size_t expect, strix_name_fn name, const void *owner)
{
	memset(x, 0, sizeof(*x));
	x->name = name;
	x->owner = owner;
	size_t slots = 256;
	while (slots < expect * 2 && slots < ((size_t)1 << 40))
		slots *= 2;
	return strix_rehash(x, slots);
}

uint32_t strix_find(const strix *x, const char *s, size_t n, size_t *at)
{
	n = strnlen(s, n);
	size_t h = (size_t)strix_hash(s, n) & x->mask;
	while (x->slot[h]) {
		const char *c = x->name(x->owner, x->slot[h] - 1);
		if (!strncmp(c, s, n) && c[n] == 0)
			return x->slot[h] - 1;
		h = (h + 1) & x->mask;
	}
	*at = h;
	return STRIX_NONE;
}

int strix_add(strix *x, size_t at, uint32_t id)
{
	x->slot[at] = id + 1;
	if (++x->used * 2 > x->mask)
		return strix_rehash(x, (x->mask + 1) * 2);
	return 0;
}

void strix_free(strix *x)
{
	free(x->slot);
	memset(x, 0, sizeof(*x));
}
