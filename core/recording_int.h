/* recording_int.h - the open recording's files, shared by its parts:
 * recording.c (parsing and opening), recording_seek.c (moving in time),
 * recording_life.c (pairing frees with allocations: leaks, lifetimes). */
#ifndef MPROF_RECORDING_INT_H
#define MPROF_RECORDING_INT_H

#include "core/recording.h"

typedef struct rec_chref {
	uint64_t off;              /* first event in the mapping */
	uint64_t first;            /* its position */
	uint32_t count;
} rec_chref;

typedef struct rec_ck {
	uint64_t ev, time;
	int64_t inuse;
	mp_counts *c;                /* n entries; owned */
	size_t n;
} rec_ck;

typedef struct rec_stref {
	uint32_t id, depth;
	uint64_t off;              /* the pcs in the mapping */
} rec_stref;

typedef struct rec_file {
	char path[4200];
	const uint8_t *map;
	size_t len;
	rec_file_header fh;
	uint64_t first_ev, nev, t0, t1;
	uint64_t t_end;            /* when the file was closed (END), 0 if it was not */
	rec_chref *ch;
	size_t nch, capch;
	rec_ck *ck;
	size_t nck, capck;
	rec_stref *st;
	size_t nst, capst;
	uint64_t *mods;            /* offsets of rec_module chunks */
	size_t nmods, capmods;
	rec_bucket *tl;
	int64_t tl_first;
	size_t ntl, captl;
	int64_t peak;
	uint64_t peak_ev, peak_time;
	rec_waitpt *waits;
	size_t nwaits, capwaits;
	uint64_t lost;
	int truncated;
	char err[4400];            /* non-empty: the file is unusable */
} rec_file;

#define PUSH(vec, cnt, cap, val) \
	(vec_grow((void **)&(vec), &(cap), (cnt) + 1, sizeof(*(vec))) ? -1 : ((vec)[(cnt)++] = (val), 0))

/* Adds event e (weighted by the sampling rate) to c and to *inuse. */
void rec_apply(mp_counts *c, const rec_event *e, uint64_t rate, int64_t *inuse);
/* The file holding position ev (the last that starts at or before it). */
size_t rec_file_of(const recording *r, uint64_t ev);

#endif
