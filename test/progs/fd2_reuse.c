/* fd2_reuse.c - a daemon's move: closes its stderr and opens argv[1],
 * which gets descriptor 2, writes "mine" there and exits.  Under the hook
 * a message at exit must not land in that file. */
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	close(2);
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd != 2 || write(fd, "mine\n", 5) != 5)
		return 1;
	return 0;
}
