/* folded.c - folded ("collapsed") stacks, flamegraph.pl's input: one line
 * per stack, root first, frames separated by ';', then blanks and a count.
 * Dialects accepted: heaptrack's ("f (file.c);g (file.c); 123", a stray ';'
 * before the count, names with spaces) and pprof/jeprof --collapsed
 * ("_start<0000000000010d0>;main<...>;leak 123", repeated stacks).
 * Frames have no address: each distinct name gets a synthetic one (its
 * index + 1). The count is one metric of unknown meaning; we read it as
 * bytes, allocated and still in use (objects 0). */
#include "core/foreign.h"

#include <stdlib.h>
#include <string.h>

#include "core/strix.h"
#include "core/textscan.h"

static const char *frame_name(const void *p, uint32_t f)
{
	const prof *pp = p;
	return pp->strs.v + pp->frames.v[f].name;
}

/* The frame called s[0..n), made on first sight. */
static uint32_t frame_of(prof *p, strix *t, const char *s, size_t n)
{
	/* Names are C strings in the pool: a NUL byte ends one here too, so
	 * lookups and rehashing see the same bytes. */
	n = strnlen(s, n);
	size_t at;
	uint32_t f = strix_find(t, s, n, &at);
	if (f != STRIX_NONE)
		return f;
	f = prof_frame_intern(p, p->frames.len + 1);
	uint32_t ns = f == PROF_NONE ? PROF_NONE : prof_str(p, s, n);
	if (ns == PROF_NONE)
		return PROF_NONE;
	p->frames.v[f].name = ns;
	return strix_add(t, at, f) ? PROF_NONE : f;
}

/* Splits "stack count": the count is the last blank-separated word. */
static int split_line(tspan l, tspan *stack, uint64_t *w)
{
	while (l.e > l.s && (l.e[-1] == ' ' || l.e[-1] == '\t'))
		l.e--;
	const char *c = l.e;
	while (c > l.s && c[-1] >= '0' && c[-1] <= '9')
		c--;
	if (c == l.e || c == l.s || (c[-1] != ' ' && c[-1] != '\t'))
		return 0;
	tspan num = { c, l.e };
	if (!tspan_dec(&num, w, NULL))
		return 0;
	stack->s = l.s;
	stack->e = c;
	/* heaptrack leaves "; " before the count. */
	while (stack->e > stack->s && (stack->e[-1] == ' ' || stack->e[-1] == '\t' || stack->e[-1] == ';'))
		stack->e--;
	return stack->e > stack->s;
}

int folded_sniff(const uint8_t *d, size_t len)
{
	tscan t;
	tspan l, st;
	uint64_t w;
	size_t n = len < 4096 ? len : 4096;
	if (memchr(d, 0, n))
		return 0;
	tscan_init(&t, d, len);
	/* The first line decides, so that a bad later line gets its own message. */
	while (tscan_line(&t, &l)) {
		if (tspan_empty(l))
			continue;
		for (const char *c = l.s; c < l.e; c++)
			if ((unsigned char)*c < 0x20 && *c != '\t')
				return 0;   /* text only */
		return split_line(l, &st, &w);
	}
	return 0;
}

int folded_read(prof *p, const prof_src *src, prof_error *err)
{
	tscan t;
	tspan l, st;
	uint64_t w;
	strix tab;
	uint32_t *tmp = NULL;
	size_t cap = 0;
	int rc = -1;

	p->meta.format = PROF_FMT_FOLDED;
	tscan_init(&t, src->data, src->len);
	if (strix_init(&tab, 0, frame_name, p))
		goto nomem;
	while (tscan_line(&t, &l)) {
		if (tspan_empty(l))
			continue;
		if (!split_line(l, &st, &w)) {
			prof_errorf(err, "%s: line %lu: expected 'frame;frame;... COUNT'", src->name, t.line);
			goto out;
		}
		size_t n = 0;
		const char *s = st.s;
		while (s <= st.e) {
			const char *e = memchr(s, ';', (size_t)(st.e - s));
			if (!e)
				e = st.e;
			if (e > s) {
				if (vec_grow((void **)&tmp, &cap, n + 1, sizeof(*tmp)))
					goto nomem;
				if ((tmp[n++] = frame_of(p, &tab, s, (size_t)(e - s))) == PROF_NONE)
					goto nomem;
			}
			s = e + 1;
		}
		uint32_t *dst = prof_stack_begin(p, (uint32_t)n);
		if (!dst)
			goto nomem;
		for (size_t i = 0; i < n; i++)   /* the model is leaf first */
			dst[i] = tmp[n - 1 - i];
		uint32_t sid = prof_stack_commit(p, (uint32_t)n);
		if (sid == PROF_NONE || prof_sample_add(p, sid, 0, 0, w, 0, 0))
			goto nomem;
	}
	rc = 0;
	goto out;
nomem:
	prof_errorf(err, "%s: line %lu: out of memory", src->name, t.line);
out:
	strix_free(&tab);
	free(tmp);
	return rc;
}
