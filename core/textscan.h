/* textscan.h - a line cursor and number parsers for the text readers
 * (legacy heap profiles, jemalloc heap_v2, folded stacks, /proc maps).
 * Bounds-checked over a byte range that need not be NUL-terminated. */
#ifndef MPROF_TEXTSCAN_H
#define MPROF_TEXTSCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct tscan {
	const char *d;
	size_t len, off;
	unsigned long line;   /* 1-based number of the line last returned */
} tscan;

/* A span of one line: [s, e). */
typedef struct tspan {
	const char *s, *e;
} tspan;

static inline void tscan_init(tscan *t, const uint8_t *d, size_t len)
{
	t->d = (const char *)d;
	t->len = len;
	t->off = 0;
	t->line = 0;
}

/* The next line without its "\n" (and "\r"); 0 at the end. */
static inline int tscan_line(tscan *t, tspan *l)
{
	if (t->off >= t->len)
		return 0;
	const char *s = t->d + t->off;
	const char *nl = memchr(s, '\n', t->len - t->off);
	const char *e = nl ? nl : t->d + t->len;
	t->off = (size_t)(e - t->d) + (nl ? 1 : 0);
	t->line++;
	if (e > s && e[-1] == '\r')
		e--;
	l->s = s;
	l->e = e;
	return 1;
}

static inline void tspan_ws(tspan *l)
{
	while (l->s < l->e && (*l->s == ' ' || *l->s == '\t'))
		l->s++;
}

static inline int tspan_empty(tspan l)
{
	tspan_ws(&l);
	return l.s == l.e;
}

/* Consumes the literal lit (after optional blanks); 1 if it was there. */
static inline int tspan_lit(tspan *l, const char *lit)
{
	tspan_ws(l);
	size_t n = strlen(lit);
	if ((size_t)(l->e - l->s) < n || memcmp(l->s, lit, n))
		return 0;
	l->s += n;
	return 1;
}

static inline int tspan_starts(tspan l, const char *lit)
{
	size_t n = strlen(lit);
	return (size_t)(l.e - l.s) >= n && !memcmp(l.s, lit, n);
}

/* A decimal number (after optional blanks, optional '-' when neg is given);
 * 1 on success. Overflow fails. */
static inline int tspan_dec(tspan *l, uint64_t *v, int *neg)
{
	tspan_ws(l);
	if (neg) {
		*neg = 0;
		if (l->s < l->e && *l->s == '-') {
			*neg = 1;
			l->s++;
		}
	}
	const char *s = l->s;
	uint64_t x = 0;
	while (l->s < l->e && *l->s >= '0' && *l->s <= '9') {
		unsigned dgt = (unsigned)(*l->s - '0');
		if (x > (UINT64_MAX - dgt) / 10)
			return 0;
		x = x * 10 + dgt;
		l->s++;
	}
	*v = x;
	return l->s > s;
}

static inline int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex digits with an optional 0x prefix (after optional blanks). */
static inline int tspan_hex(tspan *l, uint64_t *v)
{
	tspan_ws(l);
	if (l->e - l->s >= 2 && l->s[0] == '0' && (l->s[1] == 'x' || l->s[1] == 'X'))
		l->s += 2;
	const char *s = l->s;
	uint64_t x = 0;
	int h;
	while (l->s < l->e && (h = hexval(*l->s)) >= 0) {
		if (x >> 60)
			return 0;
		x = x << 4 | (uint64_t)h;
		l->s++;
	}
	*v = x;
	return l->s > s;
}

/* A blank-separated word. */
static inline int tspan_word(tspan *l, tspan *w)
{
	tspan_ws(l);
	w->s = l->s;
	while (l->s < l->e && *l->s != ' ' && *l->s != '\t')
		l->s++;
	w->e = l->s;
	return w->e > w->s;
}

#endif
