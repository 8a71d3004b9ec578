/* record_file.c - the recording writer's files (see record.h): the
 * directory, the files in it, and the zstd stream written into them.
 *
 * Where the ring is drained from, and what reaches the kernel when: the
 * hook's own thread drains it (record_hook.c), and it dies with the
 * process at SIGKILL (the OOM killer's signal), so what it holds is lost
 * then.  So it holds little: each poll (RECW_POLL_NS) it closes its inner
 * chunks and pushes them into the open frame with ZSTD_e_flush, which
 * ends a zstd block, and writes them: the bytes written so far are whole
 * blocks in the page cache, which outlives the process.  The reader
 * decodes a frame that never ended as far as its whole blocks go.  A
 * frame ends (its header then says its lengths) at RECW_FLUSH raw bytes,
 * after a second, or when the stream is idle, as one did before.
 *
 * Files are made safely for a writer running as root in a directory
 * others can write: the directory is opened without following a symlink
 * (O_NOFOLLOW | O_DIRECTORY) and every file is created in it new
 * (openat, O_CREAT | O_EXCL | O_NOFOLLOW): an existing file is never
 * truncated, a symlink never followed.  A write that fails says why
 * (strerror) and, where it can, notes it in the file's header (an
 * overwrite in place needs no new space on a full disk). */
#include "attach/shared/record.h"
#include "attach/shared/mapmem.h"

#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_customMem: zstd gets the writer's own memory */
#include <zstd.h>

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RECW_ZSLICE (512u << 10)   /* ... made from at most this much of buf at a time */

/* zstd's level follows what the last frame gave: data that compresses well
 * (repeating stacks and sizes) is worth a slower, better level; random
 * sizes are not.  But a busy stream gets the fast level whatever it is
 * worth: the level is capped so that compressing takes at most about
 * RECW_Z_BUSY of the frame's time (the writer's CPU is the program's),
 * and the cap rises again when it takes under a quarter. */
static const int z_ladder[] = { 1, 3, 7 };
#define RECW_Z_BUSY 0.04
static int z_level(rec_writer *w, uint64_t raw, uint64_t z, int64_t took_ns, int64_t span_ns)
{
	int worth = raw >= 16 * z ? 2 : raw >= 4 * z ? 1 : 0;
	double share = span_ns > 0 ? (double)took_ns / (double)span_ns : 1.0;
	if (share > RECW_Z_BUSY && w->zcap > 0)
		w->zcap--;
	else if (share < RECW_Z_BUSY / 4 && w->zcap < 2)
		w->zcap++;
	return z_ladder[worth < w->zcap ? worth : w->zcap];
}

/* zstd's memory: mmap'd, its size in front (zstd frees by pointer only). */
static void *z_alloc(void *opaque, size_t size)
{
	(void)opaque;
	uint64_t *p = hook_map(size + 16);
	if (!p)
		return NULL;
	p[0] = size + 16;
	return p + 2;
}

static void z_free(void *opaque, void *addr)
{
	(void)opaque;
	if (addr) {
		uint64_t *p = (uint64_t *)addr - 2;
		hook_unmap(p, p[0]);
	}
}

int recf_zinit(rec_writer *w)
{
	w->zc = ZSTD_createCCtx_advanced((ZSTD_customMem){ z_alloc, z_free, NULL });
	w->zlevel = 1;   /* the first frame at the fastest level: how busy the stream is, and what it is worth, are not known yet */
	w->zcap = 1;
	/* A frame checksum: a damaged file says so instead of decoding garbage. */
	if (w->zc && (ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, w->zlevel)) ||
		      ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag, 1)))) {
		ZSTD_freeCCtx(w->zc);
		w->zc = NULL;
	}
	return w->zc ? 0 : -1;
}

static void file_name(const rec_writer *w, unsigned seq, char *buf, size_t cap)
{
	snprintf(buf, cap, REC_NAME_FMT, w->pid, seq);
}

int recf_stop(rec_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	recw_beat(w, 0);
	return -1;
}

int recf_fail(rec_writer *w, const char *what, int e)
{
	char name[64];
	file_name(w, w->seq, name, sizeof(name));
	if (w->fd >= 0)
		snprintf(w->err, sizeof(w->err), "%.120s/%s: offset %llu: %s: %s", w->dir, name,
			 (unsigned long long)w->file_bytes, what, strerror(e));
	else
		snprintf(w->err, sizeof(w->err), "%.120s/%s: %s: %s", w->dir, name, what, strerror(e));
	/* The reader says why the file ends where it does: in place, over the
	 * header's own bytes (a full disk has room for those). */
	if (w->fd >= 0 && w->file_bytes >= sizeof(w->fh)) {
		char note[sizeof(w->fh.stopped)] = { 0 };
		snprintf(note, sizeof(note), "%s", w->err);
		if (pwrite(w->fd, note, sizeof(note), offsetof(rec_file_header, stopped)) < 0) {
			/* nothing more to do: the message still says it */
		}
	}
	return recf_stop(w);
}

static int write_all(rec_writer *w, const uint8_t *p, size_t len)
{
	size_t off = 0;
	while (off < len) {
		ssize_t n = write(w->fd, p + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->file_bytes += off;
			return recf_fail(w, "write", n < 0 ? errno : ENOSPC);
		}
		off += (size_t)n;
	}
	w->file_bytes += len;
	return 0;
}

static int z_fail(rec_writer *w, size_t rc)
{
	snprintf(w->err, sizeof(w->err), "%.120s: compressing: %s", w->dir, ZSTD_getErrorName(rc));
	return recf_stop(w);
}

int recf_push(rec_writer *w, int end)
{
	if (!w->len && (!end || w->frame_at == UINT64_MAX))
		return 0;
	int64_t t0 = recw_now(w), wrote_ns = 0;
	size_t head = 0, rc;
	if (w->frame_at == UINT64_MAX) {
		rc = ZSTD_CCtx_reset(w->zc, ZSTD_reset_session_only);
		if (ZSTD_isError(rc))
			return z_fail(w, rc);
		/* Its lengths are not known yet: a reader meanwhile sees a chunk
		 * running past the end of the file, and reads its whole blocks. */
		uint32_t hdr[4] = { REC_C_ZSTD, UINT32_MAX, 0, 0 };   /* rec_chunk, then u32 raw_len, u32 0 */
		memcpy(w->zbuf, hdr, 16);
		head = 16;
		w->frame_at = w->file_bytes;
		w->frame_raw = w->frame_z = 0;
		w->frame_ns = t0;
		w->frame_took_ns = 0;
		w->z_total += 16;
	}
	/* Given RECW_ZSLICE bytes at a time, so the beat is renewed every few
	 * ms even at the slowest level. */
	ZSTD_inBuffer in = { w->buf, 0, 0 };
	ZSTD_EndDirective last = end ? ZSTD_e_end : ZSTD_e_flush;
	for (;; head = 0) {
		in.size = w->len - in.pos > RECW_ZSLICE ? in.pos + RECW_ZSLICE : w->len;
		ZSTD_EndDirective d = in.size == w->len ? last : ZSTD_e_continue;
		ZSTD_outBuffer out = { w->zbuf + head, RECW_ZPIECE - head, 0 };
		rc = ZSTD_compressStream2(w->zc, &out, &in, d);
		if (ZSTD_isError(rc))
			return z_fail(w, rc);
		w->frame_z += out.pos;
		int64_t t1 = recw_now(w);
		if (head + out.pos && write_all(w, w->zbuf, head + out.pos))
			return -1;
		wrote_ns += recw_now(w) - t1;
		recw_beat(w, 1);
		if (d != ZSTD_e_continue && !rc)
			break;
	}
	w->frame_raw += w->len;
	w->raw_total += w->len;
	w->len = 0;
	int64_t now = recw_now(w);
	w->frame_took_ns += now - t0 - wrote_ns;
	if (!end)
		return 0;
	uint32_t lens[2] = { (uint32_t)(8 + w->frame_z), (uint32_t)w->frame_raw };   /* len, then raw_len after type */
	ssize_t put = pwrite(w->fd, lens, 8, (off_t)(w->frame_at + 4));
	if (put != 8)
		return recf_fail(w, "write", put < 0 ? errno : ENOSPC);
	int lv = z_level(w, w->frame_raw, w->frame_z, w->frame_took_ns, now - w->frame_ns);
	if (lv != w->zlevel && !ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, lv)))
		w->zlevel = lv;
	w->frame_at = UINT64_MAX;
	w->frame_raw = 0;
	w->ev_run = 0;   /* a run of EVENTS chunks stays within its frame */
	return 0;
}

/* Removes this pid's files left in dir by an earlier run. */
static void clean_dir(rec_writer *w)
{
	int fd = openat(w->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);   /* its own offset for getdents */
	if (fd < 0)
		return;
	char prefix[64];
	int pl = snprintf(prefix, sizeof(prefix), "mprof-%d.", w->pid);
	char buf[8192];
	for (;;) {
		long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (long off = 0; off < n;) {
			struct { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; } *d =
				(void *)(buf + off);
			size_t nl = strlen(d->name);
			if (!strncmp(d->name, prefix, (size_t)pl) && nl > 4 && !strcmp(d->name + nl - 4, ".rec"))
				unlinkat(w->dirfd, d->name, 0);
			off += d->reclen;
		}
	}
	close(fd);
}

int recf_dir(rec_writer *w, const char *dir)
{
	size_t dl = strlen(dir);
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	if (dl >= sizeof(w->dir)) {
		snprintf(w->err, sizeof(w->err), "recording directory name too long");
		return -1;
	}
	memcpy(w->dir, dir, dl);
	w->dir[dl] = 0;
	if (mkdir(w->dir, 0755) && errno != EEXIST) {
		snprintf(w->err, sizeof(w->err), "%.200s: cannot create: %s", w->dir, strerror(errno));
		return -1;
	}
	w->dirfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (w->dirfd < 0) {
		int e = errno;
		struct stat st;
		int link = (e == ELOOP || e == ENOTDIR) && !lstat(w->dir, &st) && S_ISLNK(st.st_mode);
		snprintf(w->err, sizeof(w->err), "%.200s: %s", w->dir,
			 link ? "a symbolic link, not followed: give the directory itself" :
			 e == ENOTDIR ? "not a directory" : strerror(e));
		return -1;
	}
	clean_dir(w);
	return 0;
}

int recf_create(rec_writer *w)
{
	char name[64];
	file_name(w, w->seq, name, sizeof(name));
	w->fd = openat(w->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		int e = errno;
		snprintf(w->err, sizeof(w->err), "%.80s/%.40s: cannot create a recording file: %.40s%s", w->dir, name,
			 strerror(e), e == EEXIST ? " (not made by this recording: left alone)" : "");
		return recf_stop(w);
	}
	w->file_bytes = 0;
	w->frame_at = UINT64_MAX;
	w->ev_run = 0;
	w->fh.seq = w->seq;
	return write_all(w, (const uint8_t *)&w->fh, sizeof(w->fh));
}

void recf_remove(rec_writer *w, unsigned seq)
{
	char name[64];
	file_name(w, seq, name, sizeof(name));
	unlinkat(w->dirfd, name, 0);
}

void recf_release(rec_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	if (w->dirfd >= 0)
		close(w->dirfd);
	w->dirfd = -1;
	ZSTD_freeCCtx(w->zc);
	w->zc = NULL;
}
