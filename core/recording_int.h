/* recording_int.h - the open recording's files, shared by its parts:
 * recording.c (parsing and opening), recording_dir.c (finding the files),
 * recording_decode.c (decompressing and decoding events), recording_seek.c
 * (moving in time), recording_life.c (pairing frees with allocations:
 * leaks, lifetimes), recording_end.c (where and why it ends). */
#ifndef MPROF_RECORDING_INT_H
#define MPROF_RECORDING_INT_H

#include "core/recording.h"
#include "core/vec.h"

#include <sys/types.h>

/* An EVENTS chunk: its stream is at off in the mapping (zoff UINT64_MAX)
 * or in the content of the ZSTD chunk whose payload is at zoff. */
typedef struct rec_chref {
	uint64_t zoff, off;
	uint64_t first;            /* its first event's position */
	uint32_t count, len;
	uint32_t cont;             /* it continues the chunk before it (REC_EV_CONT): one run */
} rec_chref;

typedef struct rec_ck {
	uint64_t ev, time;
	int64_t inuse;
	mp_counts *c;                /* n entries; owned */
	size_t n;
} rec_ck;

typedef struct rec_stref {
	uint32_t id, depth;
	uint64_t off;              /* the pcs: index in the file's pcs */
} rec_stref;

typedef struct rec_file {
	char path[4200];
	const uint8_t *map;
	size_t len;
	rec_file_header fh;
	uint64_t first_ev, nev, t0, t1;
	uint64_t t_end;            /* when the file was closed (END), 0 if it was not */
	int closed;                /* it has an END chunk: closed in order */
	uint32_t end_how;          /* what the END says (enum rec_end_how) */
	rec_chref *ch;
	size_t nch, capch;
	rec_ck *ck;
	size_t nck, capck;
	rec_stref *st;
	size_t nst, capst;
	uint64_t *pcs;             /* every stack's frames, leaf first */
	size_t npcs, cappcs;
	rec_module *mods;
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

/* A file of a recording directory (recording_dir.c). */
typedef struct rec_name {
	int pid;
	unsigned seq;
	off_t size;
} rec_name;
/* The recording files of dir, or dir itself when it is one (*single):
 * sorted by pid, then number (caller frees). -1 with err when there is
 * none. */
int rec_find_files(const char *dir, rec_name **names, size_t *nn, int *single, prof_error *err);

#define PUSH(vec, cnt, cap, val) \
	(vec_grow((void **)&(vec), &(cap), (cnt) + 1, sizeof(*(vec))) ? -1 : ((vec)[(cnt)++] = (val), 0))

/* The running state of an EVENTS stream: zero at a run's start, carried
 * from chunk to chunk of a run (REC_EV_CONT). */
typedef struct rec_dstate {
	uint64_t tus, age;
	int64_t stack;
	uint32_t tid;
} rec_dstate;

/* Decodes a recording's last-used chunks; owned by whoever walks events. */
typedef struct rec_cursor {
	void *dctx;                /* ZSTD_DCtx */
	const rec_file *zf;        /* the run in raw: zf's ZSTD chunk at zoff */
	uint64_t zoff;
	uint8_t *raw;
	size_t rawcap, rawlen;
	const rec_file *cf;        /* the run in ev: cf's chunks run .. c, decoded */
	size_t run, c;
	size_t nev;                /* events of the run in ev */
	rec_dstate st;             /* the stream's state after chunk c */
	rec_event *ev;
	size_t evcap;
} rec_cursor;

/* Decompresses a ZSTD chunk's payload p (len bytes) into *raw (grown,
 * caller frees); *dctx made on first use. cut: the chunk runs past the
 * end of the file (its frame never ended): as much as its whole blocks
 * hold. -1 with why. */
int rec_unzstd(void **dctx, const uint8_t *p, size_t len, int cut, uint8_t **raw, size_t *cap, size_t *rawlen,
	       char *why, size_t whylen);
/* Decodes count events of an EVENTS stream (len bytes; the first at
 * position first) of a file of the given version into out, from state *st
 * (left as the stream ends); out[-prior .. -1] are the run's events before
 * it, which a free may refer back to. -1 with why and *at the stream
 * offset. */
int rec_decode_events(const uint8_t *p, size_t len, uint32_t count, uint64_t first, uint32_t version, rec_event *out,
		      size_t prior, rec_dstate *st, char *why, size_t whylen, size_t *at);
/* The decoded events of f's chunk c (valid until the next call), NULL if
 * they cannot be read. */
const rec_event *rec_cursor_chunk(rec_cursor *k, const rec_file *f, size_t c);
void rec_cursor_free(rec_cursor *k);

/* Adds event e (weighted by the sampling rate) to c and to *inuse. */
void rec_apply(mp_counts *c, const rec_event *e, uint64_t pos, uint64_t rate, int dither, int64_t *inuse);
/* The file holding position ev (the last that starts at or before it). */
size_t rec_file_of(const recording *r, uint64_t ev);

#endif
