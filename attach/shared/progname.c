/* progname.c - a program's name made safe for a file name (progname.h). */
#include "attach/shared/progname.h"

#include <string.h>

void progname_clean(char *dst, size_t cap, const char *prog)
{
	const char *n = prog ? strrchr(prog, '/') : NULL;
	n = n ? n + 1 : prog;
	size_t k = 0;
	for (; n && *n && k + 1 < cap; n++)
		dst[k++] = (*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9') ||
				   *n == '.' || *n == '-' || *n == '+' || *n == '_' ? *n : '_';
	if (!k && cap > 4)
		memcpy(dst, "prog", (k = 4));
	if (cap)
		dst[k] = 0;
}
