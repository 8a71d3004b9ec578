/* safetext.c - control bytes in names shown as \xNN. */
#include "core/safetext.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes) of a code point
 * that is not a control, or 0. */
static size_t utf8_ok(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	if (c >= 0x20 && c < 0x7f)
		return 1;
	size_t len;
	unsigned cp, min;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, cp = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, cp = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, cp = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, past U+10FFFF and the C1 controls (CSI is U+009B). */
	if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || cp <= 0x9f)
		return 0;
	return len;
}

int text_is_safe(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_ok(u + i, n - i);
		if (!k)
			return 0;
		i += k;
	}
	return 1;
}

size_t text_escape(char *dst, size_t cap, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t out = 0;
	int full = cap == 0;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_ok(u + i, n - i);
		char esc[4] = { '\\', 'x', hex[u[i] >> 4], hex[u[i] & 15] };
		const char *piece = k ? s + i : esc;
		size_t len = k ? k : 4;
		if (!full && out + len < cap)
			memcpy(dst + out, piece, len);
		else if (!full) {
			dst[out] = 0;
			full = 1;
		}
		out += len;
		i += k ? k : 1;
	}
	if (!full)
		dst[out] = 0;
	return out;
}

const char *text_safe(const char *s, char *buf, size_t cap)
{
	size_t n = strlen(s);
	if (text_is_safe(s, n))
		return s;
	text_escape(buf, cap, s, n);
	return buf;
}
