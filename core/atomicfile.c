/* atomicfile.c - the temporary beside the target (PATH.xxxxxxxx.tmp, a
 * name hard to guess, created O_EXCL|O_NOFOLLOW, another name tried on a
 * clash) and its rename over the target, or its removal when the rename
 * fails (see atomicfile.h). No allocation. */
#include "core/atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t name_seq;

/* splitmix64 whole, not hash.h's one round: a name must be hard to guess, not only spread. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

int atomicfile_open(const char *path, char *tmp, size_t cap, int mode)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t n = strlen(path);
	if (!n || n + ATOMICFILE_SUFFIX > cap) {
		errno = n ? ENAMETOOLONG : ENOENT;
		return -1;
	}
	memcpy(tmp, path, n);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	/* Unpredictable enough that a planted name is a miss; O_EXCL makes it safe. */
	uint64_t r = mix((uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 40 ^
			 (uint64_t)(uintptr_t)&ts);
	for (int tries = 0; tries < 100; tries++) {
		r = mix(r ^ __atomic_add_fetch(&name_seq, 1, __ATOMIC_RELAXED));
		char *s = tmp + n;
		*s++ = '.';
		uint64_t x = r;
		for (int i = 0; i < 8; i++, x /= 36)
			*s++ = digits[x % 36];
		memcpy(s, ".tmp", 5);
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int atomicfile_commit(const char *tmp, const char *path)
{
	if (!rename(tmp, path))
		return 0;
	int e = errno;
	unlink(tmp);
	errno = e;
	return -1;
}
