/* say.c - the hook's one-line messages: on the program's stderr while it
 * is the one the program started with, else (closed, or its fd reused by
 * the program for something else) to syslog as LOG_USER|LOG_ERR, a
 * datagram written here to /dev/log: syslog(3) takes a lock and may
 * allocate, and messages come from signal handlers and exit. */
#include "attach/hook/hook.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int err_state;      /* 0 not looked at, 1 fd 2 is stderr, 2 it was closed */
static dev_t err_dev;
static ino_t err_ino;

void say_init(void)
{
	struct stat st;
	if (fstat(2, &st)) {
		err_state = 2;
		return;
	}
	err_dev = st.st_dev;
	err_ino = st.st_ino;
	err_state = 1;
}

/* 1 while fd 2 is still the file it was at start. */
static int stderr_ours(void)
{
	if (!err_state)
		say_init();
	struct stat st;
	return err_state == 1 && !fstat(2, &st) && st.st_dev == err_dev && st.st_ino == err_ino;
}

static void say_syslog(const char *msg, size_t n)
{
	char buf[600];
	int k = snprintf(buf, sizeof(buf), "<%d>libmprof[%d]: %.*s", 1 << 3 | 3, (int)getpid(), (int)n, msg);
	if (k <= 0)
		return;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	struct sockaddr_un a = { .sun_family = AF_UNIX, .sun_path = "/dev/log" };
	if (sendto(fd, buf, (size_t)k < sizeof(buf) ? (size_t)k : sizeof(buf) - 1, MSG_NOSIGNAL,
		   (struct sockaddr *)&a, sizeof(a)) < 0) {
		/* nowhere left to say it */
	}
	close(fd);
}

void hook_say(const char *a, const char *b, const char *c)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "mprof: %s%s%s\n", a, b, c);
	if (n <= 0)
		return;
	size_t len = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
	if (!stderr_ours() || write(2, buf, len) != (ssize_t)len)
		say_syslog(buf + 7, len - 8);   /* without "mprof: " and the newline */
}
