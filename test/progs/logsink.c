/* logsink.c - a syslog socket for tests: binds a datagram socket at
 * argv[1], says "ready", prints the first datagram it receives (within 10
 * s) as one line, and exits; 1 when none came. */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", argv[1]);
	unlink(a.sun_path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror(argv[1]);
		return 2;
	}
	struct timeval tv = { 10, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	printf("ready\n");
	fflush(stdout);
	char buf[2048];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return 1;
	printf("%.*s\n", (int)n, buf);
	return 0;
}
