/* allocfam.h - the allocator families the hook patches at their entry points
 * (jemalloc's, tcmalloc's, mimalloc's API, an executable's own malloc,
 * MPROF_FUNCS): the hook's entry patcher and mprof-tui's injection (its
 * safe point) read them from here; allocfam.c. */
#ifndef MPROF_ALLOCFAM_H
#define MPROF_ALLOCFAM_H

#include <stddef.h>

#include "attach/shared/segment.h"

/* allocfam.c: a member's role and its arguments (0-based): the size (a0)
 * of an allocation; the pointer (a0) of a free; pointer and size (a0, a1)
 * of a resize; count and size of a calloc; out and size of posix_memalign. */
enum { AF_ALLOC = 1, AF_CALLOC, AF_FREE, AF_REALLOC, AF_RALLOCX, AF_XALLOCX, AF_PMEMALIGN };
typedef struct af_member {
	const char *name;   /* without the prefix */
	unsigned char role, a0, a1;
} af_member;
/* kind's members (SEG_AK_JEMALLOC, _TCMALLOC, _MIMALLOC, _OWN), NULL-ended. */
const af_member *af_members(int kind);
/* The index in af_members(kind) of the symbol name (prefix: jemalloc's), or -1. */
int af_member_of(int kind, const char *prefix, const char *name);
/* 1 when the symbol name is part of the allocator's code (the injection's
 * safe point counts all of it as allocator code). */
int af_code_of(int kind, const char *prefix, const char *name);
/* A module's symbol names, one af_note each, then af_finish: the
 * allocators it holds that interposition does not reach (has says whether
 * the module defines a function name). */
#define AF_MAX_PREFIX 4
enum { AF_HAS_TC_MALLOC = 1, AF_HAS_TC_FREE = 2, AF_HAS_MI_MALLOC = 4, AF_HAS_MI_FREE = 8,
       AF_HAS_MALLOC = 16, AF_HAS_FREE = 32 };
typedef struct af_scan {
	char je[AF_MAX_PREFIX][24];   /* prefixes of the *mallctl names */
	int nje;
	unsigned has;                 /* AF_HAS_* */
} af_scan;
typedef struct af_found {
	int kind;
	char prefix[24];
} af_found;
void af_note(af_scan *sc, const char *name);
int af_finish(const af_scan *sc, int is_exe, int (*has)(void *arg, const char *name), void *arg,
	      af_found *out, int max);
/* MPROF_FUNCS: "NAME:ROLE[:N[:M]],..." (ROLE malloc, calloc, free or
 * realloc; N, M the arguments, from 1).  The count, or -1 with why. */
#define AF_USER_MAX 32
typedef struct af_user {
	char name[64];
	af_member m;
} af_user;
int af_user_parse(const char *spec, af_user *out, int max, char *why, size_t cap);

#endif
