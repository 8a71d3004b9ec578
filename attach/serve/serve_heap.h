/* serve_heap.h - what --serve's /debug/pprof/heap returns for one process
 * under the hook: its profile now, or its growth over a window, as Go's
 * net/http/pprof serves a heap profile. Reads segments and /proc only. */
#ifndef MPROF_SERVE_HEAP_H
#define MPROF_SERVE_HEAP_H

#include "attach/serve/serve_syms.h"
#include "core/load.h"
#include "symbols/sym.h"

/* Why a request fails: the HTTP status and one line for the client. */
typedef struct serve_err {
	int status;
	prof_error e;
} serve_err;

/* The current profile of pid (caller frees with prof_free), read from its
 * segment in dir; NULL with err: 404 when pid runs no hook (or is gone),
 * 403 when its segment is another user's, 500 when it cannot be read. */
prof *serve_heap_take(const char *dir, int pid, serve_err *err);

/* The growth from p0 to p1 (two takes of one process; caller frees): every
 * counter of p1 minus p0's, samples that did not move left out. */
prof *serve_heap_delta(const prof *p0, const prof *p1, serve_err *err);

/* p as gzipped pprof in a new memory file (caller closes the fd), its
 * frames symbolized (functions, inline chains, lines) against pid's
 * modules by syms' resolver for pid; dflt the default sample type
 * ("inuse_space" for heap, "alloc_space" for allocs). -1 with err (500). */
int serve_heap_pprof(const prof *p, int pid, serve_syms *syms, const char *dflt, serve_err *err);

/* p as Go's debug=1 heap text (caller frees *out with free()). 0, or -1
 * with err (500). */
int serve_heap_text(const prof *p, int pid, const sym_opts *so, char **out, size_t *len, serve_err *err);

#endif
