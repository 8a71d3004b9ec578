/* coderanges.c - the session's code ranges of the safe-point rule (R_*:
 * allocator, lock holder, wait, libc), which safepoint.c and allocranges.c
 * fill, and the load bias that turns a module's file addresses into the
 * process's (from the session's maps).  Calls nothing else of
 * attach/inject/.  x86_64 only. */
#if defined(__x86_64__)
#include "attach/inject/inject_int.h"
#include "core/vec.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The load bias of the module at path: address = file address + bias. */
int inj_module_bias(const session *s, const char *path, uint64_t vaddr0, uint64_t *bias)
{
	for (size_t i = 0; i < s->nmaps; i++)
		if (!strcmp(s->maps[i].path, path)) {
			*bias = s->maps[i].lo - s->maps[i].off - vaddr0;
			return 0;
		}
	return -1;
}

const char *inj_file(const session *s, const char *path, char *buf, size_t cap)
{
	if (!buf || cap < 2)   /* never so; said for GCC, which under UBSan warned of a NULL buf */
		return path;
	for (size_t i = 0; i < s->nmaps; i++)
		if (!strcmp(s->maps[i].path, path)) {   /* the very file mapped (root's right) */
			snprintf(buf, cap, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, s->pid, s->maps[i].lo, s->maps[i].hi);
			if (!access(buf, R_OK))
				return buf;
			break;
		}
	snprintf(buf, cap, "/proc/%d/root%s", s->pid, path);
	return access(buf, R_OK) ? path : buf;   /* a chroot's maps name the file as the host sees it */
}

int inj_range_add(session *s, uint64_t lo, uint64_t hi, int kind)
{
	if (vec_grow((void **)&s->bad, &s->badcap, s->nbad + 1, sizeof(*s->bad)))
		return -1;
	s->bad[s->nbad++] = (range){ lo, hi, kind };
	return 0;
}

#endif
