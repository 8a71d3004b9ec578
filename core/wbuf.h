/* wbuf.h - a malloc-free buffered writer to a file descriptor, shared by the
 * writers (they run inside the hooked process too). */
#ifndef MPROF_WBUF_H
#define MPROF_WBUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct wbuf {
	int fd;
	int failed;        /* errno of the first failed write, 0 if none */
	size_t len;
	uint64_t total;    /* bytes accepted so far */
	unsigned char buf[1 << 16];
} wbuf;

void wbuf_init(wbuf *w, int fd);
/* Maps a new writer (no malloc); wbuf_close flushes and unmaps it and
 * returns 0 or the errno of the first failure. NULL if mmap fails. */
wbuf *wbuf_open(int fd);
int wbuf_close(wbuf *w);
void wbuf_put(wbuf *w, const void *data, size_t len);
void wbuf_be32(wbuf *w, uint32_t v);
void wbuf_be64(wbuf *w, uint64_t v);
void wbuf_le16(wbuf *w, uint16_t v);
void wbuf_le32(wbuf *w, uint32_t v);
void wbuf_le64(wbuf *w, uint64_t v);
/* Flushes; returns 0 or the errno of the first failure. */
int wbuf_flush(wbuf *w);

#endif
