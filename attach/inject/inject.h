/* inject.h - load libmprof.so into a process started without it (ptrace,
 * x86_64): stop every thread, make sure none is inside the allocator or the
 * dynamic loader, call dlopen on one of them, restore it, let go.  The
 * hook then redirects the program's calls itself (attach/hook/got.c). */
#ifndef MPROF_INJECT_H
#define MPROF_INJECT_H

#include "core/load.h"

#include <stdint.h>

/* What inject_load found or did. */
enum {
	INJECT_LOADED = 0,      /* the hook was loaded: recording from now on */
	INJECT_PRESENT = 1,     /* a segment already existed (preloaded or injected) */
	INJECT_REATTACHED = 2,  /* an injected, detached hook was switched back on */
};

/* Loads lib (made absolute here) into pid and waits for its segment;
 * alloc (if not NULL) gets the path of the module providing the program's
 * malloc.  INJECT_* (>= 0), or -1 with a one-line err: not permitted, no
 * such process, statically linked, allocator not identified (malloc and
 * free from different modules, no link map), no dlopen, already traced,
 * exited meanwhile, never a safe moment, dlopen failed (with the target's
 * dlerror).  Every refusal leaves the process untouched. */
int inject_load(int pid, const char *lib, char *alloc, size_t alloc_cap, prof_error *err);

/* Calls mprof_detach() in pid: its GOT slots back to libc, the segment
 * kept.  The slots restored (>= 0), or -1 with err. */
int inject_detach(int pid, prof_error *err);

/* Calls the hook's exported int name(void) in pid (ptrace, at a safe
 * point, as inject_detach does): 0 with its return value in *ret, or -1
 * with err. */
int inject_hook_call(int pid, const char *name, int64_t *ret, prof_error *err);

/* The segment's SEG_FLAG_* of pid, or -1 when it has none. */
int inject_seg_flags(int pid);
/* 1 when pid runs with a hook that was injected (SEG_FLAG_LATE) and still
 * records (not detached): what quitting a session on it asks about. */
int inject_still_records(int pid);

#endif
