/* agg.h - flat and cum per node, for inuse/alloc x bytes/objects at once.
 * A node map says which node(s) each frame stands for at the chosen
 * granularity (address, function, line, module; inline frames expand one
 * frame into several nodes). No I/O. */
#ifndef MPROF_AGG_H
#define MPROF_AGG_H

#include <stdint.h>

#include "core/prof.h"

enum agg_metric {
	AGG_INUSE_BYTES,
	AGG_INUSE_OBJS,
	AGG_ALLOC_BYTES,
	AGG_ALLOC_OBJS,
	AGG_NMETRIC
};

static inline enum agg_metric agg_metric_of(int alloc, int objects)
{
	return (enum agg_metric)((alloc ? 2 : 0) + (objects ? 1 : 0));
}

/* Node flags: in which mode the node shows up, and whether it is a leaf. */
enum {
	AGG_SEEN_INUSE = 1,   /* in a sample with in-use bytes or objects */
	AGG_SEEN_ALLOC = 2,   /* in any sample */
	AGG_LEAF_INUSE = 4,   /* leaf of such a sample */
	AGG_LEAF_ALLOC = 8,
	AGG_NODE_INLINE = 16, /* an inlined function (set by the node map) */
};

/* Frame -> nodes. For frame f, nodes[off[f] .. off[f+1]) innermost first.
 * Names are owned by the map (a string pool). */
typedef struct prof_nodemap {
	uint32_t nframes, nnodes;
	uint32_t *off;         /* nframes + 1 entries */
	uint32_t *nodes;
	uint32_t *name;        /* per node: offset into strs */
	uint8_t *flags;        /* per node: AGG_NODE_* set by the builder */
	char *strs;
	size_t strs_len, strs_cap;
	size_t nodes_len, nodes_cap, nnodes_cap;
	uint32_t cur;          /* builder: the frame being filled */
	int identity;          /* node == frame for every frame (address granularity) */
	int names_borrowed;    /* name, flags and strs are another map's (filter_hide_map) */
	void *index;           /* builder: name -> node hash, owned */
} prof_nodemap;

/* One node per frame, named as the frame is. Returns 0 or -1 (ENOMEM).
 * The map is freed with nodemap_free. */
int nodemap_by_address(prof_nodemap *m, const prof *p);
/* Builder for other granularities (symbols/): begin, then for each frame in
 * order nodemap_push_node() one or more times and nodemap_end_frame(). */
int nodemap_begin(prof_nodemap *m, uint32_t nframes);
/* Finds or creates the node called name (keyed by name); returns its id
 * or UINT32_MAX on ENOMEM. */
uint32_t nodemap_node(prof_nodemap *m, const char *name, uint8_t flags);
int nodemap_push(prof_nodemap *m, uint32_t node);
void nodemap_end_frame(prof_nodemap *m);
void nodemap_free(prof_nodemap *m);
/* Does stack s of p pass through a node for which hit(arg, node) is true? */
int nodemap_stack_any(const prof_nodemap *m, const prof *p, uint32_t s, int (*hit)(const void *arg, uint32_t node),
		      const void *arg);
static inline const char *nodemap_name(const prof_nodemap *m, uint32_t node)
{
	return m->strs + m->name[node];
}

typedef struct agg_vals {
	int64_t flat[AGG_NMETRIC];
	int64_t cum[AGG_NMETRIC];
} agg_vals;

typedef struct agg {
	uint32_t nnodes;
	agg_vals *v;           /* per node */
	uint8_t *flags;        /* per node, AGG_SEEN_* / AGG_LEAF_* */
	int64_t total[AGG_NMETRIC];   /* sum over samples (the leaf values) */
	uint64_t nsamples[2];         /* samples counted: [0] inuse, [1] alloc */
} agg;

/* Fills a with the totals of p at m's granularity, in time linear in the
 * number of frames of all stacks. Returns 0 or -1 (ENOMEM). Free with
 * agg_free. Optional weight per sample: NULL, or a sign/multiplier (diffs). */
int agg_compute(agg *a, const prof *p, const prof_nodemap *m);
/* The same as agg_compute(a, p, hm) where hm is the map base was computed
 * over with some nodes removed and the others' ids kept (filter_hide_map),
 * in time linear in the number of samples: a kept node is in the same
 * stacks as before, so only flat (the first kept node from the leaf)
 * changes. 0 or -1 (ENOMEM). */
int agg_hide(agg *a, const agg *base, const prof *p, const prof_nodemap *hm);
void agg_free(agg *a);

/* Adds with wrap-around instead of signed overflow: hostile 64-bit
 * counters may sum past INT64_MAX; real ones never do. */
static inline void agg_add(int64_t *dst, int64_t v)
{
	*dst = (int64_t)((uint64_t)*dst + (uint64_t)v);
}

/* The size of a value or of a change (a diff's shrink as its growth),
 * INT64_MIN's included. */
static inline uint64_t agg_magnitude(int64_t x)
{
	return x < 0 ? -(uint64_t)x : (uint64_t)x;
}

/* The order of two values, biggest first (-1: x goes first); by_change (a
 * diff): the bigger change first, shrink or growth, then growth first. */
static inline int agg_order(int64_t x, int64_t y, int by_change)
{
	uint64_t mx = agg_magnitude(x), my = agg_magnitude(y);
	if (by_change && mx != my)
		return mx < my ? 1 : -1;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* The in-use and alloc values of one sample, as the reference reads them. */
static inline void agg_sample_vals(const prof_sample *s, int64_t v[AGG_NMETRIC])
{
	v[AGG_INUSE_BYTES] = (int64_t)(s->c.alloc_bytes - s->c.free_bytes);
	v[AGG_INUSE_OBJS] = (int64_t)(s->c.alloc_objs - s->c.free_objs);
	v[AGG_ALLOC_BYTES] = (int64_t)s->c.alloc_bytes;
	v[AGG_ALLOC_OBJS] = (int64_t)s->c.alloc_objs;
}

#endif
