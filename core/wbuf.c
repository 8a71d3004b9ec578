/* wbuf.c - buffered writes with no allocation. */
#include "core/wbuf.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void wbuf_init(wbuf *w, int fd)
{
	w->fd = fd;
	w->failed = 0;
	w->len = 0;
	w->total = 0;
}

static void wbuf_drain(wbuf *w)
{
	size_t done = 0;
	while (done < w->len && !w->failed) {
		ssize_t n = write(w->fd, w->buf + done, w->len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			w->failed = errno;
		} else if (n == 0) {
			w->failed = EIO;
		} else {
			done += (size_t)n;
		}
	}
	w->len = 0;
}

void wbuf_put(wbuf *w, const void *data, size_t len)
{
	const unsigned char *d = data;
	w->total += len;
	while (len) {
		if (w->len == sizeof(w->buf))
			wbuf_drain(w);
		size_t n = sizeof(w->buf) - w->len;
		if (n > len)
			n = len;
		memcpy(w->buf + w->len, d, n);
		w->len += n;
		d += n;
		len -= n;
	}
}

void wbuf_be32(wbuf *w, uint32_t v)
{
	unsigned char b[4] = { v >> 24, v >> 16, v >> 8, v };
	wbuf_put(w, b, 4);
}

void wbuf_be64(wbuf *w, uint64_t v)
{
	wbuf_be32(w, (uint32_t)(v >> 32));
	wbuf_be32(w, (uint32_t)v);
}

void wbuf_le16(wbuf *w, uint16_t v)
{
	unsigned char b[2] = { v, v >> 8 };
	wbuf_put(w, b, 2);
}

void wbuf_le32(wbuf *w, uint32_t v)
{
	unsigned char b[4] = { v, v >> 8, v >> 16, v >> 24 };
	wbuf_put(w, b, 4);
}

void wbuf_le64(wbuf *w, uint64_t v)
{
	wbuf_le32(w, (uint32_t)v);
	wbuf_le32(w, (uint32_t)(v >> 32));
}

int wbuf_flush(wbuf *w)
{
	wbuf_drain(w);
	return w->failed;
}

wbuf *wbuf_open(int fd)
{
	wbuf *w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w == MAP_FAILED)
		return NULL;
	wbuf_init(w, fd);
	return w;
}

int wbuf_close(wbuf *w)
{
	int e = wbuf_flush(w);
	munmap(w, sizeof(*w));
	return e;
}
