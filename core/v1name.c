/* v1name.c - backtrace_symbols-style names taken apart and written; no
 * allocation and no stdio (the hook links the formatter). */
#include "core/v1name.h"

#include <string.h>

#include "core/load.h"
#include "core/textscan.h"

/* ---- parsing --------------------------------------------------------------- */

static int is_symch(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '.' || c == '$' || c == '@';
}

/* The hex digits at s: how many; *v gets their value, *fits 0 when that
 * needs more than 64 bits (leading zeros are fine). */
static size_t hex_read(const char *s, uint64_t *v, int *fits)
{
	size_t n = 0;
	uint64_t x = 0;
	*fits = 1;
	for (; hexval(s[n]) >= 0; n++) {
		if (x >> 60)
			*fits = 0;
		x = x << 4 | (uint64_t)hexval(s[n]);
	}
	*v = x;
	return n;
}

/* The name stopped early: accepted as cut when it may have been. */
static int cut_here(v1name *out, int may_cut)
{
	if (!may_cut)
		return -1;
	out->parts |= V1NAME_CUT;
	return 0;
}

/* sign at "+0x" or "-0x", n hex digits after it, their value off. */
static void off_set(v1name *out, const char *sign, size_t n, uint64_t off)
{
	out->sign = *sign;
	out->off_hex = sign + 3;
	out->off_len = n;
	out->off = *sign == '-' ? (uint64_t)0 - off : off;
	out->parts |= V1NAME_OFF;
}

/* What follows the ')': " [0xaddr]" to the end, nothing when bare_ok, or
 * a prefix of the address when may_cut. */
static int tail_parse(const char *t, int bare_ok, int may_cut, v1name *out)
{
	static const char lead[] = " [0x";
	if (!*t && bare_ok)
		return 0;
	for (size_t i = 0; i < 4; i++, t++)
		if (!*t)
			return cut_here(out, may_cut);
		else if (*t != lead[i])
			return -1;
	int fits;
	uint64_t addr;
	size_t n = hex_read(t, &addr, &fits);
	if (!t[n])
		return cut_here(out, may_cut);
	if (t[n] != ']' || t[n + 1] || !n || !fits)
		return -1;
	out->addr = addr;
	out->addr_hex = t;
	out->addr_len = n;
	out->parts |= V1NAME_ADDR;
	return 0;
}

/* glibc's "(sym+0xoff) [0xaddr]" after lp, or a prefix of it when the
 * name may have been cut. */
static int inner_strict(const char *lp, int may_cut, v1name *out)
{
	const char *q = lp + 1;
	while (is_symch(*q))
		q++;
	out->sym_len = (size_t)(q - out->sym);
	if (!*q && may_cut) {   /* cut inside the symbol: its end is unknown */
		out->sym_len = 0;
		return cut_here(out, 1);
	}
	if ((*q != '+' && *q != '-') || (q[1] && q[1] != '0') || (q[1] && q[2] && q[2] != 'x'))
		return -1;
	if (!q[1] || !q[2])
		return cut_here(out, may_cut);
	int fits;
	uint64_t off;
	size_t n = hex_read(q + 3, &off, &fits);
	const char *h = q + 3 + n;
	if (!*h)
		return cut_here(out, may_cut);
	if (*h != ')' || !n || !fits)
		return -1;
	off_set(out, q, n, off);
	out->head_len = (size_t)(h + 1 - out->path);
	return tail_parse(h + 1, 0, may_cut, out);
}

/* The '(' that opens the group closed at close (groups nest), or NULL. */
static const char *open_of(const char *name, const char *close)
{
	int depth = 0;
	for (const char *c = close; c >= name; c--)
		if (*c == ')')
			depth++;
		else if (*c == '(' && --depth == 0)
			return c;
	return NULL;
}

/* Anything between lp and close, an offset recognised at its end. */
static int inner_loose(const char *lp, const char *close, v1name *out)
{
	out->sym_len = (size_t)(close - out->sym);
	const char *h = close;
	while (h > lp + 1 && hexval(h[-1]) >= 0)
		h--;
	int fits;
	uint64_t off;
	if (h < close && h - lp >= 4 && h[-1] == 'x' && h[-2] == '0' && (h[-3] == '+' || h[-3] == '-') &&
	    hex_read(h, &off, &fits) == (size_t)(close - h) && fits) {
		out->sym_len = (size_t)(h - 3 - out->sym);
		off_set(out, h - 3, (size_t)(close - h), off);
	}
	out->head_len = (size_t)(close + 1 - out->path);
	return tail_parse(close + 1, 1, 1, out);
}

int v1name_parse(const char *name, enum v1name_mode mode, v1name *out)
{
	memset(out, 0, sizeof(*out));
	/* Loose: the group before the address, which may hold parentheses
	 * itself ("(anonymous namespace)::f(int)+0x10"). */
	const char *close = mode == V1NAME_LOOSE ? strrchr(name, ')') : NULL;
	const char *lp = mode == V1NAME_LOOSE ? (close ? open_of(name, close) : NULL) : strrchr(name, '(');
	if (!lp || lp == name)
		return -1;   /* "[0xaddr]" alone, or the path itself was cut */
	out->path = name;
	out->path_len = (size_t)(lp - name);
	out->sym = lp + 1;
	if (mode == V1NAME_LOOSE)
		return inner_loose(lp, close, out);
	return inner_strict(lp, strlen(name) >= PRO_V1_NAME_MAX, out);
}

/* ---- formatting ------------------------------------------------------------ */

/* Appends n bytes of s at *len, as far as cap - 1 allows; *len counts all. */
static void put(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
	if (n && *len + 1 < cap) {
		size_t room = cap - 1 - *len;
		memcpy(buf + *len, s, n < room ? n : room);
	}
	*len += n;
}

static void put_hex(char *buf, size_t cap, size_t *len, uint64_t v)
{
	char d[16];
	size_t n = 0;
	do {
		d[15 - n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	put(buf, cap, len, d + 16 - n, n);
}

size_t v1name_format(char *buf, size_t cap, const char *path, const char *sym, size_t sym_len, uint64_t off,
		     uint64_t addr)
{
	size_t len = 0;
	if (path) {
		put(buf, cap, &len, path, strlen(path));
		put(buf, cap, &len, "(", 1);
		put(buf, cap, &len, sym, sym_len);
		put(buf, cap, &len, "+0x", 3);
		put_hex(buf, cap, &len, off);
		put(buf, cap, &len, ") ", 2);
	}
	put(buf, cap, &len, "[0x", 3);
	put_hex(buf, cap, &len, addr);
	put(buf, cap, &len, "]", 1);
	if (cap)
		buf[len < cap ? len : cap - 1] = 0;
	return len;
}
