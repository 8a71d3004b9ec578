/* diff.h - the difference of two profiles (NEW - BASE), matched across
 * runs despite ASLR (by module + offset, or by name; never raw address)
 * and across builds (by what a frame means, given by a diff_keyer).
 * The result is an ordinary prof whose counters are deltas: agg_compute,
 * reports (TSV columns hold signed deltas), exports and flame graphs work
 * on it unchanged. */
#ifndef MPROF_DIFF_H
#define MPROF_DIFF_H

#include <stddef.h>

#include "core/load.h"

/* Keys by meaning, for frames of modules built differently in the two
 * profiles (another build-id, or a file of another name): levels are
 * tried in order (0: symbol + offset, 1: source lines); a BASE frame that
 * matches nothing keeps BASE's module (added to the result, moved up when
 * it overlaps NEW's) or, with none, becomes frames named by its functions.
 * symbols/ fills one (sym_diff_build). */
#define DIFF_KEY_LEVELS 2
#define DIFF_LABELS_MAX 16
typedef struct diff_keyer {
	/* The level's key of frame f of BASE (side 0) or NEW (side 1), or
	 * NULL when not known at that level. The result may be buf. */
	const char *(*key)(void *ctx, int side, uint32_t f, int level, char *buf, size_t len);
	/* The functions of BASE frame f, innermost first (at most max; the
	 * strings live as long as ctx); 0 when none is known. */
	size_t (*labels)(void *ctx, uint32_t f, const char **out, size_t max);
	/* BASE frame f of a module of the same build that NEW has but whose
	 * table neither profile holds (names only): its address in NEW's
	 * address space; 0, or -1 when unknown. */
	int (*place)(void *ctx, uint32_t f, uint64_t *addr);
	/* 1 when frame f of the side resolves here (its binary is read):
	 * a matched pair is read through BASE's binary when only it can be. */
	int (*readable)(void *ctx, int side, uint32_t f);
	void *ctx;
} diff_keyer;

/* Frames of a diff at or above this address have no address: they are
 * BASE frames named by their functions (nothing in NEW matched them). */
#define DIFF_NAMED_ADDR 0xfff0000000000000ULL

/* What the diff found about the two builds. */
typedef struct diff_stats {
	uint32_t rebuilt;        /* modules of BASE whose build is not in NEW */
	uint64_t unmatched;      /* BASE frames of those that matched nothing */
	char what[320];          /* the first difference, for the user; "" when none */
} diff_stats;

/* Returns a new profile = cur - base (caller frees with prof_free), with
 * cur's frames first (same indices and addresses), then frames found only
 * in base; NULL with err filled on ENOMEM. keyer and st may be NULL (then
 * frames of rebuilt modules are matched by module + offset, as within a
 * build). */
prof *diff_build_by(const prof *base, const prof *cur, const diff_keyer *keyer, diff_stats *st, prof_error *err);
static inline prof *diff_build(const prof *base, const prof *cur, prof_error *err)
{
	return diff_build_by(base, cur, NULL, NULL, err);
}

/* One line for the user on st (no newline): the builds differ, what
 * matched nothing. Returns 0 when there is nothing to say. */
int diff_stats_say(const diff_stats *st, char *buf, size_t len);

/* Per module of p, 1 when other holds no module of its file name and
 * build (build-ids differ, or no such file name); st (may be NULL) gets
 * the count and the first difference when p is BASE. Caller frees. NULL
 * on ENOMEM. */
uint8_t *diff_modules_rebuilt(const prof *p, const prof *other, diff_stats *st);

/* The key frame f is matched by: "file+0xoff", "file(sym+0xoff)", a name
 * or "0xaddr". Returns buf or a string owned by p. */
const char *diff_frame_key(const prof *p, uint32_t f, char *buf, size_t len);

#endif
