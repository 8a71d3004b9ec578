/* remote.c - the HTTP client of mprof-tui (libcurl): one GET into memory
 * per profile, a time limit for the whole transfer (longer by N for a
 * ?seconds=N delta profile, which the server takes N seconds to answer),
 * redirects followed, errors said in one line with the URL. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "remote/remote.h"

#define REMOTE_MAX (1UL << 30)   /* a larger answer is not a profile */

static double remote_timeout = REMOTE_TIMEOUT_DEFAULT;

void remote_set_timeout(double seconds)
{
	remote_timeout = seconds > 0 ? seconds : REMOTE_TIMEOUT_DEFAULT;
}

typedef struct body {
	uint8_t *d;
	size_t len, cap;
	int too_big;
} body;

static size_t body_write(char *ptr, size_t size, size_t n, void *arg)
{
	body *b = arg;
	size_t add = size * n;
	if (b->len + add > REMOTE_MAX) {
		b->too_big = 1;
		return 0;
	}
	if (b->len + add > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		while (cap < b->len + add)
			cap *= 2;
		uint8_t *d = realloc(b->d, cap);
		if (!d)
			return 0;
		b->d = d;
		b->cap = cap;
	}
	memcpy(b->d + b->len, ptr, add);
	b->len += add;
	return add;
}

/* N of "seconds=N" in the query, 0 when none. */
static long query_seconds(const char *url)
{
	const char *q = strchr(url, '?');
	for (const char *s = q; s; s = strchr(s + 1, '&')) {
		if (!strncmp(s + 1, "seconds=", 8))
			return strtol(s + 9, NULL, 10);
	}
	return 0;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init_once(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* The CA a user names as curl(1) and Go clients read it: CURL_CA_BUNDLE or
 * SSL_CERT_FILE (a file), SSL_CERT_DIR (a directory); else libcurl's own. */
static void tls_trust(CURL *c, int insecure)
{
	if (insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
		return;
	}
	const char *file = getenv("CURL_CA_BUNDLE");
	if (!file || !*file)
		file = getenv("SSL_CERT_FILE");
	const char *dir = getenv("SSL_CERT_DIR");
	if (file && *file)
		curl_easy_setopt(c, CURLOPT_CAINFO, file);
	if (dir && *dir)
		curl_easy_setopt(c, CURLOPT_CAPATH, dir);
}

int remote_fetch(const char *url, uint8_t **data, size_t *len, prof_error *err)
{
	pthread_once(&curl_once, curl_init_once);
	/* https+insecure://: pprof's spelling of "do not check the certificate". */
	int insecure = !strncmp(url, REMOTE_INSECURE, strlen(REMOTE_INSECURE));
	char plain[4096];
	if (insecure) {
		snprintf(plain, sizeof(plain), "https%s", url + strlen("https+insecure"));
		url = plain;
	}
	/* "http://host:port" or ".../": a Go service's heap profile. */
	char full[4096];
	const char *host = strstr(url, "://") + 3;
	const char *path = strpbrk(host, "/?");
	if (!path || (path[0] == '/' && path[1] == 0))
		snprintf(full, sizeof(full), "%.*s/debug/pprof/heap", (int)(path ? path - url : (long)strlen(url)), url);
	else
		snprintf(full, sizeof(full), "%s", url);
	CURL *c = curl_easy_init();
	if (!c) {
		prof_errorf(err, "%s: cannot start the HTTP client (libcurl)", url);
		return -1;
	}
	body b = { 0 };
	char cerr[CURL_ERROR_SIZE] = "";
	long secs = query_seconds(full);
	curl_easy_setopt(c, CURLOPT_URL, full);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, body_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)((remote_timeout + (double)(secs > 0 ? secs : 0)) * 1000));
	curl_easy_setopt(c, CURLOPT_USERAGENT, "mprof-tui");
	tls_trust(c, insecure);
	CURLcode r = curl_easy_perform(c);
	long status = 0, oserr = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &oserr);
	curl_easy_cleanup(c);
	if (r != CURLE_OK) {
		if (b.too_big)
			prof_errorf(err, "%s: answer larger than %lu MB: not a profile", full, REMOTE_MAX >> 20);
		else if (r == CURLE_OPERATION_TIMEDOUT)
			prof_errorf(err, "%s: no whole answer within %g s (--timeout): %s", full,
				    remote_timeout + (double)(secs > 0 ? secs : 0), cerr[0] ? cerr : curl_easy_strerror(r));
		else if (r == CURLE_PEER_FAILED_VERIFICATION)
			prof_errorf(err, "%s: %s (trust its CA with SSL_CERT_FILE=FILE, or skip the check with https+insecure://)",
				    full, cerr[0] ? cerr : curl_easy_strerror(r));
		else
			/* The system call's reason too: "Connection refused", not only curl's words. */
			prof_errorf(err, "%s: %s%s%s%s", full, cerr[0] ? cerr : curl_easy_strerror(r), oserr ? " (" : "",
				    oserr ? strerror((int)oserr) : "", oserr ? ")" : "");
		free(b.d);
		return -1;
	}
	if (status != 200) {
		/* The first line of the body says why (Go's "404 page not found"). */
		size_t n = 0;
		while (n < b.len && n < 160 && b.d[n] != '\n' && b.d[n] >= 0x20 && b.d[n] < 0x7f)
			n++;
		prof_errorf(err, "%s: HTTP %ld%s%.*s", full, status, n ? ": " : "", (int)n, b.d ? (char *)b.d : "");
		free(b.d);
		return -1;
	}
	*data = b.d;
	*len = b.len;
	return 0;
}
