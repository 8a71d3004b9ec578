/* names.c - short and fitted row names. */
#include "core/names.h"
#include "core/v1name.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *base_of(const char *path, const char *end)
{
	const char *b = path;
	for (const char *c = path; c < end; c++)
		if (*c == '/')
			b = c + 1;
	return b;
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Length of the hex digits at s. */
static size_t hex_len(const char *s)
{
	size_t n = 0;
	while (is_hex(s[n]))
		n++;
	return n;
}

const char *name_short(const prof *p, const char *name, char *buf, size_t len)
{
	/* backtrace_symbols: path(+0xoff) or path(sym+0xoff), then " [0xaddr]" or nothing. */
	v1name vn;
	if (!v1name_parse(name, V1NAME_LOOSE, &vn) && vn.sign == '+' && !(vn.parts & V1NAME_CUT) &&
	    !memchr(vn.sym, ' ', vn.sym_len)) {
		/* A symbol says more than the module; without one, the module's file. */
		const char *b = vn.sym_len ? vn.sym : base_of(name, name + vn.path_len);
		size_t bl = vn.sym_len ? vn.sym_len : (size_t)(name + vn.path_len - b);
		if (!bl)
			return name;
		snprintf(buf, len, "%.*s+0x%.*s", (int)bl, b, (int)vn.off_len, vn.off_hex);
		return buf;
	}
	/* A bare address: module file + offset when a module holds it. */
	if (p && name[0] == '0' && name[1] == 'x' && hex_len(name + 2) && !name[2 + hex_len(name + 2)]) {
		uint64_t addr = strtoull(name + 2, NULL, 16);
		uint32_t mi = prof_module_find(p, addr);
		if (mi == PROF_NONE)
			return name;
		const prof_module *m = &p->modules.v[mi];
		const char *path = prof_strat(p, m->path);
		if (!path || !path[0])
			return name;
		snprintf(buf, len, "%s+0x%" PRIx64, base_of(path, path + strlen(path)), addr - m->base + m->offset);
		return buf;
	}
	return name;
}

/* Columns of s[0..n): one per UTF-8 character. */
static int cols(const char *s, size_t n)
{
	int c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* Bytes of s holding its first k characters. */
static size_t bytes_of(const char *s, size_t n, int k)
{
	size_t i = 0;
	while (i < n && k > 0) {
		i++;
		while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		k--;
	}
	return i;
}

/* The argument list of a C++-style name: *open at its '(', *close at the
 * matching ')'. Groups followed by "::" are scopes ("(anonymous
 * namespace)::"), groups after a blank are notes ("f (lib.so)"), an
 * operator's own symbols are skipped, and parentheses
 * inside <> or {} (templates, lambdas) are not the list. 0 or -1. */
static int arg_list(const char *s, size_t *open, size_t *close)
{
	int angle = 0, brace = 0;
	for (size_t i = 0; s[i]; i++) {
		char c = s[i];
		if (!strncmp(s + i, "operator", 8) && (i == 0 || s[i - 1] == ':' || s[i - 1] == ' ')) {
			i += 8;
			while (s[i] == ' ')
				i++;
			if (s[i] == '(' && s[i + 1] == ')')
				i += 2;
			while (s[i] && strchr("<>=!+-*/%^&|~[],", s[i]))
				i++;
			i--;
			continue;
		}
		if (c == '<')
			angle++;
		else if (c == '>' && angle > 0)
			angle--;
		else if (c == '{')
			brace++;
		else if (c == '}' && brace > 0)
			brace--;
		else if (c == '(' && !angle && !brace) {
			int depth = 0;
			size_t j = i;
			for (; s[j]; j++) {
				if (s[j] == '(')
					depth++;
				else if (s[j] == ')' && --depth == 0)
					break;
			}
			if (!s[j])
				return -1;
			if ((s[j + 1] == ':' && s[j + 2] == ':') || (i > 0 && s[i - 1] == ' ')) {
				i = j;   /* a scope, or a note after the name ("f (lib.so)") */
				continue;
			}
			if (i == 0)
				return -1;
			*open = i;
			*close = j;
			return 0;
		}
	}
	return -1;
}

int name_args(const char *name, size_t *open, size_t *close)
{
	if (arg_list(name, open, close) || *close == *open + 1)
		return -1;
	/* A path with its offset (a name left as recorded) has no arguments to cut. */
	if (!strncmp(name + *close, ") [0x", 5) || (memchr(name, '/', *open) && !strstr(name, "operator")))
		return -1;
	return 0;
}

const char *name_fit(const char *name, int width, const char *ell, char *buf, size_t len)
{
	size_t n = strlen(name), open, close;
	if (width <= 0 || cols(name, n) <= width || name_args(name, &open, &close))
		return name;
	int ew = cols(ell, strlen(ell));
	int head = cols(name, open + 1), args = cols(name + open + 1, close - open - 1);
	int tail = cols(name + close, n - close);
	int room = width - head - ew - tail;   /* for the kept part of the arguments */
	if (room >= 0) {
		if (room > args)
			room = args;
		size_t k = bytes_of(name + open + 1, close - open - 1, room);
		snprintf(buf, len, "%.*s%s%s", (int)(open + 1 + k), name, ell, name + close);
		return buf;
	}
	if (head + ew + 1 <= width) {   /* "f(ell)" fits: the rest after ")" is cut at its end by the caller */
		snprintf(buf, len, "%.*s%s%s", (int)(open + 1), name, ell, name + close);
		return buf;
	}
	/* Even "f(ell)" is too long: the qualifiers go, from the front. */
	int keep = width - 2 * ew - 2;
	if (keep < 1)
		return name;
	size_t skip = bytes_of(name, open, head - 1 - keep);
	snprintf(buf, len, "%s%.*s(%s)", ell, (int)(open - skip), name + skip, ell);
	return buf;
}
