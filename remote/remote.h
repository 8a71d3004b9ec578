/* remote.h - profiles over HTTP and HTTPS (libcurl): a URL accepted
 * wherever a profile file is, fetched into memory and read there (no
 * temporary file), with one-line errors naming the URL and the HTTP
 * status or the connection failure. */
#ifndef MPROF_REMOTE_H
#define MPROF_REMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "core/load.h"

#define REMOTE_TIMEOUT_DEFAULT 30.0   /* seconds, plus ?seconds=N of a delta profile */

/* HTTPS without checking the server's certificate, as pprof spells it. */
#define REMOTE_INSECURE "https+insecure://"

/* Whether s is an http://, https:// or https+insecure:// URL (else a path). */
int remote_is_url(const char *s);
/* The whole transfer's limit in seconds (--timeout); <= 0: the default. */
void remote_set_timeout(double seconds);
/* Fetches url into *data (malloc'd, caller frees) and *len: 0, or -1 with
 * "URL: HTTP 404" or "URL: <curl's reason>" in err. A URL with no path
 * asks for /debug/pprof/heap, as a Go service serves it. */
int remote_fetch(const char *url, uint8_t **data, size_t *len, prof_error *err);
/* prof_load for a path, or the fetch of a URL read from memory. */
prof *remote_load(const char *path_or_url, prof_error *err);

#endif
