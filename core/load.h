/* load.h - opening a profile file: format detection by content, errors. */
#ifndef MPROF_LOAD_H
#define MPROF_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/prof.h"

/* One line for the user: "FILE: offset N: what is wrong". */
typedef struct prof_error {
	char msg[512];
} prof_error;

void prof_errorf(prof_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Which reader understands these bytes (by content, never by file name). */
enum prof_format prof_detect(const uint8_t *data, size_t len);
const char *prof_format_name(enum prof_format f);

/* Reads a whole profile from a file. Returns a new prof (caller frees with
 * prof_free) or NULL with err filled. */
prof *prof_load(const char *path, prof_error *err);
/* The same from memory; name is used in messages only. */
prof *prof_load_mem(const uint8_t *data, size_t len, const char *name, prof_error *err);

/* The bytes a reader parses; mapped says data is a private file mapping
 * whose parsed pages the reader may drop (keeps peak RSS under file size). */
typedef struct prof_src {
	const uint8_t *data;
	size_t len;
	const char *name;
	int mapped;
} prof_src;

/* Lets the kernel take back the mapped pages wholly inside [from, to). */
void prof_src_drop(const prof_src *src, size_t from, size_t to);

/* Memory the machine has free now (bytes). */
size_t prof_mem_avail(void);
/* Refuses (err filled, -1) a model that needs more memory than is free:
 * a huge file gets a message, never an out-of-memory kill. */
int prof_mem_check(const prof_src *src, size_t off, uint64_t need, prof_error *err);

/* The readers; each returns 0, or -1 with err filled. */
int pro_v1_read(prof *p, const prof_src *src, prof_error *err);
int pro_native_read(prof *p, const prof_src *src, prof_error *err);

/* The writers. They never allocate (the hook calls them inside its host):
 * output goes through a fixed buffer to fd. 0, or -1 with err filled. */
int pro_v1_write(const prof *p, int fd, prof_error *err);
int pro_native_write(const prof *p, int fd, prof_error *err);
/* Writes to path (created 0644, replaced atomically via path.tmp). */
int prof_save(const prof *p, const char *path, enum prof_format f, prof_error *err);

#define PRO_NATIVE_MAGIC "MPROFNAT"
#define PRO_NATIVE_VERSION 1
#define PRO_V1_NAME_MAX 80

#endif
