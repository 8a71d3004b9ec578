/* diff.h - the difference of two profiles (NEW - BASE), matched across
 * runs despite ASLR (by module + offset, or by name; never raw address).
 * The result is an ordinary prof whose counters are deltas: agg_compute,
 * reports (TSV columns hold signed deltas), exports and flame graphs work
 * on it unchanged. */
#ifndef MPROF_DIFF_H
#define MPROF_DIFF_H

#include <stddef.h>

#include "core/load.h"

/* Returns a new profile = cur - base (caller frees with prof_free), with
 * cur's frames first (same indices and addresses), then frames found only
 * in base; NULL with err filled on ENOMEM. */
prof *diff_build(const prof *base, const prof *cur, prof_error *err);

/* The key frame f is matched by: "file+0xoff", "file(sym+0xoff)", a name
 * or "0xaddr". Returns buf or a string owned by p. */
const char *diff_frame_key(const prof *p, uint32_t f, char *buf, size_t len);

#endif
