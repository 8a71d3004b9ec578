/* strix.h - an index from strings to the ids of a table that holds them.
 * The owner keeps the strings (a node map, a profile's frames, a string
 * table); the index keeps only id + 1 per slot and asks the owner for an
 * id's string when it compares or rehashes. Open addressing, at most half
 * full. */
#ifndef MPROF_CORE_STRIX_H
#define MPROF_CORE_STRIX_H

#include <stddef.h>
#include <stdint.h>

#define STRIX_NONE UINT32_MAX

/* The string of id, NUL-terminated; it must not change while indexed. */
typedef const char *(*strix_name_fn)(const void *owner, uint32_t id);

typedef struct strix {
	uint32_t *slot;        /* id + 1, 0 = empty; owned */
	size_t mask, used;
	strix_name_fn name;
	const void *owner;     /* must not move while the index is in use */
} strix;

/* Sized for about expect strings (0: a small start). -1 when out of memory. */
int strix_init(strix *x, size_t expect, strix_name_fn name, const void *owner);
/* The id of the n bytes at s (a NUL among them ends the string), or
 * STRIX_NONE; *at is then where strix_add puts the new id. */
uint32_t strix_find(const strix *x, const char *s, size_t n, size_t *at);
/* Records id (whose string the owner now holds) at the slot strix_find
 * gave; nothing may be added in between. -1 when out of memory. */
int strix_add(strix *x, size_t at, uint32_t id);
void strix_free(strix *x);

/* FNV-1a over n bytes. */
uint64_t strix_hash(const char *s, size_t n);

#endif
