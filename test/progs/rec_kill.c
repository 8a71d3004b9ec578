/* rec_kill.c - a program to kill with SIGKILL: keep_fn keeps one block of
 * 100 bytes about every millisecond (a relative sleep: never more than one
 * a millisecond, however late it wakes), forever, and after each one
 * writes how many it keeps to the file argv[1]: a fixed-width line
 * overwritten in place with pwrite(2), unbuffered, so the file says the
 * count whatever moment the kill comes at (one more block may be made
 * before the count says it). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static void *keep_fn(void)
{
	char *p = malloc(100);
	if (p)
		p[0] = 1;
	return p;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return 2;
	for (long n = 1;; n++) {
		void *volatile kept = keep_fn();   /* never freed: alive at the kill */
		(void)kept;
		char line[32];
		int k = snprintf(line, sizeof(line), "%20ld\n", n);
		if (pwrite(fd, line, (size_t)k, 0) != k)
			return 1;
		struct timespec ts = { 0, 1000000 };
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
}
